package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Seed 000: "the first 512 characters SHALL mention schema-first
// discovery, connection_id disambiguation, typed filters, and bounded
// pagination/result narrowing", and "SHALL NOT ask the client to use owner
// or control-plane bearer tokens". Each topic is judged by meaning, in
// any common wording, and every missing one is reported.
var s001 = &Check{ID: "S001", Slug: "init-instructions", Mode: ModeBB, Run: func(t *T) {
	instr := t.Target.Init.Instructions
	t.Record("instructions chars", len([]rune(instr)))
	t.Clause(1, func() {
		t.Assert(strings.TrimSpace(instr) != "", "initialize must carry a non-empty instructions string")
	})
	t.Clause(2, func() {
		if strings.TrimSpace(instr) == "" {
			t.BlockedBy("S001", "initialize carries no instructions (S001.1)")
		}
		window := t.Settings.Surface.InstructionsWindow
		head := probe.FirstRunes(instr, window)
		for _, topic := range instructionTopics {
			t.Assert(topic.re.MatchString(head), "the first %d characters of the instructions must cover %s (pattern %s); they read:\n%s",
				window, topic.name, topic.re, head)
		}
	})
	t.Clause(3, func() {
		if strings.TrimSpace(instr) == "" {
			t.Skipf("initialize carries no instructions: nothing in them can ask for an owner bearer")
		}
		asks := ownerAsks(instr)
		t.Assert(len(asks) == 0, "the instructions must not ask the client to use owner or control-plane bearers: %q", asks)
	})
}}

// instructionTopics are the four things the head of the instructions must
// teach, each in any common wording.
var instructionTopics = []struct {
	name string
	re   *regexp.Regexp
}{
	{"schema-first discovery", regexp.MustCompile(`(?i)\bschema\b`)},
	{"connection_id disambiguation", regexp.MustCompile(`\bconnection_id\b`)},
	{"typed filters", regexp.MustCompile(`(?i)\b(typed|objects?|structured)\b[^.]{0,60}\bfilters?\b|\bfilters?\b[^.]{0,60}\b(typed|objects?|structured)\b`)},
	{"bounded paging or narrowing", regexp.MustCompile(`(?i)\b(page|pages|paging|paginat\w*|cursors?|next_cursor|narrow\w*|limit|bounded)\b`)},
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
	for _, sent := range probe.Sentences(s) {
		if credentialRe.MatchString(sent) && askRe.MatchString(sent) && !negationRe.MatchString(sent) {
			asks = append(asks, sent)
		}
	}
	return asks
}
