package probe

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
