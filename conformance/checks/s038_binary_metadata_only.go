package checks

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var binaryWordRe = regexp.MustCompile(`(?i)binary`)

// S038 reads a record holding binary fields (base64 bodies, blob
// references), on the target's data and on the evidence-ladder fixture's
// files (blobs with and without a route): the previews and fetch name each
// such field as metadata (clause 1), show the grant-scoped route a blob
// has (2), and never show a base64 body (3).
var s038 = &Check{ID: "S038", Slug: "binary-metadata-only", Mode: ModeBBD, Tools: []string{"query_records", "fetch"}, Run: func(t *T) {
	judged := 0
	for v := range probe.EvidenceViews(t) {
		rec, ok := probe.ScanRecords(v, func(r probe.ScannedRecord) bool {
			return slices.ContainsFunc(probe.MapValues(r.Data), probe.LooksBinary)
		})
		if !ok {
			continue
		}
		judged++
		judgeBinaryRecord(t, v, rec)
	}
	if judged == 0 {
		t.NotApplicable("no record of the target's grant holds a binary field")
	}
}}

// judgeBinaryRecord judges one record's binary fields in its stream's
// preview page and its fetch document.
func judgeBinaryRecord(t, v *T, rec probe.ScannedRecord) {
	q := v.CallRoles("query_records", probe.Source{Stream: rec.Stream, Conn: rec.Conn}.Roles(dialect.Args{dialect.Limit: 5}))
	f := v.CallRoles("fetch", dialect.Args{dialect.RecordID: rec.ID})
	var shown []*Call
	for _, c := range []*Call{q, f} {
		if c.IsError() {
			t.BlockedBy(map[string]string{"fetch": "S029", "query_records": "S031"}[c.Tool], "%s failed: %s", c.Tool, c.Describe())
			continue
		}
		shown = append(shown, c)
	}
	if len(shown) == 0 {
		return
	}
	names := make([]string, 0, len(rec.Data))
	for k := range rec.Data {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		val := rec.Data[name]
		if !probe.LooksBinary(val) {
			continue
		}
		for _, c := range shown {
			visible := c.Text()
			if c.Tool == "fetch" {
				visible += string(c.Raw)
			}
			t.Clause(1, func() {
				t.Assert(strings.Contains(visible, name), "%s must show the binary field %s of %s as metadata (its name, size or media type), not drop it silently", c.Tool, name, rec.ID)
			})
			if body, ok := val.(string); ok {
				t.Clause(3, func() {
					t.Assert(!strings.Contains(visible, body[len(body)/2:len(body)/2+40]), "%s must keep the base64 body of %s (record %s) out of model-visible output", c.Tool, name, rec.ID)
				})
			}
		}
		obj, _ := val.(map[string]any)
		if route := probe.String(obj["fetch_url"]); route != "" {
			t.Clause(2, func() {
				t.Assert(slices.ContainsFunc(shown, func(c *Call) bool { return strings.Contains(c.Text(), route) }),
					"the grant-scoped blob route %s of %s (record %s) must be shown as its continuation", route, name, rec.ID)
			})
		}
	}
}
