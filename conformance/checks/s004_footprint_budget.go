package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S004 and S016 (s016_normal_footprint_membership_budget.go) are the
// seeds' regression tests of the footprint: they restate, as the harness's
// duties, properties S001, S002 and S012 also hold, so one fault there
// fails both (the mutants name both).
var s004 = &Check{ID: "S004", Slug: "footprint-budget", Mode: ModeBB, Run: func(t *T) {
	t.Clause(1, func() { expectWithinBudget(t) })
	t.Clause(2, func() {
		t.Assert(strings.TrimSpace(t.Target.Init.Instructions) != "", "the footprint test must find server instructions present")
	})
	t.Clause(3, func() {
		probe.ExpectNoRepeatedConnectionGuidance(t)
		probe.ExpectNoRepeatedGuidance(t)
	})
}}

func expectWithinBudget(t *T) {
	n := len(conformance.ToolsArrayBytes(t.Target.ToolsRaw))
	t.Record("tools/list bytes", n)
	t.Record("budget bytes", t.Settings.BudgetBytes)
	t.Assert(n < t.Settings.BudgetBytes, "the serialized tools/list payload (%d bytes) must stay below the byte budget (%d)", n, t.Settings.BudgetBytes)
}
