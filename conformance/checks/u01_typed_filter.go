package checks

import (
	"net/url"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// A filterable stream has an exact-match field and a range field.
type filterable struct {
	src          source
	eq, eqType   string
	rng, rngType string
	op           string
}

// findFilterable reads field capabilities from scoped schemas (a flag
// string or a capability object alike) until a row shows an exact field
// and a range field.
func findFilterable(t *T) (filterable, bool) {
	_, index := schemaIndex(t)
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		_, rows := scopedSchema(t, s.roles(nil))
		for _, r := range rows {
			f := filterable{src: s}
			for _, name := range fieldNames(r) {
				fc := capOf(r.FieldCaps[name])
				if fc.Exact && f.eq == "" && name != "id" {
					f.eq, f.eqType = name, fc.Type
				}
				if len(fc.Ops) > 0 && f.rng == "" {
					f.rng, f.rngType, f.op = name, fc.Type, fc.Ops[0]
				}
			}
			if f.eq != "" && f.rng != "" {
				return f, true
			}
		}
	}
	return filterable{}, false
}

// U01: an object filter of exact values and ranges reaches the RS as
// filter[field]=value and filter[field][op]=value (U01.1); a string, an
// empty object or a bracket-syntax key is refused, naming filter, before
// any RS call (U01.2) — whichever channel types the refusal: a tool error
// object, a JSON-RPC -32602 error, or an SDK's isError text.
var u01 = &Check{ID: "U01", Slug: "typed-filter", Mode: ModeBBD, Tools: []string{"query_records", "aggregate"}, Run: func(t *T) {
	f, ok := findFilterable(t)
	if !ok {
		t.Skipf("no stream in the target's grant shows both an exact and a range filter field")
	}
	on := t.Private()
	logged := on != t
	exact, rng := sampleValue(f.eqType), map[string]any{f.op: sampleValue(f.rngType)}
	filters := []map[string]any{{f.eq: exact, f.rng: rng}}
	if f.eq == f.rng { // one field with both: one filter key each call
		filters = []map[string]any{{f.eq: exact}, {f.rng: rng}}
	}
	path := "/v1/streams/" + url.PathEscape(f.src.stream) + "/records"
	sent := url.Values{}
	for _, filter := range filters {
		before := rsRequestCount(on, path)
		c := on.CallRoles("query_records", f.src.roles(dialect.Args{dialect.Filter: filter, dialect.Limit: 1}))
		t.Clause(1, func() {
			if !logged {
				t.Skipf("what the RS receives shows only in its request log: %s", CapFixture.SkipReason())
			}
			reqs := on.RS().RequestsTo(path)[before:]
			if !t.Assert(len(reqs) > 0, "query_records with the object filter %s never reached the RS records endpoint: %s", compactJSONOf(filter), c.Describe()) {
				return
			}
			for _, r := range reqs {
				q, _ := url.ParseQuery(r.RawQuery)
				t.Assert(!q.Has("filter"), "the RS must never receive a bare filter= (GET %s?%s)", path, r.RawQuery)
				for k, v := range q {
					sent[k] = v
				}
			}
		})
	}
	t.Clause(1, func() {
		if !logged {
			t.Skipf("what the RS receives shows only in its request log: %s", CapFixture.SkipReason())
		}
		t.Assert(sent.Has("filter["+f.eq+"]"), "the RS must receive filter[%s]=value: %s", f.eq, sent.Encode())
		t.Assert(sent.Has("filter["+f.rng+"]["+f.op+"]"), "the RS must receive filter[%s][%s]=value: %s", f.rng, f.op, sent.Encode())
	})
	for _, bad := range []struct {
		what  string
		value any
	}{
		{"a query-string filter", "filter[" + f.eq + "]=x"},
		{"an empty object", map[string]any{}},
		{"a bracket-syntax key", map[string]any{f.eq + "[gte]": "x"}},
	} {
		for _, tool := range []string{"query_records", "aggregate"} {
			if !serves(on.Target, tool) {
				continue
			}
			args := f.src.roles(dialect.Args{dialect.Filter: bad.value})
			if tool == "aggregate" {
				args[dialect.Metric] = "count"
			}
			before := rsRequestCount(on, "/v1/streams/")
			r := on.CallRoles(tool, args)
			t.Clause(2, func() {
				if logged {
					t.Assert(rsRequestCount(on, "/v1/streams/") == before, "%s: %s reached the RS; it must be refused before any RS call", tool, bad.what)
				}
				if t.Assert(r.IsError(), "%s: %s must be rejected: %s", tool, bad.what, r.Describe()) {
					t.Assert(typedRejection(r, "filter"), "%s: the rejection of %s must be typed and name the filter argument: %s", tool, bad.what, r.Describe())
				}
			})
		}
	}
}}
