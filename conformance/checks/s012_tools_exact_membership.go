package checks

import (
	. "github.com/onsi/gomega"
)

var s012 = &Check{ID: "S012", Slug: "tools-exact-membership", Mode: ModeBB, Run: func(t *T) {
	expectNoForbiddenTools(t)
	t.Expect(toolNames(t.Target)).To(ConsistOf(t.Settings.Surface.Tools), "tools/list must hold exactly the normal read tools (scenarios/surface.json)")
}}

func expectNoForbiddenTools(t *T) {
	var bad []string
	for _, name := range toolNames(t.Target) {
		if why, ok := t.Settings.Surface.Forbidden(name); ok {
			bad = append(bad, name+" ("+why+")")
		}
	}
	t.Expect(bad).To(BeEmpty(), "no event-subscription, blob, stream-listing or developer tool may appear")
}
