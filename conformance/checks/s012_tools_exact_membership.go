package checks

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S012: each read tool of scenarios/surface.json missing from tools/list
// is absent by value, and each tool beyond them present.
var s012 = &Check{ID: "S012", Slug: "tools-exact-membership", Mode: ModeBB, Run: func(t *T) {
	names := probe.ToolNames(t.Target)
	list := toolsListEvidence(t)
	t.Clause(1, func() {
		for _, want := range t.Settings.Surface.Tools {
			t.AssertWith(slices.Contains(names, want), func() (conformance.Witness, error) {
				return conformance.Absent(read.Text(want), list)
			}, "tools/list lacks the read tool %s of scenarios/surface.json", want)
		}
		for _, got := range names {
			t.AssertWith(slices.Contains(t.Settings.Surface.Tools, got), func() (conformance.Witness, error) {
				return conformance.Present(got, list)
			}, "tools/list has a tool beyond scenarios/surface.json: %s", got)
		}
	})
	t.Clause(2, func() { expectNoForbiddenTools(t) })
}}

// toolsListEvidence is the names of the tools tools/list declares.
func toolsListEvidence(t *T) conformance.Evidence {
	return conformance.Shown("the tool names of tools/list", strings.Join(probe.ToolNames(t.Target), "\n"))
}

func expectNoForbiddenTools(t *T) {
	list := toolsListEvidence(t)
	for _, name := range probe.ToolNames(t.Target) {
		why, bad := t.Settings.Surface.Forbidden(name)
		t.AssertWith(!bad, func() (conformance.Witness, error) { return conformance.Present(name, list) },
			"no event-subscription, blob, stream-listing or developer tool may appear: %s (%s)", name, why)
	}
}
