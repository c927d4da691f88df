package checks

import (
	"regexp"
	"strings"
)

var (
	readOnlyRe = regexp.MustCompile(`(?i)\bread[- ]?only\b|\b(does not|doesn't|never|cannot) (modify|modifies|change|changes|write|writes|mutate|mutates)\b|\bno side[- ]effects\b`)
	mutatingRe = regexp.MustCompile(`(?i)\b(mutating|writes?|creates?|deletes?|updates?)\b`)
	// The RS endpoint ("GET /v1/search", "/v1/schema") or capability it
	// maps to ("the RS search capability").
	endpointRe   = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+/v1/\S+|/v1/[a-z_{}/:-]+`)
	capabilityRe = regexp.MustCompile(`(?i)\b(RS|resource[- ]server|PDPP)\b[^.]{0,40}\b(endpoint|capability|API|route)\b`)
	pointerRe    = regexp.MustCompile(`(?i)\b(schema|instructions)\b`)
)

// Seed 000: each description "SHALL still state the action the tool
// performs, whether it is read-only or mutating, and the primary RS
// endpoint or capability it maps to", and "SHALL point to server
// instructions or a discovery tool for cross-cutting details". Every tool
// is judged, and every missing part of each description is reported.
var s003 = &Check{ID: "S003", Slug: "descriptions-routable", Mode: ModeBB, Run: func(t *T) {
	for _, tool := range t.Target.Tools {
		d := tool.Description
		t.Clause(1, func() {
			t.Assert(len(strings.Fields(d)) >= 4, "tool %s: the description must state the action it performs: %q", tool.Name, d)
			t.Assert(readOnlyRe.MatchString(d) || mutatingRe.MatchString(d), "tool %s: the description must say whether it is read-only or mutating: %q", tool.Name, d)
			t.Assert(endpointRe.MatchString(d) || capabilityRe.MatchString(d), "tool %s: the description must name the RS endpoint or capability it maps to (e.g. GET /v1/...): %q", tool.Name, d)
		})
		t.Clause(2, func() {
			t.Assert(pointerRe.MatchString(d), "tool %s: the description must point to the schema tool or the instructions for cross-cutting details: %q", tool.Name, d)
		})
	}
}}
