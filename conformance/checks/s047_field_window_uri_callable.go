package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

const fieldWindowURIPrefix = "pdpp://field-window/"

// S047 judges every pdpp://field-window/ URI the target shows, in read
// results on its own data and on records that keep such handles (the
// evidence-ladder fixture's clippings): resources/read serves it or the
// bounded field read takes it, and a failed resource read is never the
// only next step the model is given.
var s047 = &Check{ID: "S047", Slug: "field-window-uri-callable", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	documented := len(documentingTools(t.Target, fieldWindowURIPrefix)) > 0
	judged := 0
	for v := range evidenceViews(t) {
		seen := map[string]bool{}
		outputs := readURIs(v)
		if _, c, _ := fanInTerm(v); c != nil {
			for _, e := range evidenceLines(c.Text()) {
				if e.ID != "" {
					outputs = append(outputs, v.CallRoles("read_record_field", dialect.Args{dialect.RecordID: e.ID, dialect.Field: e.FieldPath, dialect.Length: 200}))
					break
				}
			}
		}
		for _, c := range outputs {
			for _, u := range handleURIs(c, "field-window") {
				if seen[u] {
					continue
				}
				seen[u] = true
				judged++
				field := fieldOfWindowURI(v, c, u)
				readable, taken := resourceReadable(v, u), field != "" && takenAsID(v, "read_record_field", u, field)
				t.Clause(1, func() {
					t.Assert(readable || taken, "%s shows %s: resources/read must serve it or read_record_field must take it as its id", c.Tool, u)
				})
				t.Clause(2, func() {
					if readable {
						t.Assert(true, "")
						return
					}
					// The resource read fails: the model needs a tool path it
					// is told about, in the tool's documentation or beside
					// the URI.
					line := lineAround(c.Text(), max(0, strings.Index(c.Text(), u)))
					told := documented || strings.Contains(line, "read_record_field")
					t.Assert(taken && told, "%s shows %s, which resources/read does not serve; read_record_field must take it (%t) and the model must be told so (%t): a failed resource read is its only next step", c.Tool, u, taken, told)
				})
			}
		}
	}
	if judged == 0 {
		t.NotApplicable("no read result shows a pdpp://field-window/ URI")
	}
}}

// fieldOfWindowURI is the field a field-window handle reads: named in the
// handle when it is base64url JSON, else the field_path shown on the
// URI's line.
func fieldOfWindowURI(t *T, c *Call, uri string) string {
	if f := fieldIn(t, handleJSON(uri)); f != "" {
		return f
	}
	if m := evFieldRe.FindStringSubmatch(lineAround(c.Text(), max(0, strings.Index(c.Text(), uri)))); m != nil {
		return m[1]
	}
	return ""
}
