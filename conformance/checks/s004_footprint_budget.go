package checks

import (
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

var s004 = &Check{ID: "S004", Slug: "footprint-budget", Mode: ModeBB, Run: func(t *T) {
	expectWithinBudget(t)
	t.Expect(t.Target.Init.Instructions).NotTo(BeEmpty(), "the footprint test must find server instructions present")
	t.Expect(repeatedGuidance(toolDescriptions(t.Target), longSentence, repeatedAcrossMin)).To(BeEmpty(),
		"long cross-tool guidance must not be repeated across many tool schemas")
}}

var s016 = &Check{ID: "S016", Slug: "normal-footprint-membership-budget", Mode: ModeBB, Run: func(t *T) {
	expectWithinBudget(t)
	expectNoForbiddenTools(t)
	t.Expect(toolNames(t.Target)).To(ConsistOf(t.Settings.Surface.Tools), "the normal tools/list must hold exactly the expected tools")
}}

func expectWithinBudget(t *T) {
	n := len(conformance.ToolsArrayBytes(t.Target.ToolsRaw))
	t.Record("tools/list bytes", n)
	t.Record("budget bytes", t.Settings.BudgetBytes)
	t.Expect(n).To(BeNumerically("<", t.Settings.BudgetBytes), "the serialized tools/list payload must stay below the byte budget")
}
