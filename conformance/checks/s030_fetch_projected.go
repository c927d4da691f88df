package checks

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Seed 001 asks for the projected record: an adapter may project itself
// or forward fields to an RS that honours them, so the clauses are judged
// against the target's own RS (the fixture's honours fields). Against an
// RS that returns every field whatever the projection (as a
// spec-conformant RS may add schema-required ones), keeping the document
// narrow is mcpcheck's own defence in depth: recommended. The document is
// judged by the fields' values, however the adapter asks the RS.
var s030 = &Check{ID: "S030", Slug: "fetch-projected", Mode: ModeBBD, Tools: []string{"fetch"}, Run: func(t *T) {
	if !fetchProjected(t, t, t.Assert, "") {
		t.Skipf("no stream in the target's grant has a record with two or more string fields to project")
	}
	if t.Target.Has(CapFixture) {
		fetchProjected(t, probe.OnRSIgnoringProjection(t), t.Advise, ignoringRSRule)
	}
}}

// ignoringRSRule prefixes what an RS that ignores fields shows: the rule
// is mcpcheck's, not the seed's.
const ignoringRSRule = "against an RS that ignores fields (mcpcheck's own defence-in-depth rule, recommended): "

// fetchProjected judges fetch(fields) on one view of the target, with
// assert at the level the view is judged at (note prefixes its messages);
// false when no record had two string fields to project. Only the
// target's own RS judges the document's source identity and the requested
// field's value (S030.1, S030.3).
func fetchProjected(t, on *T, assert func(bool, string, ...any) bool, note string) bool {
	index := probe.ReadsIndex(on)
	keyOf := map[string]string{}
	var labels []string // source identity, which metadata keeps whatever the projection
	for _, r := range index {
		labels = append(labels, r.DisplayName, r.ConnectorKey)
		for _, c := range r.Connections {
			keyOf[c+"\x00"+r.Name] = r.ConnectorKey
			labels = append(labels, r.ConnNames[c], c)
		}
	}
	inLabel := func(v string) bool {
		return slices.ContainsFunc(labels, func(l string) bool { return l != "" && strings.Contains(l, v) })
	}
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		c := on.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 1}))
		recs := probe.Records(c)
		if c.IsError() || len(recs) == 0 || s.Conn == "" {
			continue
		}
		data, _ := recs[0]["data"].(map[string]any)
		recID := probe.String(recs[0]["id"])
		keys := make([]string, 0, len(data))
		for k, v := range data {
			if sv, ok := v.(string); ok && len(sv) >= 8 && k != "id" && sv != recID {
				keys = append(keys, k)
			}
		}
		if len(keys) < 2 {
			continue
		}
		sort.Strings(keys)
		id := probe.FetchIDFor(on, s, recs[0], c)
		if id == "" {
			t.BlockedBy("S034", "neither search nor the query_records text gives an id that fetch takes for record %s of %s", recID, s.Stream)
		}
		// The first and the last field: one of them is usually not the
		// stream's primary text, so the projection itself is the answer.
		for _, keep := range []string{keys[0], keys[len(keys)-1]} {
			f := on.CallRoles("fetch", dialect.Args{dialect.RecordID: id, dialect.Fields: []string{keep}})
			doc := probe.ReadDocument(t, f)
			all := f.Text() + "\n" + string(f.Raw)
			docJSON, _ := json.Marshal(doc)
			if note == "" {
				t.Clause(1, func() {
					t.Assert(probe.ShownIn(string(docJSON), valueHead(probe.String(data[keep]))), "fetch(fields: [%s]) must render the document from the projected record, showing the requested field's value %q:\n%s",
						keep, clipText(probe.String(data[keep]), 60), clipText(f.Text(), 400))
				})
			}
			t.Clause(2, func() {
				for _, k := range keys {
					// A value the requested field holds too proves nothing.
					// A value the source's own label holds (a login inside
					// "octo-dev GitHub") proves nothing either.
					if v := probe.String(data[k]); k != keep && !strings.Contains(probe.String(data[keep]), valueHead(v)) && !inLabel(valueHead(v)) {
						assert(!probe.ShownIn(all, valueHead(v)), "%sfetch(fields: [%s]) shows the unrequested field %s (%q)", note, keep, k, clipText(v, 60))
					}
				}
			})
			if note == "" {
				t.Clause(3, func() {
					meta, ok := doc["metadata"].(map[string]any)
					if !ok {
						t.BlockedBy("S029", "the document has no metadata object")
					}
					expectSourceIdentity(t, meta, doc, s.Conn, keyOf[s.Conn+"\x00"+s.Stream], s.Stream, recID)
				})
			}
		}
		return true
	}
	return false
}

// valueHead is the start of a field's value that identifies it in a
// result: its first 40 characters.
func valueHead(v string) string {
	r := []rune(v)
	return string(r[:min(len(r), 40)])
}
