package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	readOnlyRe = regexp.MustCompile(`(?i)\bread[- ]only\b`)
	mutatingRe = regexp.MustCompile(`(?i)\b(mutating|writes?|creates?|deletes?|updates?)\b`)
	endpointRe = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+/v1/\S+|/v1/[a-z_{}/:-]+`)
	pointerRe  = regexp.MustCompile(`(?i)\b(schema|instructions)\b`)
)

// Every tool is judged, and every missing part of each description is
// reported: a failure names each tool and each thing it lacks.
var s003 = &Check{ID: "S003", Slug: "descriptions-routable", Mode: ModeBB, Run: func(t *T) {
	for _, tool := range t.Target.Tools {
		d := tool.Description
		t.Clause(1, func() {
			t.Assert(len(strings.Fields(d)) >= 4, "tool %s: the description must state the action it performs: %q", tool.Name, d)
			t.Assert(readOnlyRe.MatchString(d) || mutatingRe.MatchString(d), "tool %s: the description must say whether it is read-only or mutating: %q", tool.Name, d)
			t.Assert(endpointRe.MatchString(d), "tool %s: the description must name the RS endpoint or capability it maps to (e.g. GET /v1/...): %q", tool.Name, d)
			if readOnlyRe.MatchString(d) && tool.Annotations != nil {
				t.Assert(tool.Annotations.ReadOnlyHint, "tool %s: says read-only but readOnlyHint is false", tool.Name)
			}
		})
		t.Clause(2, func() {
			t.Expect(pointerRe.MatchString(d)).To(BeTrue(), "tool %s: the description must point to the schema tool or the instructions for cross-cutting details: %q", tool.Name, d)
		})
	}
}}
