package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// S004 and S016 are the seeds' regression tests of the footprint: they
// restate, as the harness's duties, properties S001, S002 and S012 also
// hold, so one fault there fails both (the mutants name both).
var s004 = &Check{ID: "S004", Slug: "footprint-budget", Mode: ModeBB, Run: func(t *T) {
	t.Clause(1, func() { expectWithinBudget(t) })
	t.Clause(2, func() {
		t.Assert(strings.TrimSpace(t.Target.Init.Instructions) != "", "the footprint test must find server instructions present")
	})
	t.Clause(3, func() {
		expectNoRepeatedConnectionGuidance(t)
		expectNoRepeatedGuidance(t)
	})
}}

// Seed 001: "the serialized payload SHALL stay below the configured
// budget" and "the test SHALL fail if an event-subscription management
// tool or developer-only tool appears". Exact membership is S012's.
var s016 = &Check{ID: "S016", Slug: "normal-footprint-membership-budget", Mode: ModeBB, Run: func(t *T) {
	t.Clause(1, func() { expectWithinBudget(t) })
	t.Clause(2, func() { expectNoForbiddenTools(t) })
}}

func expectWithinBudget(t *T) {
	n := len(conformance.ToolsArrayBytes(t.Target.ToolsRaw))
	t.Record("tools/list bytes", n)
	t.Record("budget bytes", t.Settings.BudgetBytes)
	t.Assert(n < t.Settings.BudgetBytes, "the serialized tools/list payload (%d bytes) must stay below the byte budget (%d)", n, t.Settings.BudgetBytes)
}
