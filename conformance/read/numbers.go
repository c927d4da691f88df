package read

import (
	"regexp"
	"strconv"
	"strings"
)

// Reading exact numbers in any common notation (issue 27, cause 5): a
// target may write 12345 as "12345", "12,345", "12 345" (a space, a
// no-break or a thin space), "12_345", "12'345", or abbreviated with the
// exact figure beside it, "12k (12,345)". An abbreviation alone ("12k") is
// not exact and is never read as 12,000.

// groupedRe is a run of digits in groups of three after a separator.
var groupedRe = regexp.MustCompile(`\d{1,3}(?:(?:,|_|'|’| |\x{00A0}|\x{202F}|\x{2009})\d{3})+`)

// plainDigitsRe is a bare run of digits.
var plainDigitsRe = regexp.MustCompile(`\d+`)

// Numbers is every exact number text can be read as: each grouped run
// read whole, and each bare run of digits. A grouped run is also read as
// its bare parts ("1,234" in a list may be 1 and 234), so a reader that
// looks for n finds it whichever was meant.
func Numbers(text string) []int64 {
	var out []int64
	for _, m := range groupedRe.FindAllStringIndex(text, -1) {
		if m[1] < len(text) && text[m[1]] >= '0' && text[m[1]] <= '9' {
			continue // more digits follow: not a clean group
		}
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, text[m[0]:m[1]])
		if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	for _, m := range plainDigitsRe.FindAllString(text, -1) {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// ShowsNumber reports whether text shows the exact number n, in any
// notation Numbers reads.
func ShowsNumber(text string, n int) bool {
	for _, v := range Numbers(text) {
		if v == int64(n) {
			return true
		}
	}
	return false
}

// ShowsSize reports whether text shows a number within 2% of total (a
// size written exactly, or rounded as "60.4k"-style text never is: only
// exact figures count).
func ShowsSize(text string, total int) bool {
	for _, n := range Numbers(text) {
		if n >= 100 && n*50 >= int64(total)*49 && n*50 <= int64(total)*51 {
			return true
		}
	}
	return false
}

// numberTokenRe is a number as a text may write it: digits in groups or
// bare, with an optional decimal part and an abbreviation (k, M, KB, KiB).
var numberTokenRe = regexp.MustCompile(`(?i)\d{1,3}(?:(?:,|_|'|’| |\x{00A0}|\x{202F}|\x{2009})\d{3})+|\d+(?:[.,]\d+)?\s?(?:k|m|kb|kib|mb|mib|thousand)\b|\d+`)

// numberWords spell out the small counts a text may write in words.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// findNumber finds n in s: Exact as a number token of its own (grouped or
// bare, with no letter, digit or underscore touching it); Loose inside
// another token (cin_25), abbreviated within its rounding (60.5k), or
// spelled out (three).
func findNumber(s string, n int64) Sighting {
	var loose Sighting
	for _, m := range numberTokenRe.FindAllStringIndex(s, -1) {
		tok := s[m[0]:m[1]]
		v, approx, unit := parseNumberToken(tok)
		if approx {
			if !loose.Loose && unit > 0 && absInt(v-n)*2 <= unit {
				loose = Sighting{Loose: true, Excerpt: Around(s, m[0], m[1]-m[0])}
			}
			continue
		}
		if v != n {
			continue
		}
		if !wordAt(s, m[0]-1, true) && !wordAt(s, m[1], false) {
			return Sighting{Exact: true, Excerpt: Around(s, m[0], m[1]-m[0])}
		}
		if !loose.Loose {
			loose = Sighting{Loose: true, Excerpt: Around(s, m[0], m[1]-m[0])}
		}
	}
	if !loose.Loose && n >= 0 && n < int64(len(numberWords)) {
		if i := TokenIndex(strings.ToLower(s), numberWords[n]); i >= 0 {
			loose = Sighting{Loose: true, Excerpt: Around(s, i, len(numberWords[n]))}
		}
	}
	return loose
}

// parseNumberToken reads one match of numberTokenRe: its value, whether it
// is approximate (abbreviated), and then the size of its last digit's unit.
func parseNumberToken(tok string) (v int64, approx bool, unit int64) {
	low := strings.ToLower(strings.TrimSpace(tok))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"thousand", 1000}, {"kib", 1024}, {"mib", 1 << 20}, {"kb", 1000}, {"mb", 1000000}, {"k", 1000}, {"m", 1000000}} {
		if strings.HasSuffix(low, suf.s) {
			mult, low = suf.m, strings.TrimSpace(strings.TrimSuffix(low, suf.s))
			break
		}
	}
	if mult == 1 {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, low)
		n, _ := strconv.ParseInt(digits, 10, 64)
		return n, false, 0
	}
	whole, frac, _ := strings.Cut(strings.ReplaceAll(low, ",", "."), ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	v, unit = w*mult, mult
	for _, d := range frac {
		unit /= 10
		v += int64(d-'0') * unit
	}
	return v, true, max(unit, 1)
}

func absInt(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// approxIn reports whether s abbreviates n within its rounding (60.5k).
func approxIn(s string, n int64) bool {
	for _, m := range numberTokenRe.FindAllString(s, -1) {
		if v, approx, unit := parseNumberToken(m); approx && unit > 0 && absInt(v-n)*2 <= unit {
			return true
		}
	}
	return false
}
