package probe

import (
	"regexp"
	"strings"
)

// Words and shown text: what a target's text says once its marks are
// set aside.

var wordsRe = regexp.MustCompile(`[A-Za-z0-9]+`)

// Words are the runs of letters and digits in s.
func Words(s string) []string { return wordsRe.FindAllString(s, -1) }

var markOrEllipsis = regexp.MustCompile(`</?(?:mark|em|b|strong|hl|i|u|ins|span)>|…|⋯|\.\.\.`)

// WithoutMarks is s without highlight tags and ellipses, trimmed.
func WithoutMarks(s string) string { return strings.TrimSpace(markOrEllipsis.ReplaceAllString(s, "")) }

// LineWith reports a line of text that shows every token.
func LineWith(text string, tokens ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		all := true
		for _, tok := range tokens {
			all = all && ContainsToken(line, tok)
		}
		if all {
			return true
		}
	}
	return false
}
