package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// U15: "no result carries the bearer, in content[] text or in
// structuredContent", judged over a call of every read tool, the errors
// the RS answers for what the grant lacks, and (on a fixture RS) calls the
// RS refuses with 401.
var u15 = &Check{ID: "U15", Slug: "bearer-never-echoed", Mode: ModeBB, Run: func(t *T) {
	token := t.Target.BearerToken()
	if token == "" {
		t.Skipf("mcpcheck holds no bearer for this target: nothing it could echo")
	}
	calls := append(probe.SampleCalls(t), probe.RefusedCalls(t)...)
	if t.Target.Has(CapFixture) {
		ft := t.On(t.ForkSame())
		ft.RS().InjectFault("/v1/", fakers.Fault{Status: 401})
		calls = append(calls, probe.RefusedCalls(ft)...)
		calls = append(calls, probe.SampleCalls(ft)...)
	}
	for _, c := range calls {
		t.Clause(1, func() {
			t.Assert(!strings.Contains(c.Text(), token) && !strings.Contains(string(c.Raw), token) && !strings.Contains(probe.CompactJSON(c.Structured()), token),
				"%s's result carries the bearer it was called with", c.Tool)
		})
	}
}}
