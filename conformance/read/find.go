// Package read holds mcpcheck's pure readers of a target's text and JSON:
// functions of strings and decoded JSON values, with no calls and no
// state. It is a leaf: it imports nothing of the module, and the framework,
// the probes and the checks all read through it.
package read

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Fact is a value mcpcheck knows from its own fixture (a connection id,
// a field name, a record's text, a size) or from the target's own
// declarations, to be looked for in an answer by value.
type Fact struct {
	Value string
	// Number: a count or size, found in any notation of numbers
	// (60450, 60,450, 60 450, 60.5k).
	Number bool
	// Approx: a size, shown as well by an abbreviation within its
	// rounding (60.5k for 60450) as exactly.
	Approx bool
	n      int64
}

// Text is a fact that is a string.
func Text(s string) Fact { return Fact{Value: s} }

// Number is a fact that is a count or a size.
func Number(n int) Fact {
	return Fact{Value: itoa(int64(n)), Number: true, n: int64(n)}
}

// Size is a size: shown exactly, or abbreviated within its rounding.
func Size(n int) Fact {
	f := Number(n)
	f.Approx = true
	return f
}

func (f Fact) String() string { return f.Value }

// A Sighting is where a fact was seen: Exact when the value stands as a
// token of its own, as written or decoded; Loose when it was seen only
// inside other text or in an approximate notation (a substring, another
// case, an abbreviated number). Excerpt is the text around it.
type Sighting struct {
	Exact, Loose bool
	Excerpt      string
}

// Seen reports whether the fact was seen at all.
func (s Sighting) Seen() bool { return s.Exact || s.Loose }

// Find looks for f in every string of in, in every notation mcpcheck
// reads: as written; with HTML entities and highlight tags undone; with
// JSON string escapes undone; percent-decoded; inside base64 tokens;
// folded for case and space; and for numbers, grouped, abbreviated or
// spelled out. A witness that a fact is absent needs !Seen(); a reading
// that it is shown needs Exact.
func Find(in []string, f Fact) Sighting {
	if f.Value == "" {
		return Sighting{}
	}
	var best Sighting
	for _, s := range in {
		for _, v := range variants(s) {
			var got Sighting
			if f.Number {
				got = findNumber(v, f.n)
				if f.Approx && got.Loose && approxIn(v, f.n) {
					got.Exact = true
				}
			} else {
				got = findText(v, f.Value)
			}
			if got.Exact {
				return got
			}
			if got.Loose && !best.Loose {
				best = got
			}
		}
	}
	return best
}

// FindAll is Find for each fact: the facts seen nowhere, and those seen
// only loosely.
func FindAll(in []string, facts []Fact) (absent, loose []Fact) {
	for _, f := range facts {
		switch s := Find(in, f); {
		case !s.Seen():
			absent = append(absent, f)
		case !s.Exact:
			loose = append(loose, f)
		}
	}
	return absent, loose
}

// variants are the notations s may hide a value in, s first.
func variants(s string) []string {
	out := []string{s}
	add := func(v string) {
		if v != "" && v != s {
			out = append(out, v)
		}
	}
	plain := HighlightTag.ReplaceAllString(html.UnescapeString(s), "")
	add(plain)
	if strings.Contains(s, `\`) {
		add(unescapeJSON(s))
	}
	if strings.Contains(s, "%") {
		if d, err := url.PathUnescape(s); err == nil {
			add(d)
		} else if d, err := url.QueryUnescape(s); err == nil {
			add(d)
		}
	}
	if b := decodedBase64(s); b != "" {
		add(b)
	}
	return out
}

// HighlightTag is a whole highlight tag of any short name: <mark>, <em>,
// <b>, <strong>, <hl>… (seed 001 asks for balanced tags, not one).
var HighlightTag = regexp.MustCompile(`</?(?:mark|em|b|strong|hl|i|u|ins|span)>`)

// unescapeJSON undoes JSON string escapes wherever they appear in s.
func unescapeJSON(s string) string {
	return jsonEscapeRe.ReplaceAllStringFunc(s, func(e string) string {
		var out string
		if json.Unmarshal([]byte(`"`+e+`"`), &out) != nil {
			return e
		}
		return out
	})
}

var jsonEscapeRe = regexp.MustCompile(`\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})`)

// base64TokenRe is a token that may be base64 or base64url of some text.
var base64TokenRe = regexp.MustCompile(`[A-Za-z0-9+/_-]{12,}={0,2}`)

// decodedBase64 is the text hidden in s's base64 tokens, control
// characters as spaces, or "" when none decodes to text.
func decodedBase64(s string) string {
	var parts []string
	for _, tok := range base64TokenRe.FindAllString(s, 64) {
		raw := strings.TrimRight(tok, "=")
		for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
			b, err := enc.DecodeString(raw)
			if err != nil || !utf8.Valid(b) || !mostlyPrintable(b) {
				continue
			}
			parts = append(parts, strings.Map(func(r rune) rune {
				if unicode.IsControl(r) {
					return ' '
				}
				return r
			}, string(b)))
			break
		}
	}
	return strings.Join(parts, " ")
}

func mostlyPrintable(b []byte) bool {
	n, bad := 0, 0
	for _, r := range string(b) {
		n++
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) && r != 0x1f && r != 0x1e && r != 0 {
			bad++
		}
	}
	return n > 0 && bad == 0
}

// findText finds value in s: Exact as a token of its own, as written;
// Loose as a substring once case and space are folded.
func findText(s, value string) Sighting {
	if i := TokenIndex(s, value); i >= 0 {
		return Sighting{Exact: true, Excerpt: Around(s, i, len(value))}
	}
	fs, fv := fold(s), fold(value)
	if strings.Contains(value, "_") && !strings.ContainsAny(value, " \t") {
		// An identifier (retry_with) is one word: another case is it,
		// the same words apart ("retry with") are not.
		fs, fv = strings.ToLower(s), strings.ToLower(value)
	}
	if fv == "" {
		return Sighting{}
	}
	// A short value inside a longer word is no sighting of it: "r" is not
	// in "primary". A longer one may be glued to its neighbours.
	i := strings.Index(fs, fv)
	if len(fv) < 4 {
		i = TokenIndex(fs, fv)
	}
	if i >= 0 {
		return Sighting{Loose: true, Excerpt: Around(fs, i, len(fv))}
	}
	return Sighting{}
}

// fold is s in lower case with runs of space (and the separators a
// display form swaps in for spaces: _ -) as one space.
func fold(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsSpace(r) || r == '_' || r == '-' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// TokenIndex is the byte index of tok in s where it stands as a token of
// its own (no letter, digit or underscore touching either end), or -1.
func TokenIndex(s, tok string) int {
	if tok == "" {
		return -1
	}
	for from := 0; from <= len(s)-len(tok); {
		i := strings.Index(s[from:], tok)
		if i < 0 {
			return -1
		}
		i += from
		// A word must not touch word characters; a symbol ("#", "<>")
		// must not touch other symbols, but may touch words ("#ops").
		before, after := wordAt, wordAt
		if r, _ := utf8.DecodeRuneInString(tok); !isWord(r) {
			before = symbolAt
		}
		if r, _ := utf8.DecodeLastRuneInString(tok); !isWord(r) {
			after = symbolAt
		}
		if !before(s, i-1, true) && !after(s, i+len(tok), false) {
			return i
		}
		from = i + 1
	}
	return -1
}

// ContainsToken reports whether tok stands in s as a token of its own.
func ContainsToken(s, tok string) bool { return TokenIndex(s, tok) >= 0 }

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// symbolAt reports whether the rune ending (before) or starting (after)
// at byte i of s is one of the symbols a grammar may flag with (brackets
// aside: "@<role>" explains "@").
func symbolAt(s string, i int, before bool) bool {
	r, ok := runeAt(s, i, before)
	return ok && strings.ContainsRune("=~?#@!*+≈%$^&", r)
}

// wordAt reports whether the rune ending (before) or starting (after) at
// byte i of s is a word character: a letter, a digit or an underscore.
func wordAt(s string, i int, before bool) bool {
	r, ok := runeAt(s, i, before)
	return ok && isWord(r)
}

// runeAt is the rune ending (before) or starting (after) at byte i of s;
// false outside s.
func runeAt(s string, i int, before bool) (rune, bool) {
	if i < 0 || i >= len(s) {
		return 0, false
	}
	if before {
		r, _ := utf8.DecodeLastRuneInString(s[:i+1])
		return r, true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r, true
}

// Around is the text of s around bytes [i, i+n): up to 60 runes either
// side, on one line.
func Around(s string, i, n int) string {
	lo, hi := i, i+n
	for k := 0; k < 60 && lo > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:lo])
		lo -= size
	}
	for k := 0; k < 60 && hi < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[hi:])
		hi += size
	}
	out := strings.Join(strings.Fields(s[lo:hi]), " ")
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
