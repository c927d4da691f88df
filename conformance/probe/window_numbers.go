package probe

import (
	"regexp"
	"strconv"
	"strings"
)

// Reading the numbers a field read states about itself: the field's total
// size and the range it serves (issue 34, gap 1). A reader only: what a
// number must be comes from the fixture, in the check.

// A NumberClaim is one number an answer states under a label of a field
// read's total size, served start or served end, or of what remains after
// the window.
type NumberClaim struct {
	Role    string // total, start, end or remain
	N       int
	Excerpt string
}

// WindowKeyRole is the role a structuredContent key of a field window
// plays: total, start or end ("" for any other key). A key naming the
// next or previous window, a limit or a match is none of them.
func WindowKeyRole(key string) string {
	k := strings.ToLower(key)
	for _, not := range []string{"next", "prev", "limit", "max", "match", "hit", "record", "page", "request", "remain"} {
		if strings.Contains(k, not) {
			return ""
		}
	}
	switch k {
	case "total", "total_chars", "total_characters", "total_length", "total_size", "total_runes", "total_bytes", "chars_total", "field_length", "field_size", "value_length", "value_size":
		return "total"
	case "start", "start_chars", "start_char", "start_offset", "offset", "from", "begin", "range_start", "served_start", "window_start":
		return "start"
	case "end", "end_chars", "end_char", "end_offset", "to", "range_end", "served_end", "window_end", "stop":
		return "end"
	}
	return ""
}

// num is a number as text writes it, digit groups separated or not
// (60450, 60,450, 60 450).
const num = `(\d{1,3}(?:[,.\x{00a0}\x{202f} ]\d{3})+|\d+)`

var (
	// totalLabelRe is a total under its own label: total_chars="60450",
	// total: 60450, total size 60450 chars.
	totalLabelRe = regexp.MustCompile(`(?i)\btotal(?:[_ ](?:chars|characters|size|length|runes|bytes))?(?:["']?\s*[=:]\s*["']?` + num + `\b|\s+(?:of\s+)?` + num + `\s*(?:chars|characters|bytes)\b)`)
	// rangeOfRe is a served range with its total: 256–512 of 60450,
	// chars="256".."512" total ..., 256 to 512 (of 60450).
	rangeOfRe = regexp.MustCompile(`(?i)\b(chars?|characters|range|served|showing|window|bytes)?\W{0,3}` + num + `["']?\s*(?:\.\.|–|—|-|to)\s*["']?` + num + `\b["']?(?:\s*(?:of|/)\s*["']?` + num + `\b)?`)
	// remainRe is what the text says remains after the window: 59938
	// chars remain.
	remainRe = regexp.MustCompile(`(?i)\b` + num + `\s+(?:more\s+)?(?:chars|characters)\s+(?:remain|left|to go)`)
)

// WindowNumberClaims are the labelled numbers of a field read's text: its
// total, its served range (start and end: a range with its "of" total, or
// after a label of characters or range) and what remains. The served text
// is set aside by the caller.
func WindowNumberClaims(s string) []NumberClaim {
	var out []NumberClaim
	for _, i := range totalLabelRe.FindAllStringSubmatchIndex(s, -1) {
		m := groups(s, i)
		if abbreviated(s, i) {
			continue
		}
		n, _ := atoi(m[1] + m[2])
		out = append(out, NumberClaim{"total", n, m[0]})
	}
	for _, i := range rangeOfRe.FindAllStringSubmatchIndex(s, -1) {
		m := groups(s, i)
		if abbreviated(s, i) || m[1] == "" && m[4] == "" || strings.Contains(strings.ToLower(s[max(0, i[0]-24):i[0]]), "match") {
			continue // two numbers joined with no label of a range, or a match's
		}
		a, _ := atoi(m[2])
		b, _ := atoi(m[3])
		if b < a {
			continue
		}
		out = append(out, NumberClaim{"start", a, m[0]}, NumberClaim{"end", b, m[0]})
		if m[4] != "" {
			n, _ := atoi(m[4])
			out = append(out, NumberClaim{"total", n, m[0]})
		}
	}
	for _, i := range remainRe.FindAllStringSubmatchIndex(s, -1) {
		m := groups(s, i)
		if abbreviated(s, i) {
			continue
		}
		n, _ := atoi(m[1])
		out = append(out, NumberClaim{"remain", n, m[0]})
	}
	return out
}

// atoi reads a number with or without digit-group separators.
func atoi(s string) (int, error) {
	return strconv.Atoi(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s))
}

// matchNumberRe is a match offset under a match label: match at 30009–30018,
// match_start_chars=30009, match_end_chars=30018, "match" at chars 30009.
var matchNumberRe = regexp.MustCompile(`(?i)\bmatch(_?(?:start|end|offset|at|pos|position|range|begin)\w*)?\b["']?[^\n\d]{0,30}?` + num + `(?:["']?\s*(?:\.\.|–|—|-|to)\s*["']?` + num + `)?`)

// MatchNumberClaims are the match offsets a field read's text states
// (roles start and end).
func MatchNumberClaims(s string) []NumberClaim {
	var out []NumberClaim
	for _, i := range matchNumberRe.FindAllStringSubmatchIndex(s, -1) {
		m := groups(s, i)
		if abbreviated(s, i) {
			continue
		}
		a, _ := atoi(m[2])
		if strings.Contains(strings.ToLower(m[1]), "end") {
			out = append(out, NumberClaim{"end", a, m[0]})
			continue
		}
		out = append(out, NumberClaim{"start", a, m[0]})
		if m[3] != "" {
			b, _ := atoi(m[3])
			out = append(out, NumberClaim{"end", b, m[0]})
		}
	}
	return out
}

// MatchKeyRole is the role a structuredContent key plays for a match
// offset: start or end ("" for any other key, a count or score among them).
func MatchKeyRole(key string) string {
	k := strings.ToLower(key)
	if !strings.Contains(k, "match") || strings.Contains(k, "count") || strings.Contains(k, "score") || strings.Contains(k, "total") {
		return ""
	}
	switch {
	case strings.Contains(k, "end"):
		return "end"
	case strings.Contains(k, "start"), strings.Contains(k, "offset"), strings.Contains(k, "begin"), strings.Contains(k, "pos"), strings.HasSuffix(k, "_at"):
		return "start"
	}
	return ""
}

// groups are the submatches of one FindAllStringSubmatchIndex match.
func groups(s string, idx []int) []string {
	out := make([]string, len(idx)/2)
	for g := range out {
		if idx[2*g] >= 0 {
			out[g] = s[idx[2*g]:idx[2*g+1]]
		}
	}
	return out
}

// abbreviated reports whether a number of the match ends in a magnitude
// suffix (30k, 1.2M): a rounded number, no exact claim.
func abbreviated(s string, idx []int) bool {
	for g := 1; 2*g+1 < len(idx); g++ {
		if end := idx[2*g+1]; idx[2*g] >= 0 && end < len(s) && strings.ContainsRune("kKmM", rune(s[end])) &&
			(end+1 == len(s) || !isLetter(s[end+1])) {
			return true
		}
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
