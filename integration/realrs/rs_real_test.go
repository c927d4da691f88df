package realrs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/internal/realrskit"
)

// TestMcpcheckRSReal runs `mcpcheck --rs real --stdio …` as an adapter
// author would: pdpp-mcp and an adapter mcpcheck was not written with
// (../shared/adapters/r), each reading the real RS with the gmail and
// github grants. mcpcheck attaches to this suite's RS
// (PDPP_REAL_RS_URL, PDPP_REAL_RS_TOKEN_DIR) instead of starting its own.
func TestMcpcheckRSReal(t *testing.T) {
	r := need(t)
	env := []string{"PDPP_REAL_RS_URL=" + r.URL, "PDPP_REAL_RS_TOKEN_DIR=" + filepath.Dir(r.ClientTokenFiles["gmail"])}
	adapters := map[string]string{"pdpp-mcp": pdppMCP + " --provider-url {rs_url}"}
	if root, err := realrskit.ModuleRoot(); err == nil {
		if py, err := exec.LookPath("python3"); err == nil {
			if r := filepath.Join(filepath.Dir(root), "shared", "adapters", "r", "r_adapter.py"); fileExists(r) {
				adapters["r"] = py + " -B " + r + " --provider-url {rs_url}"
			}
		}
	}
	for name, cmd := range adapters {
		for _, grant := range []string{"gmail", "github"} {
			t.Run(name+"/"+grant, func(t *testing.T) {
				code, tot, out := runMcpcheckEnv(t, env, "--rs", "real:"+grant, "--stdio", cmd, "--env", "PDPP_CLIENT_TOKEN={token}")
				fmt.Fprintf(os.Stderr, "realrs: mcpcheck --rs real:%s, %s: exit %d, %d pass, %d partial, %d required failures, %d skipped, %d n/a, %d errors; %d skipped or partial only for the fixture's control plane\n",
					grant, name, code, tot.Passed, tot.Partial, tot.Failed, tot.Skipped, tot.NotApplicable, tot.Errors, tot.OutOfScope)
				if tot.Errors > 0 || code == 2 || code == 4 || code == 5 || code == 6 {
					t.Fatalf("mcpcheck could not judge %s on the real RS (exit %d):\n%s", name, code, out)
				}
				if !strings.Contains(tot.target, "reading the real PDPP reference RS ("+grant+" grant)") {
					t.Errorf("the report's target %q does not say which RS the adapter read:\n%s", tot.target, out)
				}
				if name == "pdpp-mcp" && code != 0 {
					// Skips that wait only on the fixture's control plane are
					// outside --rs real; anything else left unjudged is not.
					t.Errorf("pdpp-mcp on the real RS with the %s grant: exit %d, want 0 (%d required failures, %d outside --rs real):\n%s", grant, code, tot.Failed, tot.OutOfScope, out)
				}
				if tot.Passed < 15 {
					t.Errorf("only %d scenarios judged passing: the real RS was not read", tot.Passed)
				}
				if name != "pdpp-mcp" {
					return // a foreign adapter's skips may say what mcpcheck could not read of it
				}
				for id, msg := range tot.skipped {
					if !slices.ContainsFunc(append(runsHint, "--rs real"), func(h string) bool { return strings.Contains(msg, h) }) {
						t.Errorf("%s is skipped without saying what would let it run: %s", id, msg)
					}
				}
			})
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
