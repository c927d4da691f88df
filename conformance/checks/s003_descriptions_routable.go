package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
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

// The stems a witness looks for, loosely: a description that shows none
// of them says nothing of the kind in any wording.
var (
	readOnlyStems = facts("read-only", "readonly", "read only", "mutat", "modif", "write", "side effect", "side-effect", "creat", "delet", "updat", "chang")
	endpointStems = facts("/v1", "endpoint", "capabilit", "route", "resource server", "resource-server")
	pointerStems  = facts("schema", "instruction", "discover")
)

// facts are strings as facts.
func facts(ss ...string) []read.Fact {
	out := make([]read.Fact, len(ss))
	for i, s := range ss {
		out[i] = read.Text(s)
	}
	return out
}

// Seed 000: each description "SHALL still state the action the tool
// performs, whether it is read-only or mutating, and the primary RS
// endpoint or capability it maps to", and "SHALL point to server
// instructions or a discovery tool for cross-cutting details". Every tool
// is judged, and every missing part of each description is reported; a
// part is missing when none of the words it goes by appears at all.
var s003 = &Check{ID: "S003", Slug: "descriptions-routable", Mode: ModeBB, Run: func(t *T) {
	for _, tool := range t.Target.Tools {
		d := tool.Description
		desc := conformance.Shown("the "+tool.Name+" description", d)
		absent := func(stems []read.Fact) func() (conformance.Witness, error) {
			return func() (conformance.Witness, error) { return conformance.AbsentAll(stems, desc) }
		}
		t.Clause(1, func() {
			t.AssertWith(len(strings.Fields(d)) >= 4, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: d, In: []string{"the " + tool.Name + " description, of fewer than four words"}}, nil
			}, "tool %s: the description must state the action it performs: %q", tool.Name, d)
			t.AssertWith(readOnlyRe.MatchString(d) || mutatingRe.MatchString(d), absent(readOnlyStems),
				"tool %s: the description must say whether it is read-only or mutating: %q", tool.Name, d)
			t.AssertWith(endpointRe.MatchString(d) || capabilityRe.MatchString(d), absent(endpointStems),
				"tool %s: the description must name the RS endpoint or capability it maps to (e.g. GET /v1/...): %q", tool.Name, d)
		})
		t.Clause(2, func() {
			t.AssertWith(pointerRe.MatchString(d), absent(pointerStems),
				"tool %s: the description must point to the schema tool or the instructions for cross-cutting details: %q", tool.Name, d)
		})
	}
}}
