package conformance

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed report.schema.json
var reportJSONSchema []byte

// ReportJSONSchema returns the JSON Schema (draft 2020-12) of the JSON
// report format [ReportSchema], as shipped in this binary.
func ReportJSONSchema() []byte { return bytes.Clone(reportJSONSchema) }

// A ReportSchemaError says why a document is not a valid JSON report:
// every violation, each with where in the document it is.
type ReportSchemaError struct {
	Reason     string   // one line: the first violation, or why it is not JSON
	Violations []string // every violation, "at /path: what"
	NotJSON    bool     // the document is not JSON at all
}

func (e *ReportSchemaError) Error() string {
	msg := "not a valid " + ReportSchema + " report: " + e.Reason
	if len(e.Violations) > 1 {
		msg += fmt.Sprintf(" (and %d more violations)", len(e.Violations)-1)
	}
	return msg
}

var compiledReportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reportJSONSchema))
	if err != nil {
		return nil, fmt.Errorf("report.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	const url = "report.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("report.schema.json: %w", err)
	}
	return c.Compile(url)
})

// ValidateReportJSON checks a JSON report against [ReportJSONSchema]. A
// document that breaks it yields a *ReportSchemaError listing every
// violation.
func ValidateReportJSON(data []byte) error {
	sch, err := compiledReportSchema()
	if err != nil {
		return err // the embedded schema itself is broken: a build defect
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &ReportSchemaError{Reason: "not JSON: " + err.Error(), NotJSON: true}
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(doc); errors.As(err, &ve) {
		var out []string
		for _, u := range ve.BasicOutput().Errors {
			if u.Error != nil && len(u.Errors) == 0 {
				out = append(out, fmt.Sprintf("at %s: %s", orRoot(u.InstanceLocation), u.Error))
			}
		}
		if len(out) == 0 {
			out = []string{err.Error()}
		}
		return &ReportSchemaError{Reason: out[0], Violations: out}
	} else if err != nil {
		return err
	}
	return nil
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
