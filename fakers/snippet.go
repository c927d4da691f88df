package fakers

import (
	"regexp"
	"strings"
	"unicode"
)

// leadWords is the first n words of text, unhighlighted.
func leadWords(text string, n int) string {
	ws := strings.Fields(text)
	if len(ws) <= n {
		return text
	}
	return strings.Join(ws[:n], " ") + "…"
}

var literalMarkRe = regexp.MustCompile(`(?i)<(/?mark)>`)

// neutraliseMarks escapes highlight tags that the record text itself holds,
// so the only tags in a snippet are the ones markSnippet adds.
func neutraliseMarks(w string) string {
	if strings.IndexByte(w, '<') < 0 {
		return w
	}
	return literalMarkRe.ReplaceAllString(w, "&lt;$1&gt;")
}

// markSnippet wraps term occurrences in <mark> within about 48 words around
// the first match; the tags are always balanced.
func markSnippet(text, low string, terms []string) string {
	hasTerm := func(w string) bool {
		lw := strings.ToLower(w)
		for _, t := range terms {
			if strings.Contains(lw, t) {
				return true
			}
		}
		return false
	}
	const lead, width = 16, 48
	from, dropped := 0, false
	if at := firstTermAt(text, low, terms, hasTerm); at > 0 {
		// Start lead words before the matching word, without splitting the
		// whole field: a long body is searched every time.
		from = at
		for k := 0; k < lead && from > 0; k++ {
			j := from
			for j > 0 && asciiSpace(text[j-1]) {
				j--
			}
			for j > 0 && !asciiSpace(text[j-1]) {
				j--
			}
			from = j
		}
		dropped = strings.TrimSpace(text[:from]) != ""
	}
	var head, before, window []string // head: the first words, for a text with no match
	more, found := false, false
	for w := range strings.FieldsSeq(text[from:]) {
		if !found {
			if len(head) <= width {
				head = append(head, w)
			}
			if hasTerm(w) {
				found, window = true, append(before, w)
				continue
			}
			if before = append(before, w); len(before) > lead {
				before, dropped = before[1:], true
			}
			continue
		}
		if len(window) == width {
			more = true
			break
		}
		window = append(window, w)
	}
	if !found {
		dropped, more, window = false, len(head) > width, head[:min(len(head), width)]
	}
	out := make([]string, len(window))
	for i, w := range window {
		w = neutraliseMarks(w)
		if hasTerm(w) {
			w = "<mark>" + w + "</mark>"
		}
		out[i] = w
	}
	s := strings.Join(out, " ")
	if dropped {
		s = "…" + s
	}
	if more {
		s += "…"
	}
	return s
}

// firstTermAt is the byte offset in text of the first word holding a term,
// found in the lower-cased copy; 0 when there is none or when lower-casing
// moved byte offsets (then the caller scans word by word).
func firstTermAt(text, low string, terms []string, hasTerm func(string) bool) int {
	if len(low) != len(text) {
		return 0
	}
	at := -1
	for _, t := range terms {
		if i := strings.Index(low, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at <= 0 {
		return 0
	}
	for at > 0 && !asciiSpace(text[at-1]) {
		at--
	}
	end := at
	for end < len(text) && !asciiSpace(text[end]) {
		end++
	}
	// Offsets line up only if the word found is the same word in text,
	// and no non-ASCII space (which strings.Fields also splits on) is near.
	if !hasTerm(text[at:end]) || nonASCIISpace(text[:end]) {
		return 0
	}
	return at
}

func nonASCIISpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.IndexFunc(s[i:], func(r rune) bool { return r >= 0x80 && unicode.IsSpace(r) }) >= 0
		}
	}
	return false
}

func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}
