package checks

import (
	. "github.com/onsi/gomega"
)

var u03 = &Check{ID: "U03", Slug: "strict-inputs", Mode: ModeBB, Run: func(t *T) {
	_, index := schemaIndex(t)
	if len(index) == 0 {
		t.Skipf("the target's grant has no streams")
	}
	src := sources(index)[0]
	on := t
	if t.Target.Has(CapFixture) {
		on = t.On(t.ForkSame())
		on.RS().ResetRequests()
	}
	for arg, extra := range map[string]map[string]any{
		"mcpcheck_bogus": {"mcpcheck_bogus": 1},
		"limit":          {"limit": 101},
	} {
		c := on.Call("query_records", src.args(extra))
		t.Expect(c.IsError()).To(BeTrue(), "query_records must reject %v: %s", extra, c.Describe())
		t.Expect(c.Text()).To(ContainSubstring(arg), "the rejection must name the argument %s: %s", arg, c.Describe())
	}
	if on != t {
		t.Expect(len(on.RS().RequestsTo("/v1/streams/"))).To(BeZero(), "rejected arguments must never reach the RS")
	}
}}
