package conformance

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var sourceMixRe = regexp.MustCompile(`(?i)source[_ ]mix`)

var s025 = &Check{ID: "S025", Slug: "search-source-mix", Mode: ModeBBD, Run: func(t *T) {
	term, c, ok := fanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	text := c.Text()
	loc := sourceMixRe.FindStringIndex(text)
	t.Expect(loc).NotTo(BeNil(), "hits for %q come from several connections, so the text must show a compact source mix:\n%s", term, clipText(text, 600))
	for conn := range connectionsOf(hits(c)) {
		t.Expect(containsToken(text[loc[0]:], conn)).To(BeTrue(), "the source mix must name connection %s", conn)
	}
	if hs := hits(c); len(hs) > 0 {
		first := strings.Index(text, hs[0].ID)
		t.Expect(first).To(And(BeNumerically(">=", 0), BeNumerically("<", loc[0])), "the first fetch handle must come before the source mix and other verbose metadata")
	}
}}
