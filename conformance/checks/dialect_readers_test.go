package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dialectText is a recorded answer of one dialect (conformance/probe's
// testdata/dialects): the reference adapter's and three whole-dialect variants'.
func dialectText(t *testing.T, dialect, answer string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "probe", "testdata", "dialects", dialect+"."+answer+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var recordedDialects = []string{"reference", "ts-sdk", "python", "terse"}

// S026 judges the balance of whichever tag a target highlights with.
func TestTagProblemAnyTag(t *testing.T) {
	for s, bad := range map[string]bool{
		"the <em>budget</em> review": false, "the <hl>budget</hl> and <hl>plan</hl>": false, "the <mark>budget</mark>": false,
		"the <em>budget review": true, "the budget</em> review": true, "the <mark>budget review": true, "plain prose": false,
	} {
		if got, _ := tagProblem(s); (got != "") != bad {
			t.Errorf("tagProblem(%q) = %q", s, got)
		}
	}
	for _, d := range recordedDialects {
		for _, l := range strings.Split(dialectText(t, d, "search"), "\n") {
			if p, _ := tagProblem(l); p != "" {
				t.Errorf("%s: %q: %s", d, l, p)
			}
		}
	}
}
