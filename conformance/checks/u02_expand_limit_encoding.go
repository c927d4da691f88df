package checks

import (
	"net/url"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// U02: expand with expand_limit {relation: N} reaches the RS as
// expand_limit[relation]=N beside the relation (U02.1); an empty object, a
// non-object or a bracket-syntax key is refused with a typed error (a code,
// a JSON-RPC -32602, or a text naming expand_limit) before any RS call
// (U02.2).
var u02 = &Check{ID: "U02", Slug: "expand-limit-encoding", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	// The fixture RS's relations first, else what the target's schema shows.
	found := probe.FixtureExpand(t, true)
	if !found.Found && found.Absent == 0 {
		found = probe.FindExpand(t, true)
	}
	et := found.Target
	if !found.Found && found.Absent == 0 {
		t.Skipf("no stream the target's schema showed advertises expand_capabilities, but not every stream's could be read (over %d streams, or another notation): a target whose schema lists them would let it run", probe.MaxExpandProbes)
	}
	if !found.Found {
		t.NotApplicable("no stream in the target's grant advertises expand_capabilities, so no expand_limit can be encoded: decided from %s (%d streams, each listing none usable)", found.AbsentFrom(), found.Absent)
	}
	on := t.Private()
	logged := on != t
	path := "/v1/streams/" + url.PathEscape(et.Stream) + "/records"
	before := probe.RSRequestCount(on, path)
	c := on.CallRoles("query_records", et.Roles(dialect.Args{dialect.ExpandLimit: map[string]any{et.Rel: 3}}))
	t.Clause(1, func() {
		if !logged {
			t.SkipFor(CapFixture, "what the RS receives shows only in its request log")
		}
		reqs := on.RS().RequestsTo(path)[before:]
		if !t.Assert(len(reqs) > 0, "query_records with expand and expand_limit {%s: 3} never reached the RS records endpoint: %s", et.Rel, c.Describe()) {
			return
		}
		q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
		t.Assert(q.Get("expand_limit["+et.Rel+"]") == "3", "the RS must receive expand_limit[%s]=3: %s", et.Rel, reqs[len(reqs)-1].RawQuery)
		t.Assert(slices.ContainsFunc(append(q["expand"], q["expand[]"]...), func(v string) bool { return strings.EqualFold(v, et.Rel) }), "the RS must receive the relation %s beside its expand_limit: %s", et.Rel, reqs[len(reqs)-1].RawQuery)
		t.Assert(!q.Has("expand_limit"), "the RS must never receive a bare expand_limit=: %s", reqs[len(reqs)-1].RawQuery)
	})
	for _, bad := range []struct {
		what  string
		value any
	}{
		{"an empty object", map[string]any{}},
		{"a string", "expand_limit[" + et.Rel + "]=3"},
		{"a bracket-syntax key", map[string]any{et.Rel + "[x]": 3}},
	} {
		before := probe.RSRequestCount(on, "/v1/streams/")
		r := on.CallRoles("query_records", et.Roles(dialect.Args{dialect.ExpandLimit: bad.value}))
		t.Clause(2, func() {
			if logged {
				t.Assert(probe.RSRequestCount(on, "/v1/streams/") == before, "expand_limit as %s reached the RS; it must be refused before any RS call", bad.what)
			}
			if t.Assert(r.IsError(), "expand_limit as %s must be rejected: %s", bad.what, r.Describe()) {
				t.Assert(probe.TypedRejection(r, "expand_limit"), "the rejection of expand_limit as %s must be typed (a code, or naming expand_limit): %s", bad.what, r.Describe())
			}
		})
	}
}}
