package variation

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range All() {
		if seen[v.ID] || len(v.Kills) == 0 || v.Doc == "" || v.Apply == nil {
			t.Errorf("variation %s: duplicate, or missing kills, doc or apply", v.ID)
		}
		seen[v.ID] = true
		if got, err := Lookup(v.ID); err != nil || got.ID != v.ID {
			t.Errorf("Lookup(%q) = %v, %v", v.ID, got, err)
		}
	}
	if v, err := Lookup(""); v != nil || err != nil {
		t.Errorf(`Lookup("") = %v, %v; want no variation`, v, err)
	}
}

func TestMainTakesTheMutantFlag(t *testing.T) {
	none := func(string) string { return "" }
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--mutant", "nope", "--provider-url", "http://x"}, adapter.ExitUsage, "unknown mutant"},
		{[]string{"--mutant=advertise-profile-flag", "--help"}, adapter.ExitOK, "--profile NAME"},
		{[]string{"--help", "--mutant", "advertise-profile-flag"}, adapter.ExitOK, "--profile NAME"},
		{[]string{"--help"}, adapter.ExitOK, "Usage:"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), tc.args, none, strings.NewReader(""), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%v: exit %d stderr %q; want %d containing %q", tc.args, code, errb.String(), tc.code, tc.stderr)
		}
	}
}

func TestCutMutantFlag(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		id   string
		rest []string
	}{
		{[]string{"search", "--mutant", "x", "q"}, "x", []string{"search", "q"}},
		{[]string{"serve", "--addr", "a", "-mutant=y"}, "y", []string{"serve", "--addr", "a"}},
		{[]string{"--provider-url", "u"}, "", []string{"--provider-url", "u"}},
	} {
		id, rest := cutMutantFlag(tc.in)
		if id != tc.id || !slices.Equal(rest, tc.rest) {
			t.Errorf("cutMutantFlag(%v) = %q, %v; want %q, %v", tc.in, id, rest, tc.id, tc.rest)
		}
	}
}
