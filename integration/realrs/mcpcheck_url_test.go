package realrs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// zeroRequiredFailures are the tokens issue 29 requires a clean run with.
var zeroRequiredFailures = map[string]bool{"gmail": true, "github": true}

// runsHint is what a skip on a --url target must say: what would let the
// scenario run (a capability, or data the grant lacks). Truth comes from the fixture mcpcheck controls (issue 33),
// so without --rs-control the by-value checks skip, saying so, instead of
// judging by what the target itself shows.
var runsHint = []string{"--rs-control", "--stdio", "fixture RS", "would let it run", "a local adapter command", "CLI",
	// or what the grant lacks: a deployment whose grant has it runs them
	"the target's grant has no", "in two or more connections"}

// totals is the totals object of mcpcheck's --json report.
type totals struct {
	Scenarios     int `json:"scenarios"`
	Passed        int `json:"passed"`
	Partial       int `json:"partial"`
	Failed        int `json:"failed"`
	Skipped       int `json:"skipped"`
	NotApplicable int `json:"not_applicable"`
	Errors        int `json:"errors"`
	OutOfScope    int `json:"out_of_scope"`
	// skippedIDs are the ids of the skipped scenarios, from the report's
	// rows, and skipped their messages.
	skippedIDs []string
	skipped    map[string]string
	// target is the report's target line, unwrapped (the text head wraps
	// it at the report's width, which depends on the checkout's path).
	target string
}

// TestMcpcheckURL runs `mcpcheck --url` against `pdpp-mcp serve` on the real
// RS with each client token (lending the owner token, so S015 runs) and
// with the owner token, which the endpoint must refuse.
func TestMcpcheckURL(t *testing.T) {
	r := need(t)
	endpoint := serve(t, r)
	for _, conn := range r.Connectors() {
		t.Run(conn, func(t *testing.T) {
			args := []string{"--url", endpoint, "--token-file", r.ClientTokenFiles[conn]}
			if r.OwnerTokenFile != "" {
				args = append(args, "--owner-token-file", r.OwnerTokenFile)
			}
			code, tot, out := runMcpcheck(t, args...)
			fmt.Fprintf(os.Stderr, "realrs: mcpcheck --url, %s token: exit %d, %d pass, %d partial, %d required failures, %d skipped %v, %d n/a, %d errors\n",
				conn, code, tot.Passed, tot.Partial, tot.Failed, tot.Skipped, tot.skippedIDs, tot.NotApplicable, tot.Errors)
			if tot.Errors > 0 || code == 4 || code == 5 || code == 6 {
				t.Errorf("mcpcheck could not judge the endpoint (exit %d):\n%s", code, out)
			}
			if zeroRequiredFailures[conn] && tot.Failed > 0 {
				t.Errorf("with the %s token, want 0 required failures, got %d:\n%s", conn, tot.Failed, out)
			}
			for id, msg := range tot.skipped {
				if !slices.ContainsFunc(runsHint, func(h string) bool { return strings.Contains(msg, h) }) {
					t.Errorf("with the %s token, %s is skipped without saying what would let it run: %s", conn, id, msg)
				}
			}
		})
	}
	t.Run("owner", func(t *testing.T) {
		if r.OwnerTokenFile == "" {
			t.Skip("no owner_token beside the client tokens")
		}
		code, _, out := runMcpcheck(t, "--url", endpoint, "--token-file", r.OwnerTokenFile)
		fmt.Fprintf(os.Stderr, "realrs: mcpcheck --url, owner token: exit %d\n", code)
		if code != 5 {
			t.Errorf("the owner token must be refused (exit 5, authentication rejected), got exit %d:\n%s", code, out)
		}
	})
}

// runMcpcheck runs mcpcheck with args and --json, and returns its exit
// code, its totals and its text report.
func runMcpcheck(t *testing.T, args ...string) (int, totals, string) {
	t.Helper()
	return runMcpcheckEnv(t, nil, args...)
}

// runMcpcheckEnv is runMcpcheck with env added to mcpcheck's environment.
func runMcpcheckEnv(t *testing.T, env []string, args ...string) (int, totals, string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpcheck, append(args, "--json", report)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpcheck: %v\n%s", err, out)
	}
	var rep struct {
		Target    string `json:"target"`
		Totals    totals `json:"totals"`
		Scenarios []struct {
			ID     string `json:"id"`
			Result struct {
				Verdict string `json:"verdict"`
				Message string `json:"message"`
			} `json:"result"`
		} `json:"scenarios"`
	}
	if b, err := os.ReadFile(report); err == nil {
		_ = json.Unmarshal(b, &rep)
	}
	for _, sc := range rep.Scenarios {
		if sc.Result.Verdict == "skip" {
			rep.Totals.skippedIDs = append(rep.Totals.skippedIDs, sc.ID)
			if rep.Totals.skipped == nil {
				rep.Totals.skipped = map[string]string{}
			}
			rep.Totals.skipped[sc.ID] = sc.Result.Message
		}
	}
	rep.Totals.target = rep.Target
	return code, rep.Totals, string(out)
}
