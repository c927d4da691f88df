package checks

import (
	"regexp"

	. "github.com/onsi/gomega"
)

var s001 = &Check{ID: "S001", Slug: "init-instructions", Mode: ModeBB, Run: func(t *T) {
	instr := t.Target.Init.Instructions
	t.Record("instructions chars", len([]rune(instr)))
	t.Expect(instr).NotTo(BeEmpty(), "initialize must carry server instructions")
	head := firstRunes(instr, t.Settings.Surface.InstructionsWindow)
	for _, topic := range instructionTopics {
		t.Expect(topic.re.MatchString(head)).To(BeTrue(),
			"the first %d characters of the instructions must cover %s (pattern %s); they read:\n%s",
			t.Settings.Surface.InstructionsWindow, topic.name, topic.re, head)
	}
	t.Expect(ownerAsks(instr)).To(BeEmpty(), "the instructions must not ask the client to use owner or control-plane bearers")
}}

var instructionTopics = []struct {
	name string
	re   *regexp.Regexp
}{
	{"schema-first discovery", regexp.MustCompile(`\bschema\b`)},
	{"connection_id disambiguation", regexp.MustCompile(`\bconnection_id\b`)},
	{"typed filters", regexp.MustCompile(`(?i)\btyped\b[^.]{0,60}\bfilters?\b|\bfilters?\b[^.]{0,60}\btyped\b`)},
	{"bounded paging or narrowing", regexp.MustCompile(`(?i)\b(page|paging|pages|cursor|narrow|limit)\b`)},
}

var (
	credentialRe = regexp.MustCompile(`(?i)\b(owner|control[- ]plane|admin(istrator)?)\b[^.;]{0,40}\b(token|bearer|credential|cookie|key)s?\b`)
	negationRe   = regexp.MustCompile(`(?i)\b(not|never|no|don't|do not|without|refuse[sd]?|reject(s|ed)?|avoid|must not|cannot|isn't|aren't)\b`)
	askRe        = regexp.MustCompile(`(?i)\b(use|pass|set|provide|supply|send|paste|export|enter|add|configure|give)\b`)
)

// ownerAsks returns sentences that ask for owner credentials. A sentence
// that only mentions them under a negation ("never uses owner tokens") is
// fine: upstream's own refusal straddles character 512 (catalog C7).
func ownerAsks(s string) []string {
	var asks []string
	for _, sent := range sentences(s) {
		if credentialRe.MatchString(sent) && askRe.MatchString(sent) && !negationRe.MatchString(sent) {
			asks = append(asks, sent)
		}
	}
	return asks
}
