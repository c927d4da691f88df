package read

import (
	"regexp"
	"slices"
	"strings"
)

// Normalize is an answer as a contrast compares it: the fixture's own
// content (record values, names, ids) removed, every number as #, opaque
// tokens (cursors, handles) as one mark, highlight tags gone and space
// folded. Two answers the clause says must read differently that
// normalise alike say the same thing about the fixture's state, in
// whatever notation.
func Normalize(s string, content []string) string {
	return strings.Join(strings.Fields(numberRunRe.ReplaceAllString(withoutTokens(s, content), "#")), " ")
}

// NormalizeValues is Normalize keeping numbers: for two answers that must
// differ in the values they state (counts, dates), not in their shape.
func NormalizeValues(s string, content []string) string {
	return strings.Join(strings.Fields(withoutTokens(s, content)), " ")
}

// withoutTokens is s without highlight tags, the fixture's content and
// opaque tokens.
func withoutTokens(s string, content []string) string {
	// Opaque tokens go first as well: a short fixture value inside a
	// random id (a request id) would split it into pieces that differ.
	s = WithoutContent(withoutOpaque(HighlightTag.ReplaceAllString(s, "")), content)
	return withoutOpaque(s)
}

// withoutOpaque marks each opaque token (letters and digits, 12 or more).
func withoutOpaque(s string) string {
	return opaqueTokenRe.ReplaceAllStringFunc(s, func(tok string) string {
		if strings.ContainsAny(tok, "0123456789") && strings.IndexFunc(tok, isLetter) >= 0 {
			return "⟨t⟩"
		}
		return tok
	})
}

// WithoutContent is s with the fixture's own content (as written, as it
// reads inside a JSON string, and any long run of it) replaced by a mark:
// what an answer says about the data rather than of it.
func WithoutContent(s string, content []string) string {
	cs := slices.Clone(content)
	slices.SortFunc(cs, func(a, b string) int { return len(b) - len(a) })
	for _, c := range cs {
		if len(strings.TrimSpace(c)) < 2 {
			continue
		}
		s = strings.ReplaceAll(s, c, "⟨·⟩")
		if esc := jsonEscaped(c); esc != c {
			s = strings.ReplaceAll(s, esc, "⟨·⟩")
		}
	}
	return withoutPieces(s, cs)
}

var (
	opaqueTokenRe = regexp.MustCompile(`[A-Za-z0-9_\-+/=.:~@]{12,}`)
	numberRunRe   = regexp.MustCompile(`\d+(?:[.,_'’ \x{00A0}\x{202F}\x{2009}]\d+)*`)
)

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// jsonEscaped is s as it reads inside a JSON string.
func jsonEscaped(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return r.Replace(s)
}

// pieceRunes is the shortest run of a long content string a text may show
// of it (a window, a preview) that Normalize still removes.
const pieceRunes = 16

// withoutPieces removes from s every run of pieceRunes characters or more
// that one of the long content strings holds: what a window or a preview
// shows of a field's text.
func withoutPieces(s string, content []string) string {
	var long []string
	for _, c := range content {
		if len(c) > 2*pieceRunes {
			long = append(long, c)
		}
	}
	if len(long) == 0 {
		return s
	}
	holds := func(piece string) bool {
		for _, c := range long {
			if strings.Contains(c, piece) {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if i+pieceRunes <= len(s) && holds(s[i:i+pieceRunes]) {
			j := i + pieceRunes
			for j+pieceRunes <= len(s) && holds(s[i:j+pieceRunes]) {
				j += pieceRunes
			}
			for j < len(s) && holds(s[i:j+1]) {
				j++
			}
			b.WriteString("⟨·⟩")
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
