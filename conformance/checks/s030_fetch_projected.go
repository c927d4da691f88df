package checks

import (
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Seed 001 asks for the projected record: an adapter may project itself
// or forward fields to an RS that honours them, so the clauses are judged
// against the target's own RS (the fixture's honours fields). Against an
// RS that returns every field whatever the projection (as a
// spec-conformant RS may add schema-required ones), keeping the document
// narrow is mcpcheck's own defence in depth: recommended. The document is
// judged by the fields' values, however the adapter asks the RS.
var s030 = &Check{ID: "S030", Slug: "fetch-projected", Mode: ModeBBD, Tools: []string{"fetch"}, Run: func(t *T) {
	if !fetchProjected(t, t, true) {
		t.Skipf("no record of the grant has two or more string fields to project and a handle fetch takes")
	}
	if t.Target.Has(CapFixture) {
		fetchProjected(t, probe.OnRSIgnoringProjection(t), false)
	}
}}

// ignoringRSRule prefixes what an RS that ignores fields shows: the rule
// is mcpcheck's, not the seed's.
const ignoringRSRule = "against an RS that ignores fields (mcpcheck's own defence-in-depth rule, recommended): "

// fetchProjected judges fetch(fields) on one view of the target: the
// target's own RS (required), or one that ignores fields (recommended);
// false when no record of the grant had two string fields to project and
// a handle the answer showed. Records and their values are the fixture's.
func fetchProjected(t, on *T, required bool) bool {
	if probe.FixtureRecords(on) == nil {
		t.SkipFor(CapControlledRS, "judging a projection by value needs the records mcpcheck's fixture RS serves")
	}
	labels := probe.FixtureStrings(on)
	tried := 0
	for _, s := range probe.Sources(probe.Grant(on)) {
		if s.Conn == "" || tried == probe.MaxStreamProbes {
			continue
		}
		tried++
		page := on.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 1}))
		refs := probe.RecordsShown(on, page, s.Stream)
		if page.IsError() || len(refs) == 0 {
			continue
		}
		rec, _ := probe.FindRecord(on, refs[0])
		var keys []string
		for k, v := range rec.Data {
			if sv, ok := v.(string); ok && len(sv) >= 8 && k != "id" && sv != rec.Ref.ID && !probe.LooksBinary(sv) {
				keys = append(keys, k)
			}
		}
		if len(keys) < 2 {
			continue
		}
		sort.Strings(keys)
		id := probe.Handles(on, page, refs[:1])[refs[0]]
		if id == "" {
			t.BlockedBy("S034", "the query_records answer shows no handle fetch takes for record %s", refs[0])
		}
		// The first and the last field: one of them is usually not the
		// stream's primary text, so the projection itself is the answer.
		for _, keep := range []string{keys[0], keys[len(keys)-1]} {
			f := on.CallRoles("fetch", dialect.Args{dialect.RecordID: id, dialect.Fields: []string{keep}})
			doc := probe.ReadDocument(t, f)
			if required {
				t.Clause(1, func() {
					t.Shows(f, read.Text(valueHead(probe.String(rec.Data[keep]))), "fetch(fields: [%s]) must render the document from the projected record, showing the requested field's value", keep)
				})
			}
			t.Clause(2, func() {
				for _, k := range keys {
					// A value the requested field holds too proves nothing;
					// nor does one a source's own label or name holds.
					v := valueHead(probe.String(rec.Data[k]))
					if k == keep || strings.Contains(probe.String(rec.Data[keep]), v) || slices.ContainsFunc(labels, func(l string) bool { return l != probe.String(rec.Data[k]) && strings.Contains(l, v) }) {
						continue
					}
					if required {
						t.ShowsNone(f, v, "fetch(fields: [%s]) shows the unrequested field %s", keep, k)
					} else {
						t.Advise(!read.Find(f.Strings(), read.Text(v)).Seen(), "%sfetch(fields: [%s]) shows the unrequested field %s (%q)", ignoringRSRule, keep, k, clipText(v, 60))
					}
				}
			})
			if required {
				t.Clause(3, func() {
					meta, ok := doc["metadata"].(map[string]any)
					if !ok {
						t.BlockedBy("S029", "the document has no metadata object")
					}
					expectSourceIdentity(t, meta, doc, rec.Ref)
				})
			}
		}
		return true
	}
	return false
}

// valueHead is the start of a field's value that identifies it in a
// result: its first words, up to about 40 characters, cut at a word's end.
func valueHead(v string) string {
	r := []rune(v)
	if len(r) <= 48 {
		return v
	}
	head := string(r[:40])
	if i := strings.LastIndexByte(head, ' '); i > 16 {
		head = head[:i]
	}
	return strings.TrimRight(head, " ,.;:")
}
