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

// labelRe is the label right before a value: the last run of words
// (letters, digits, _, -, spaces) ahead of the punctuation before it.
var labelRe = regexp.MustCompile("([A-Za-z][A-Za-z0-9_ \\-]{0,40}?)[\\s\"'`=:(\\[{]*$")

// LabelBefore is the label text prints value under, on value's first
// line: "next_cursor" in next_cursor="abc", "resume changes" in
// "resume changes: abc"; "" when value is not in text or has none.
func LabelBefore(text, value string) string {
	i := strings.Index(text, value)
	if i < 0 {
		return ""
	}
	line := text[:i]
	if j := strings.LastIndex(line, "\n"); j >= 0 {
		line = line[j+1:]
	}
	if m := labelRe.FindStringSubmatch(line); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}
