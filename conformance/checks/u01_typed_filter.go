package checks

import (
	"net/url"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// A filterable stream has an exact-match field and a range field.
type filterable struct {
	src          probe.Source
	eq, eqType   string
	rng, rngType string
	op           string
}

// findFilterable reads field capabilities from scoped schemas (a flag
// string or a capability object alike) until a row shows an exact field
// and a range field. When none does, absent is how many streams were read
// in full, every field's capabilities understood and none filterable (0:
// some field is filterable, or one may exist unseen).
func findFilterable(t *T) (f filterable, ok bool, absent int) {
	index := probe.Grant(t)
	all := probe.Sources(index)
	seenAll := len(all) > 0 && len(all) <= probe.MaxStreamProbes
	for i, s := range all {
		if i == probe.MaxStreamProbes {
			break
		}
		// The fixture RS's own rows first: the truth, in its notation;
		// else what the target's schema shows.
		rows := probe.TruthRows(t, s.Stream, s.Conn, nil)
		if len(rows) == 0 {
			_, rows = probe.ScopedSchema(t, s.Roles(nil))
		}
		seenAll = seenAll && len(rows) > 0
		for _, r := range rows {
			f := filterable{src: s}
			seenAll = seenAll && len(r.FieldCaps) > 0
			for _, name := range probe.FieldNames(r) {
				seenAll = seenAll && capUnderstood(r.FieldCaps[name])
				fc := probe.CapOf(r.FieldCaps[name])
				seenAll = seenAll && !fc.Exact && len(fc.Ops) == 0 // one filterable field: not absent
				if fc.Exact && f.eq == "" && name != "id" {
					f.eq, f.eqType = name, fc.Type
				}
				if len(fc.Ops) > 0 && f.rng == "" {
					f.rng, f.rngType, f.op = name, fc.Type, fc.Ops[0]
				}
			}
			if f.eq != "" && f.rng != "" {
				return f, true, 0
			}
		}
	}
	if seenAll {
		return filterable{}, false, len(all)
	}
	return filterable{}, false, 0
}

// flagKeys are the compact flag keys whose meaning mcpcheck knows, and
// "declared", the RS's mark of a field with no capability beyond its
// declaration.
var flagKeys = []string{"t", "role", "eq", "r", "lex", "sem", "a", "g", "declared"}

// capUnderstood reports a field capability mcpcheck can read in full: a
// capability object stating both filters, or flags all of known keys.
func capUnderstood(v any) bool {
	if m, ok := v.(map[string]any); ok {
		return m["exact_filter"] != nil && m["range_filter"] != nil
	}
	toks := probe.FlagTokens(v)
	for _, tok := range toks {
		if k, _, _ := strings.Cut(tok, "="); !slices.Contains(flagKeys, k) {
			return false
		}
	}
	return len(toks) > 0
}

// U01: an object filter of exact values and ranges reaches the RS as
// filter[field]=value and filter[field][op]=value (U01.1); a string, an
// empty object or a bracket-syntax key is refused, naming filter, before
// any RS call (U01.2) — whichever channel types the refusal: a tool error
// object, a JSON-RPC -32602 error, or an SDK's isError text.
var u01 = &Check{ID: "U01", Slug: "typed-filter", Mode: ModeBBD, Tools: []string{"query_records", "aggregate"}, Run: func(t *T) {
	f, ok, absent := findFilterable(t)
	switch {
	case ok:
	case absent > 0 && !t.Target.Has(CapFixture):
		t.NotApplicable("no field of the target's grant is filterable, so no filter can be encoded: decided from the target's schema, whose %d streams flag no exact or range filter on any field (mcpcheck controls no RS here)", absent)
	default:
		t.Skipf("no stream in the target's grant shows both an exact and a range filter field (read up to %d streams' field capabilities): "+
			"a stream whose schema flags an exact and a range filter, as mcpcheck's fixture RS serves, would let it run", probe.MaxStreamProbes)
	}
	on := t.Private()
	logged := on != t
	exact, rng := probe.SampleValue(f.eqType), map[string]any{f.op: probe.SampleValue(f.rngType)}
	filters := []map[string]any{{f.eq: exact, f.rng: rng}}
	if f.eq == f.rng { // one field with both: one filter key each call
		filters = []map[string]any{{f.eq: exact}, {f.rng: rng}}
	}
	path := "/v1/streams/" + url.PathEscape(f.src.Stream) + "/records"
	sent := url.Values{}
	for _, filter := range filters {
		before := probe.RSRequestCount(on, path)
		c := on.CallRoles("query_records", f.src.Roles(dialect.Args{dialect.Filter: filter, dialect.Limit: 1}))
		t.Clause(1, func() {
			if !logged {
				t.SkipFor(CapFixture, "what the RS receives shows only in its request log")
			}
			reqs := on.RS().RequestsTo(path)[before:]
			if !t.Assert(len(reqs) > 0, "query_records with the object filter %s never reached the RS records endpoint: %s", probe.CompactJSON(filter), c.Describe()) {
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
			t.SkipFor(CapFixture, "what the RS receives shows only in its request log")
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
			if !probe.Serves(on.Target, tool) {
				continue
			}
			args := f.src.Roles(dialect.Args{dialect.Filter: bad.value})
			if tool == "aggregate" {
				args[dialect.Metric] = "count"
			}
			before := probe.RSRequestCount(on, "/v1/streams/")
			r := on.CallRoles(tool, args)
			t.Clause(2, func() {
				if logged {
					t.Assert(probe.RSRequestCount(on, "/v1/streams/") == before, "%s: %s reached the RS; it must be refused before any RS call", tool, bad.what)
				}
				if t.Assert(r.IsError(), "%s: %s must be rejected: %s", tool, bad.what, r.Describe()) {
					t.Assert(probe.TypedRejection(r, "filter"), "%s: the rejection of %s must be typed and name the filter argument: %s", tool, bad.what, r.Describe())
				}
			})
		}
	}
}}
