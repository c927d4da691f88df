package fakers

import (
	"regexp"
	"testing"
)

// Every token the fixture hands out is 32 characters of mixed base62 (no
// word a redactor could take for part of it), distinct, and the same for
// the same fixture on every run.
func TestTokensAreHighEntropyAndStable(t *testing.T) {
	base62Only := regexp.MustCompile(`^[0-9A-Za-z]{32}$`)
	for _, name := range []string{"default", SplitConnectionsFixture} {
		f, err := LoadFixture(name)
		if err != nil {
			t.Fatal(err)
		}
		rs, again := New(f), New(f)
		seen := map[string]bool{}
		for tok, info := range rs.tokens {
			if !base62Only.MatchString(tok) || !mixedAlphanumeric(tok) {
				t.Errorf("%s: %s token %q is not 32 characters of mixed base62", name, info.kind, tok)
			}
			if _, ok := again.tokens[tok]; !ok {
				t.Errorf("%s: %s token %q differs between two RSs of one fixture", name, info.kind, tok)
			}
			seen[tok] = true
		}
		if len(seen) != 9+len(f.Connectors) {
			t.Errorf("%s: %d distinct tokens, want %d", name, len(seen), 9+len(f.Connectors))
		}
	}
	a, _ := LoadFixture("default")
	b, _ := LoadFixture(SplitConnectionsFixture)
	if New(a).ClientToken() == New(b).ClientToken() {
		t.Error("two fixtures share a client token")
	}
}
