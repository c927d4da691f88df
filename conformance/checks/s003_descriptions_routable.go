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

var s003 = &Check{ID: "S003", Slug: "descriptions-routable", Mode: ModeBB, Run: func(t *T) {
	for _, tool := range t.Target.Tools {
		d := tool.Description
		t.Expect(len(strings.Fields(d))).To(BeNumerically(">=", 4), "tool %s: the description must state the action it performs: %q", tool.Name, d)
		t.Expect(readOnlyRe.MatchString(d) || mutatingRe.MatchString(d)).To(BeTrue(), "tool %s: the description must say whether it is read-only or mutating: %q", tool.Name, d)
		t.Expect(endpointRe.MatchString(d)).To(BeTrue(), "tool %s: the description must name its RS endpoint (e.g. GET /v1/...): %q", tool.Name, d)
		t.Expect(pointerRe.MatchString(d)).To(BeTrue(), "tool %s: the description must point to the schema tool or the instructions for cross-cutting details: %q", tool.Name, d)
		if readOnlyRe.MatchString(d) && tool.Annotations != nil {
			t.Expect(tool.Annotations.ReadOnlyHint).To(BeTrue(), "tool %s: says read-only but readOnlyHint is false", tool.Name)
		}
	}
}}
