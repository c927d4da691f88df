package adapter

import (
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"
)

// Text helpers shared by every renderer: cutting to a size, keeping
// highlight tags whole, and making values safe inside key=value prose.

// An ellipsis marks a cut; its methods cut text and mark each cut with it.
type ellipsis string

// inline makes a value safe inside key=value prose: the cut mark too, so
// an ellipsis such as "[…]" cannot open a bracket in a name[flags] row.
func (e ellipsis) inline(s string, n int) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ';', ',', '[', ']', '{', '}', ' ', '\t', '\n', '\r':
			return '_'
		}
		return r
	}, e.clip(s, n))
}

// clip cuts s to n runes, the ellipsis included.
func (e ellipsis) clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(0, n-utf8.RuneCountInString(string(e)))]) + string(e)
}

// clipMarked cuts s to n runes and keeps <mark> tags balanced after the cut:
// a half tag is dropped and an open <mark> is closed.
func (e ellipsis) clipMarked(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return balanceMarks(s)
	}
	return balanceMarks(trimPartialTag(string(r[:max(0, n-utf8.RuneCountInString(string(e)))])) + string(e))
}

// centerMarked cuts s to about n characters around its first highlight, so
// a preview keeps words on both sides of the match (seed 004), with the
// tags whole and balanced. Without a highlight it cuts from the start.
func (e ellipsis) centerMarked(s string, n int) string {
	r := []rune(s)
	at := strings.Index(s, "<mark>")
	if len(r) <= n || at < 0 {
		return e.clipMarked(s, n)
	}
	m := utf8.RuneCountInString(s[:at])
	mEnd := m + len("<mark>")
	if close := strings.Index(s[at:], "</mark>"); close >= 0 {
		mEnd = m + utf8.RuneCountInString(s[at:at+close+len("</mark>")])
	}
	side := max(0, (n-(mEnd-m))/2)
	start := max(0, m-side)
	end := min(len(r), start+n)
	start = max(0, end-n)
	start, end = outsideTag(r, start, true), outsideTag(r, end, false)
	out := string(r[start:end])
	if end < len(r) {
		out = trimPartialTag(out) + string(e)
	}
	if start > 0 {
		out = string(e) + out
	}
	return balanceMarks(out)
}

// clipBytes cuts s to at most n bytes on a rune boundary, ending in the
// ellipsis.
func (e ellipsis) clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len(e)
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(0, n)] + string(e)
}

// fitLines keeps body+tail within n bytes: it drops whole lines from the end
// of body, and only a lone first line is cut, never inside a highlight tag.
func (e ellipsis) fitLines(body, tail string, n int) string {
	if len(body)+len(tail) <= n {
		return body + tail
	}
	lines := strings.Split(body, "\n")
	size := len(body)
	for len(lines) > 1 && size+len(tail) > n {
		size -= len(lines[len(lines)-1]) + 1
		lines = lines[:len(lines)-1]
	}
	out := strings.Join(lines, "\n")
	if len(out)+len(tail) > n {
		// Room for the ellipsis and a closing tag balanceMarks may add.
		cut := max(0, n-len(tail)-len(e)-len("</mark>"))
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = balanceMarks(trimPartialTag(out[:cut]) + string(e))
	}
	return out + tail
}

// trimPartialTag drops a trailing fragment that could be half a highlight
// tag ("<", "<ma", "</mar"), so no host sees a tag cut in two.
func trimPartialTag(s string) string {
	i := strings.LastIndexByte(s, '<')
	if i < 0 {
		return s
	}
	if tail := s[i:]; tail != "<mark>" && tail != "</mark>" && (strings.HasPrefix("<mark>", tail) || strings.HasPrefix("</mark>", tail)) {
		return s[:i]
	}
	return s
}

// balanceMarks makes highlight tags well formed whatever the RS sent: no
// stray </mark>, no nested <mark>, an open <mark> closed at the end, and
// every other "<" escaped, so dropped tags cannot splice text into new ones.
func balanceMarks(s string) string {
	const open, close = "<mark>", "</mark>"
	var b strings.Builder
	in := false
	for i := 0; i < len(s); {
		switch {
		case s[i] == '<' && !strings.HasPrefix(s[i:], open) && !strings.HasPrefix(s[i:], close):
			b.WriteString("&lt;")
			i++
		case strings.HasPrefix(s[i:], open):
			if !in {
				b.WriteString(open)
				in = true
			}
			i += len(open)
		case strings.HasPrefix(s[i:], close):
			if in {
				b.WriteString(close)
				in = false
			}
			i += len(close)
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	if in {
		b.WriteString(close)
	}
	return b.String()
}

// outsideTag moves a cut position that falls inside a highlight tag to the
// tag's start (left) or end (right).
func outsideTag(r []rune, pos int, left bool) int {
	for i := max(0, pos-len("</mark>")); i < pos && i < len(r); i++ {
		if r[i] != '<' {
			continue
		}
		for _, tag := range []string{"<mark>", "</mark>"} {
			t := []rune(tag)
			if i+len(t) <= len(r) && string(r[i:i+len(t)]) == tag && i+len(t) > pos {
				if left {
					return i
				}
				return i + len(t)
			}
		}
	}
	return pos
}

func q(s string) string { return strconv.Quote(s) }

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
