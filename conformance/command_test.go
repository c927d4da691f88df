package conformance

import (
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
	"os"
	"slices"
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

// The string form of --stdio reads as a POSIX shell reads it: leading
// assignments become the command's environment, ~ is the home directory,
// and $VAR comes from mcpcheck's environment.
func TestParseCommandLikeAShell(t *testing.T) {
	home, _ := os.UserHomeDir()
	t.Setenv("MCPCHECK_TEST_DIR", "/opt/x")
	env, argv, err := ParseCommand(`FOO=1 BAR='a b' ~/bin/adapter --data "$MCPCHECK_TEST_DIR/d" '$NOT' {rs_url}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"FOO=1", "BAR=a b"}; !slices.Equal(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}
	if want := []string{home + "/bin/adapter", "--data", "/opt/x/d", "$NOT", "{rs_url}"}; !slices.Equal(argv, want) {
		t.Errorf("argv %q, want %q", argv, want)
	}
	if _, _, err := ParseCommand(`FOO=1`); err == nil {
		t.Error("an assignment with no command: want an error")
	}
	if got := shellquote.Join([]string{"node", "my adapter.js", "it's", "{rs_url}"}); got != `node 'my adapter.js' 'it'\''s' {rs_url}` {
		t.Errorf("shellquote.Join = %s", got)
	}
}
