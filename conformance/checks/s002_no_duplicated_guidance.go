package checks

import (
	. "github.com/onsi/gomega"
)

// Long guidance is a sentence of at least this many characters; upstream's
// short connection_id field description stays below it (catalog S002).
const (
	longSentence      = 120
	repeatedAcrossMin = 3
)

var s002 = &Check{ID: "S002", Slug: "tools-list-no-duplicated-guidance", Mode: ModeBB, Run: func(t *T) {
	rep := repeatedGuidance(toolDescriptions(t.Target), longSentence, repeatedAcrossMin)
	t.Expect(rep).To(BeEmpty(), "long cross-tool guidance (>= %d chars) must live in the instructions or one discovery tool, not repeat across %d+ tools", longSentence, repeatedAcrossMin)
	// Seed 000's event-subscription clause is superseded (C2): any
	// event-subscription guidance at all belongs to a forbidden tool, which S012 reports.
}}
