package checks

import (
	"slices"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var s012 = &Check{ID: "S012", Slug: "tools-exact-membership", Mode: ModeBB, Run: func(t *T) {
	names := probe.ToolNames(t.Target)
	t.Clause(1, func() {
		var missing, extra []string
		for _, want := range t.Settings.Surface.Tools {
			if !slices.Contains(names, want) {
				missing = append(missing, want)
			}
		}
		for _, got := range names {
			if !slices.Contains(t.Settings.Surface.Tools, got) {
				extra = append(extra, got)
			}
		}
		t.Expect(missing).To(BeEmpty(), "tools/list lacks these read tools of scenarios/surface.json")
		t.Expect(extra).To(BeEmpty(), "tools/list has tools beyond scenarios/surface.json")
	})
	t.Clause(2, func() { expectNoForbiddenTools(t) })
}}

func expectNoForbiddenTools(t *T) {
	var bad []string
	for _, name := range probe.ToolNames(t.Target) {
		if why, ok := t.Settings.Surface.Forbidden(name); ok {
			bad = append(bad, name+" ("+why+")")
		}
	}
	t.Expect(bad).To(BeEmpty(), "no event-subscription, blob, stream-listing or developer tool may appear")
}
