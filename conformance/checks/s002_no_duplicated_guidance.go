package checks

import "github.com/pdpp-connect/mcpcheck/conformance/probe"

// Seed 000: "repeated connection_id recovery guidance SHALL NOT appear
// verbatim across every tool that accepts connection_id", and
// cross-tool guidance is "not repeated verbatim across many tool schemas".
// The seed fixes neither "long" nor "many": mcpcheck's numbers
// (longSentence, repeatedAcrossMin) are recommended; a connection_id
// sentence on every tool that accepts connection_id breaks the seed's own
// words and is required.
var s002 = &Check{ID: "S002", Slug: "tools-list-no-duplicated-guidance", Mode: ModeBB,
	Manual: map[int]string{1: "tool membership is S012's property (the scenario's note; catalog C2), judged once there; proxy: S012"},
	Run: func(t *T) {
		t.Clause(2, func() { probe.ExpectNoRepeatedConnectionGuidance(t) })
		t.Clause(3, func() { probe.ExpectNoRepeatedGuidance(t) })
	}}
