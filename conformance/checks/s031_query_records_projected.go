package checks

import (
	"slices"
	"sort"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Seed 001 asks for narrowed records: an adapter may narrow them itself or
// forward fields to an RS that honours them, so the clauses are judged
// against the target's own RS (the fixture's honours fields): each
// record's payload (its data, or the record itself when it has none) and
// the keys beside it. Against an RS that returns every field whatever the
// projection, narrowing them anyway is mcpcheck's own defence in depth:
// recommended.
var s031 = &Check{ID: "S031", Slug: "query-records-projected", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	index := probe.ReadsIndex(t)
	var (
		src    probe.Source
		fields []string
		keys   []string // the stream's declared primary key
	)
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		sc := t.CallRoles("schema", s.Roles(nil))
		rows := probe.RowsNamed(probe.SchemaRows(sc.Data()), s.Stream)
		var names []string
		for _, r := range rows {
			for _, f := range probe.FieldNames(r) {
				if f != "id" {
					names = append(names, f)
				}
			}
		}
		// A stream with no records cannot show a projection: the next one.
		if len(names) >= 3 && len(probe.Records(t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 1})))) > 0 {
			src, fields = s, names[:2]
			for _, r := range rows {
				for _, k := range probe.StringList(r.Raw["primary_key"]) {
					if !slices.Contains(keys, k) {
						keys = append(keys, k)
					}
				}
			}
			break
		}
	}
	if src.Stream == "" {
		t.Skipf("no stream in the target's grant shows three or more fields to project and holds a record")
	}
	p := projection{src: src, fields: fields, keys: keys}
	p.judge(t, t, t.Assert, "")
	if t.Target.Has(CapFixture) {
		p.judge(t, probe.OnRSIgnoringProjection(t), t.Advise, ignoringRSRule)
	}
}}

// A projection is the read S031 judges: fields of one source, whose
// declared primary key may stay beside them.
type projection struct {
	src          probe.Source
	fields, keys []string
}

// judge judges the projected read on one view of the target, with assert
// at the level the view is judged at (note prefixes its messages).
func (p projection) judge(t, on *T, assert func(bool, string, ...any) bool, note string) {
	src, fields, keys := p.src, p.fields, p.keys
	c := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.Fields: fields, dialect.Limit: 5}))
	if c.IsError() {
		t.Clause(1, func() { assert(false, "%sa projected read must succeed: %s", note, c.Describe()) })
		return
	}
	recs := probe.Records(c)
	docs := queryRecordsDocs(on.Target)
	identity := func(k string) bool { return slices.Contains(keys, k) }
	declared := func(k string) bool { return identity(k) || probe.ContainsToken(docs, k) }
	wanted := func(k string) bool { return slices.Contains(fields, k) }
	t.Clause(1, func() {
		if !assert(len(recs) > 0, "%sthe projected read of %s must return its records, narrowed: %s", note, src.Stream, c.Describe()) {
			return
		}
		var extra []string
		for _, r := range recs {
			for k := range payloadOf(r) {
				if !wanted(k) && !identity(k) && !slices.Contains(extra, k) {
					extra = append(extra, k)
				}
			}
		}
		sort.Strings(extra)
		assert(len(extra) == 0, "%srecords projected to %v hold payload fields %v, neither requested nor the stream's identity fields (primary key %v)",
			note, fields, extra, keys)
	})
	t.Clause(2, func() {
		var undeclared []string
		for _, r := range recs {
			for k := range r {
				if k == "data" || wanted(k) || declared(k) || slices.Contains(undeclared, k) {
					continue
				}
				undeclared = append(undeclared, k)
			}
			if _, nested := r["data"].(map[string]any); nested {
				for k := range payloadOf(r) {
					if !wanted(k) && !declared(k) && !slices.Contains(undeclared, "data."+k) {
						undeclared = append(undeclared, "data."+k)
					}
				}
			}
		}
		sort.Strings(undeclared)
		assert(len(undeclared) == 0, "%srecords projected to %v keep %v beside the requested fields, declared as identity or operational keys neither in the schema nor in the query_records description",
			note, fields, undeclared)
	})
}

// payloadOf is a record's payload: its data object, or the record itself.
func payloadOf(r map[string]any) map[string]any {
	if d, ok := r["data"].(map[string]any); ok {
		return d
	}
	return r
}

// queryRecordsDocs is everything query_records says about itself.
func queryRecordsDocs(tgt *Target) string { return probe.ToolDocs(tgt, "query_records") }
