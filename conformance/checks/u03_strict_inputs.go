package checks

import (
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// U03: query_records "with an undeclared argument, or with limit above
// 100" is "rejected with an error that names the argument" (an SDK
// -32602 error or a typed tool error alike), and "the RS is not called".
var u03 = &Check{ID: "U03", Slug: "strict-inputs", Mode: ModeBB, Tools: []string{"query_records"}, Run: func(t *T) {
	srcs := probe.Sources(probe.Grant(t))
	if len(srcs) == 0 {
		t.Skipf("the target's grant has no streams")
	}
	on := t.Private()
	logged := on != t
	for _, bad := range []struct {
		arg   string
		value any
	}{{"mcpcheck_bogus", 1}, {on.ArgName("query_records", dialect.Limit), 101}} {
		before := 0
		if logged {
			before = len(on.RS().RequestsTo("/v1/streams/"))
		}
		// An unknown argument on purpose: sent as given, beside the
		// source's arguments in the target's names.
		args := on.ArgsFor("query_records", srcs[0].Roles(nil))
		args[bad.arg] = bad.value
		c := on.CallAsGiven("query_records", args)
		reached := logged && len(on.RS().RequestsTo("/v1/streams/")) > before
		t.Clause(1, func() {
			if t.Assert(c.IsError(), "query_records must reject %s=%v: %s", bad.arg, bad.value, c.Describe()) {
				t.Assert(probe.NamesArgument(c, bad.arg), "the rejection must name the argument %s: %s", bad.arg, c.Describe())
			}
		})
		t.Clause(2, func() {
			if !logged {
				t.SkipFor(CapFixture, "whether the RS was called shows only in its request log")
			}
			t.Assert(!reached, "query_records with %s=%v must never reach the RS records endpoint", bad.arg, bad.value)
		})
	}
}}
