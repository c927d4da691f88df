package fakers

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// markSnippetWhole is the plain definition markSnippet must agree with: split
// the whole text, take 48 words from 16 before the first match.
func markSnippetWhole(text string, terms []string) string {
	ws := strings.Fields(text)
	hasTerm := func(w string) bool {
		for _, t := range terms {
			if strings.Contains(strings.ToLower(w), t) {
				return true
			}
		}
		return false
	}
	first := 0
	for i, w := range ws {
		if hasTerm(w) {
			first = i
			break
		}
	}
	start := max(0, first-16)
	end := min(len(ws), start+48)
	out := make([]string, 0, end-start)
	for _, w := range ws[start:end] {
		w = strings.NewReplacer("<mark>", "&lt;mark&gt;", "</mark>", "&lt;/mark&gt;", "<MARK>", "&lt;MARK&gt;", "</Mark>", "&lt;/Mark&gt;").Replace(w)
		if hasTerm(w) {
			w = "<mark>" + w + "</mark>"
		}
		out = append(out, w)
	}
	s := strings.Join(out, " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(ws) {
		s += "…"
	}
	return s
}

func TestMarkSnippetAgreesWithWholeSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "Budget", "x", "budgets", "  ", "\n", "\u00a0", "İx", "ab\u0085c", "<mark>", "budget</mark>", "x<MARK>b", "</Mark>"}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		k := rng.IntN(120)
		for i := 0; i < k; i++ {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		terms := [][]string{{"budget"}, {"zz"}, {"a", "budget"}}[rng.IntN(3)]
		got, want := markSnippet(b.String(), strings.ToLower(b.String()), terms), markSnippetWhole(b.String(), terms)
		if got != want {
			t.Fatalf("%q %v:\n got %q\nwant %q", b.String(), terms, got, want)
		}
		if !balancedMarks(got) {
			t.Fatalf("unbalanced tags in %q", got)
		}
	}
}

// balancedMarks reports whether every <mark> closes before the next opens.
func balancedMarks(s string) bool {
	open := false
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "<mark>"):
			if open {
				return false
			}
			open = true
		case strings.HasPrefix(s[i:], "</mark>"):
			if !open {
				return false
			}
			open = false
		}
	}
	return !open
}
