package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// controlledRS serves the fixture with its control plane, and the
// reference adapter in front of it, as a deployed pair would run.
func controlledRS(t *testing.T) (mcpURL, controlURL, controlToken string) {
	t.Helper()
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	tok, err := hosted.RS.EnableControl()
	if err != nil {
		t.Fatal(err)
	}
	return hosted.MCPURL, hosted.RSURL + fakers.ControlPrefix, tok
}

func TestRSControlRunsControlledChecksOnURL(t *testing.T) {
	mcpURL, ctl, tok := controlledRS(t)
	file := filepath.Join(t.TempDir(), "ctl")
	_ = os.WriteFile(file, []byte(tok+"\n"), 0o600)
	code, out, stderr := run(t, nil, "--url", mcpURL, "--rs-control", ctl, "--rs-control-token-file", file, "--no-footprint", "S009", "S045", "S032")
	if code != conformance.ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, id := range []string{"S009", "S045", "S032"} {
		if !regexp.MustCompile(`(?m)^\s+PASS\s+\S+\s+` + id + `-`).MatchString(out) {
			t.Errorf("%s did not pass:\n%s", id, out)
		}
	}
	if strings.Contains(out+stderr, tok) {
		t.Error("the control token was printed")
	}

	// Unauthorised and unreachable control planes stop the run, typed.
	code, out, stderr = run(t, map[string]string{"MCPCHECK_RS_CONTROL_TOKEN": "fixturectl_wrong_secret"}, "--url", mcpURL, "--rs-control", ctl, "S009")
	if code != conformance.ExitAuth || !strings.Contains(stderr+out, "control token rejected") || strings.Contains(out+stderr, "fixturectl_wrong_secret") {
		t.Errorf("wrong token: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, map[string]string{"MCPCHECK_RS_CONTROL_TOKEN": tok}, "--url", mcpURL, "--rs-control", "http://127.0.0.1:1/_fixture/", "--timeout", "2s", "S009")
	if code != conformance.ExitUnreachable || !strings.Contains(stderr+out, "cannot reach the fixture RS control plane") {
		t.Errorf("unreachable: exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestRSControlUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"control without url":   {"--rs-control", "http://x/_fixture/"},
		"token file alone":      {"--url", "http://x/mcp", "--rs-control-token-file", "t"},
		"control not a url":     {"--url", "http://x/mcp", "--rs-control", "x/_fixture/"},
		"control without token": {"--url", "http://x/mcp", "--rs-control", "http://x/_fixture/"},
		"missing token file":    {"--url", "http://x/mcp", "--rs-control", "http://x/_fixture/", "--rs-control-token-file", "/nonexistent"},
	} {
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := run(t, nil, args...); code != conformance.ExitUsage || !strings.HasPrefix(stderr, "mcpcheck: ") {
				t.Errorf("exit %d, want 2; stderr %q", code, stderr)
			}
		})
	}
}
