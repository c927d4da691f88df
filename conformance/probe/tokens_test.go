package probe

import (
	"math/rand"
	"regexp"
	"testing"
)

// tokenPattern is what tokenIndex scans for.
func tokenPattern(tok string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(tok) + `([^A-Za-z0-9_]|$)`)
}

// tokenIndex finds what tokenPattern matches, where it matches.
func TestTokenIndexMatchesPattern(t *testing.T) {
	alphabet := []string{"a", "b", "_", " ", "é", "1", ".", "ab", "-"}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		var s, tok string
		for i := r.Intn(12); i > 0; i-- {
			s += alphabet[r.Intn(len(alphabet))]
		}
		for i := 1 + r.Intn(3); i > 0; i-- {
			tok += alphabet[r.Intn(len(alphabet))]
		}
		want := -1
		if loc := tokenPattern(tok).FindStringIndex(s); loc != nil {
			want = loc[0]
		}
		if got := tokenIndex(s, tok); got != want {
			t.Fatalf("tokenIndex(%q, %q) = %d, want %d", s, tok, got, want)
		}
	}
}
