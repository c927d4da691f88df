package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// forgedVerdict is a report line at the verdict column that the target wrote.
var forgedVerdict = regexp.MustCompile(`(?m)^ {0,2}(PASS|FAIL|WARN|PARTIAL|N/A|SKIP|ERROR|MANUAL|PENDING)\s+(\S+\s+)?S999`)

// terminalUnsafe lists what in text a terminal would obey rather than show:
// C0 controls but newline and tab, DEL, C1 controls, invalid UTF-8 (an
// 8-bit terminal reads a raw 0x9b as CSI), and forged verdict lines.
func terminalUnsafe(text string) []string {
	var bad []string
	if !utf8.ValidString(text) {
		bad = append(bad, "invalid UTF-8")
	}
	for i, r := range text {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			bad = append(bad, fmt.Sprintf("%U at byte %d", r, i))
			if len(bad) > 5 {
				break
			}
		}
	}
	if m := forgedVerdict.FindString(text); m != "" {
		bad = append(bad, fmt.Sprintf("a forged verdict line %q", m))
	}
	return bad
}

// A target's strings reach the terminal only as visible escapes: in the
// report's failure lines and calls, the footprint table, golden changes,
// `mcpcheck footprint` and bench, over HTTP and stdio.
func TestTargetTextCannotDriveTheTerminal(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.TerminalInjection})
	t.Cleanup(srv.Close)
	goldens := t.TempDir()
	if err := os.WriteFile(filepath.Join(goldens, "tools-list.golden.json"), []byte(`[{"name":"schema","inputSchema":{"type":"object"}}]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := []string{"--url", srv.URL + "/mcp", "--timeout", "3s"}
	stdio := []string{"--stdio", self, "--env", hostile.Env + "=" + hostile.TerminalInjection, "--timeout", "3s"}
	bench := []string{"bench", "--url", srv.URL + "/mcp", "--timeout", "3s", "--samples", "2", "--duration", "50ms", "--concurrency", "1", "--startup-runs", "-1", "--scale", "-", "--tools", "schema"}
	for name, args := range map[string][]string{
		"run url":         append(append([]string(nil), url...), "--golden-dir", goldens),
		"run stdio":       stdio,
		"footprint url":   append([]string{"footprint"}, url...),
		"footprint stdio": append([]string{"footprint"}, stdio...),
		"bench url":       bench,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "terminal-test-bearer"}, args...)
			if !strings.Contains(out, `\x1b]0;pwned\x07`) {
				t.Errorf("stdout does not show the title change escaped, so the test proves nothing:\n%s", out)
			}
			for where, text := range map[string]string{"stdout": out, "stderr": stderr} {
				if bad := terminalUnsafe(text); len(bad) > 0 {
					t.Errorf("%s holds %s", where, strings.Join(bad, "; "))
				}
			}
		})
	}
}
