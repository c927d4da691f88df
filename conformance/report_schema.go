package conformance

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed report.schema.json
var reportJSONSchema []byte

// ReportJSONSchema returns the JSON Schema (draft 2020-12) of the JSON
// report format [ReportSchema], as shipped in this binary.
func ReportJSONSchema() []byte { return bytes.Clone(reportJSONSchema) }

// A ReportSchemaError says why a document is not a valid JSON report.
type ReportSchemaError struct{ Reason string }

func (e *ReportSchemaError) Error() string {
	return "not a valid " + ReportSchema + " report: " + e.Reason
}

var resolvedReportSchema = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(reportJSONSchema, &s); err != nil {
		return nil, fmt.Errorf("report.schema.json: %w", err)
	}
	return s.Resolve(nil)
})

// ValidateReportJSON checks a JSON report against [ReportJSONSchema]. A
// document that breaks it yields a *ReportSchemaError.
func ValidateReportJSON(data []byte) error {
	rs, err := resolvedReportSchema()
	if err != nil {
		return err // the embedded schema itself is broken: a build defect
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return &ReportSchemaError{Reason: "not JSON: " + err.Error()}
	}
	if err := rs.Validate(doc); err != nil {
		return &ReportSchemaError{Reason: err.Error()}
	}
	return nil
}
