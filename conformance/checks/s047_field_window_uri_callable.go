package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

const fieldWindowURIPrefix = "pdpp://field-window/"

// S047 judges every pdpp://field-window/ URI the target itself shows, in
// read results on its own data and on the evidence-ladder fixture (a URI
// that only copies a record value is data, not the target's):
// resources/read serves it or the bounded field read takes it, and a
// failed resource read is never the only next step the model is given.
var s047 = &Check{ID: "S047", Slug: "field-window-uri-callable", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	documented := len(probe.DocumentingTools(t.Target, fieldWindowURIPrefix)) > 0
	judged := 0
	for v := range probe.EvidenceViews(t) {
		seen := map[string]bool{}
		scan := probe.ReadURIs(v)
		if _, c, _ := probe.FanInTerm(v); c != nil {
			for _, e := range probe.EvidenceLines(c.Text()) {
				if e.ID != "" {
					scan.Calls = append(scan.Calls, v.CallRoles("read_record_field", dialect.Args{dialect.RecordID: e.ID, dialect.Field: e.FieldPath, dialect.Length: 200}))
					break
				}
			}
		}
		for _, c := range scan.Calls {
			for _, u := range scan.Emitted(c, "field-window") {
				if seen[u] {
					continue
				}
				seen[u] = true
				judged++
				readable := probe.ResourceReadable(v, u)
				// The bounded read, with u as its id and a field the answer
				// shows: a refusal is the witness that u is no id it takes.
				var tried *Call
				for _, field := range windowFields(v, c, u) {
					r := v.CallRoles("read_record_field", dialect.Args{dialect.RecordID: u, dialect.Field: field})
					if tried == nil || !r.IsError() {
						tried = r
					}
					if !r.IsError() {
						break
					}
				}
				taken := tried != nil && !tried.IsError()
				refused := func() (conformance.Witness, error) {
					if tried == nil {
						return conformance.Witness{}, fmt.Errorf("no field of %s to read it with", u)
					}
					return conformance.Refused(tried, c)
				}
				t.Clause(1, func() {
					t.AssertWith(readable || taken, refused, "%s shows %s: resources/read must serve it or read_record_field must take it as its id", c.Tool, u)
				})
				t.Clause(2, func() {
					if readable {
						t.Held()
						return
					}
					// The resource read fails: the model needs a tool path it
					// is told about, in the tool's documentation or beside
					// the URI.
					line := dialect.LineAround(c.Text(), max(0, strings.Index(c.Text(), u)))
					told := documented || strings.Contains(line, "read_record_field")
					if !t.AssertWith(taken, refused, "%s shows %s, which resources/read does not serve, and read_record_field does not take it: a failed resource read is its only next step", c.Tool, u) {
						return
					}
					t.AssertWith(told, func() (conformance.Witness, error) {
						if _, err := conformance.Absent(read.Text(fieldWindowURIPrefix), toolDocs(v)); err != nil {
							return conformance.Witness{}, err
						}
						return conformance.Absent(read.Text("read_record_field"), conformance.Shown("the line showing "+u, line))
					}, "%s shows %s, which resources/read does not serve; read_record_field takes it, but the model is not told so", c.Tool, u)
				})
			}
		}
	}
	if judged == 0 {
		t.NotApplicable("no read result shows a pdpp://field-window/ URI of the target's own")
	}
}}

// windowFields are the fields a field-window handle may read, best first:
// the one under the target's own field argument in a base64url JSON
// handle, then, found by value, the handle's other strings (its keys are
// the target's own encoding), else the field shown on the URI's line.
func windowFields(t *T, c *Call, uri string) []string {
	out := probe.HandleFields(t, probe.HandleJSON(uri))
	if m := probe.EvidenceField.FindStringSubmatch(dialect.LineAround(c.Text(), max(0, strings.Index(c.Text(), uri)))); m != nil && !slices.Contains(out, m[1]) {
		out = append(out, m[1])
	}
	return out
}
