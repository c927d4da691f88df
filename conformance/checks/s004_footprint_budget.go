package checks

import (
	"fmt"

	"strings"

	. "github.com/onsi/gomega"

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
		t.AssertWith(strings.TrimSpace(t.Target.Init.Instructions) != "", func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a non-empty instructions string", In: []string{"the initialize result"}}, nil
		}, "the footprint test must find server instructions present")
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
	if !t.Settings.BudgetConfigured {
		t.Threshold().Expect(n).To(BeNumerically("<", t.Settings.BudgetBytes),
			"the serialized tools/list payload (%d bytes) should stay below mcpcheck's default byte budget (%d, recommended; --budget sets the budget configured for this adapter)", n, t.Settings.BudgetBytes)
		return
	}
	t.AssertWith(n < t.Settings.BudgetBytes, func() (conformance.Witness, error) {
		return conformance.Witness{Kind: conformance.WitnessPresent, Fact: fmt.Sprintf("%d bytes", n), In: []string{"the tools array of tools/list as received"}}, nil
	}, "the serialized tools/list payload (%d bytes) must stay below the configured byte budget (%d)", n, t.Settings.BudgetBytes)
}
