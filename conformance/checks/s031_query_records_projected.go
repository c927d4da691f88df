package checks

import (
	"maps"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Seed 001 asks for narrowed records: an adapter may narrow them itself or
// forward fields to an RS that honours them, so the clauses are judged
// against the target's own RS (the fixture's honours fields), by value: a
// returned record's unrequested fields are its fixture values, found in
// the answer or not (a payload is the record's data, not the envelope
// keys beside it). Against an RS that returns every field whatever the
// projection, narrowing them anyway is mcpcheck's own defence in depth:
// recommended.
var s031 = &Check{ID: "S031", Slug: "query-records-projected", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	if probe.FixtureRecords(t) == nil {
		t.SkipFor(CapControlledRS, "judging a projection by value needs the records mcpcheck's fixture RS serves")
	}
	var p projection
	for i, s := range probe.Sources(probe.Grant(t)) {
		if i == probe.MaxStreamProbes {
			break
		}
		var names []string
		for _, r := range probe.RowsNamed(probe.Grant(t), s.Stream) {
			for _, f := range probe.FieldNames(r) {
				if f != "id" && !slices.Contains(names, f) {
					names = append(names, f)
				}
			}
		}
		if len(names) >= 3 && probeRecords(t, s) {
			p = projection{src: s, fields: names[:2], keys: streamKeys(t, s.Stream)}
			break
		}
	}
	if p.src.Stream == "" {
		t.Skipf("no stream in the target's grant declares three or more fields to project and holds a record")
	}
	p.judge(t, t, true)
	if t.Target.Has(CapFixture) {
		p.judge(t, probe.OnRSIgnoringProjection(t), false)
	}
}}

// probeRecords reports whether a source holds a record in the fixture.
func probeRecords(t *T, s probe.Source) bool {
	return slices.ContainsFunc(probe.FixtureRecords(t), func(r probe.FixtureRecord) bool {
		return r.Ref.Stream == s.Stream && (s.Conn == "" || r.Ref.Conn == s.Conn)
	})
}

// streamKeys are a stream's declared primary key fields in the fixture.
func streamKeys(t *T, stream string) []string {
	for _, s := range t.RS().Fixture().StreamsNamed(stream) {
		if s.PrimaryKey != "" {
			return []string{s.PrimaryKey}
		}
	}
	return nil
}

// A projection is the read S031 judges: fields of one source, whose
// declared primary key may stay beside them.
type projection struct {
	src          probe.Source
	fields, keys []string
}

// judge judges the projected read on one view of the target: its own RS
// (required), or one that ignores fields (recommended).
func (p projection) judge(t, on *T, required bool) {
	src, fields, keys := p.src, p.fields, p.keys
	c := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.Fields: fields, dialect.Limit: 5}))
	note := ""
	if !required {
		note = ignoringRSRule
	}
	if c.IsError() {
		t.Clause(1, func() {
			if required {
				t.Works(c, probe.GrantNames(t), "a projected read must succeed")
			} else {
				t.Advise(false, "%sa projected read must succeed: %s", note, c.Describe())
			}
		})
		return
	}
	refs, extra := p.unrequested(on, c)
	docs := conformance.Answers(conformance.Shown("the query_records documentation", queryRecordsDocs(on.Target)), conformance.Shown("the instructions", on.Target.Init.Instructions))
	// The projection holds past the first page: the next page, reached
	// with the cursor its text shows and the same fields.
	var next *Call
	var nextExtra map[string]string
	if len(refs) > 0 {
		args := src.Roles(dialect.Args{dialect.Fields: fields, dialect.Limit: 5})
		if _, n := probe.VisibleCursor(on, c, args, refs, "", func(r *Call) []probe.RecordRef { return probe.RecordsShown(on, r, src.Stream) }); n != nil {
			next = n
			_, nextExtra = p.unrequested(on, n)
		}
	}
	// The projection holds on a changes read as on a listing.
	var changes *Call
	var changesExtra map[string]string
	if required && on.HasRole("query_records", dialect.ChangesSince) {
		if ch := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.Fields: fields, dialect.Limit: 5, dialect.ChangesSince: "beginning"})); !ch.IsError() {
			changes = ch
			_, changesExtra = p.unrequested(on, ch)
		}
	}
	t.Clause(1, func() {
		for _, k := range slices.Sorted(maps.Keys(changesExtra)) {
			t.ShowsNone(changes, changesExtra[k], "a changes read of records projected to %v holds payload field %s, neither requested nor the stream's identity field (primary key %v)", fields, k, keys)
		}
		if len(refs) == 0 {
			if required {
				t.Inconclusive("the projected read of %s shows no record of the grant by value: %s", src.Stream, c.Describe())
			}
			return
		}
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			if required {
				t.ShowsNone(c, extra[k], "records projected to %v hold payload field %s, neither requested nor the stream's identity field (primary key %v)", fields, k, keys)
			} else {
				t.Advise(false, "%srecords projected to %v hold payload field %s (%q)", note, fields, k, clipText(extra[k], 60))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(nextExtra)) {
			if required {
				t.ShowsNone(next, nextExtra[k], "the next page of records projected to %v (its cursor from the first page's text, the same fields) holds payload field %s, neither requested nor the stream's identity field (primary key %v)", fields, k, keys)
			} else {
				t.Advise(false, "%sthe next page of records projected to %v holds payload field %s (%q)", note, fields, k, clipText(nextExtra[k], 60))
			}
		}
		if len(extra) == 0 && len(nextExtra) == 0 {
			t.Held()
		}
	})
	t.Clause(2, func() {
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			if required {
				t.Shows(docs, read.Text(k), "records projected to %v keep field %s beside the requested fields; it must be declared as an identity or operational field in the schema or the documentation", fields, k)
			} else {
				t.Advise(read.Find(docs.Strings(), read.Text(k)).Exact, "%srecords projected to %v keep field %s, declared nowhere", note, fields, k)
			}
		}
		if len(extra) == 0 {
			t.Held()
		}
	})
}

// unrequested are the records a projected read c shows, and its
// unrequested, undeclared fields whose fixture values it shows, each with
// the value's head.
func (p projection) unrequested(on *T, c *Call) ([]probe.RecordRef, map[string]string) {
	refs := probe.RecordsShown(on, c, p.src.Stream)
	extra := map[string]string{}
	var requested []string // what the requested fields of the shown records hold
	for _, ref := range refs {
		rec, _ := probe.FindRecord(on, ref)
		for _, f := range p.fields {
			requested = append(requested, probe.String(rec.Data[f]))
		}
	}
	for _, ref := range refs {
		rec, _ := probe.FindRecord(on, ref)
		for k, v := range rec.Data {
			sv, ok := v.(string)
			if !ok || len(sv) < 8 || slices.Contains(p.fields, k) || slices.Contains(p.keys, k) || sv == ref.ID || probe.LooksBinary(sv) {
				continue
			}
			head := valueHead(sv)
			if slices.ContainsFunc(requested, func(r string) bool { return strings.Contains(r, head) }) {
				continue // a requested field holds it too
			}
			if read.Find(c.Strings(), read.Text(head)).Seen() && extra[k] == "" {
				extra[k] = head
			}
		}
	}
	return refs, extra
}

// queryRecordsDocs is everything query_records says about itself.
func queryRecordsDocs(tgt *Target) string { return probe.ToolDocs(tgt, "query_records") }
