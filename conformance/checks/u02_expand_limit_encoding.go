package checks

import (
	"net/url"

	. "github.com/onsi/gomega"
)

var u02 = &Check{ID: "U02", Slug: "expand-limit-encoding", Mode: ModeBBD, Run: func(t *T) {
	et, ok := findExpand(t, true)
	if !ok {
		t.Skipf("no stream in the target's grant advertises expand_capabilities")
	}
	on := t.Private()
	c := on.Call("query_records", et.args(map[string]any{"expand_limit": map[string]any{et.rel: 3}}))
	t.Expect(c.IsError()).To(BeFalse(), "expand_limit as {relation: N} must be accepted: %s", c.Describe())
	if on != t {
		reqs := expandCalls(on, et)
		t.Expect(reqs).NotTo(BeEmpty(), "the RS records endpoint must receive the expand")
		q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
		t.Expect(q.Get("expand_limit["+et.rel+"]")).To(Equal("3"), "the RS must receive expand_limit[%s]=3: %s", et.rel, reqs[len(reqs)-1].RawQuery)
		t.Expect(q.Has("expand_limit")).To(BeFalse(), "the RS must never receive a bare expand_limit=")
		on.RS().ResetRequests()
	}
	for what, bad := range map[string]any{
		"an empty object":      map[string]any{},
		"a string":             "expand_limit[" + et.rel + "]=3",
		"a bracket-syntax key": map[string]any{et.rel + "[x]": 3},
	} {
		r := on.Call("query_records", et.args(map[string]any{"expand_limit": bad}))
		t.Expect(r.IsError()).To(BeTrue(), "expand_limit as %s must be rejected: %s", what, r.Describe())
		t.Expect(r.Text()).To(ContainSubstring("expand_limit"), "the rejection of %s must name expand_limit", what)
		t.Expect(r.ErrorCode()).NotTo(BeEmpty(), "the rejection of expand_limit as %s must be typed: %s", what, r.Describe())
	}
	if on != t {
		t.Expect(len(on.RS().RequestsTo("/v1/streams/"))).To(BeZero(), "a rejected expand_limit must never reach the RS records endpoint")
	}
}}
