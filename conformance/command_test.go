package conformance

import (
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`pdpp-mcp --provider-url {rs_url}`: {"pdpp-mcp", "--provider-url", "{rs_url}"},
		`node "my adapter.js" --x='a b'`:   {"node", "my adapter.js", "--x=a b"},
		`a\ b c`:                           {"a b", "c"},
	} {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `  `, `"unterminated`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): want an error", bad)
		}
	}
}
