package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/redact"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// A broken adapter's report is short and causal: the root cause in its
// first lines with the ids it blocks, each blocked row in one line, no Go
// type text, 150 lines at most; --verbose gives everything.
func TestBrokenAdapterReportNamesItsRootCauseFirst(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--stdio", self, "--env", hostile.Env + "=" + hostile.Naive, "--timeout", "5s"}
	code, out, stderr := run(t, nil, args...)
	if code != conformance.ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 150 {
		t.Errorf("%d lines, want 150 at most", len(lines))
	}
	// The head's dialect block (what was inferred of the target's argument
	// names) may stand above the root causes.
	var first []string
	inDialect := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "dialect"):
			inDialect = true
		case inDialect && strings.HasPrefix(l, " "):
		default:
			inDialect = false
			first = append(first, l)
		}
	}
	head := strings.Join(first[:min(8, len(first))], "\n")
	if !strings.Contains(head, "Root causes:") || !strings.Contains(head, "S013-connection-id-args") || !strings.Contains(head, "blocks ") {
		t.Errorf("the first lines do not name the root cause:\n%s", head)
	}
	blocked := 0
	for i, l := range lines {
		if strings.HasSuffix(l, "blocked by S013") {
			blocked++
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "     ") {
				t.Errorf("blocked row %q has details under it: %q", l, lines[i+1])
			}
		}
	}
	if blocked < 20 {
		t.Errorf("%d one-line rows blocked by S013, want the ~30 the naive adapter blocks (it declares no connection_id):\n%s", blocked, out)
	}
	for _, bad := range []string{"len:", "cap:", "<[]", "<string>", "format.MaxLength"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report holds Go type text %q", bad)
		}
	}
	_, verbose, _ := run(t, nil, append(args, "--verbose")...)
	if n := strings.Count(verbose, "\n"); n <= len(lines) {
		t.Errorf("--verbose gave %d lines, the default %d: want everything", n, len(lines))
	}
}

// A crashed adapter shows the end of its stderr, where a Python traceback
// says what broke, bounded and redacted, in the text and JSON reports.
func TestCrashedAdapterShowsTheEndOfItsStderr(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{hostile.PythonCrash, hostile.PythonCrashMidCall} {
		t.Run(mode, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "report.json")
			code, out, stderr := run(t, nil, "--stdio", self, "--env", hostile.Env+"="+mode, "--timeout", "5s", "--json", js)
			if code != conformance.ExitUnreachable {
				t.Fatalf("exit %d, want 4\n%s\n%s", code, out, stderr)
			}
			if !strings.Contains(out, "its stderr ends (20 lines):") || !strings.Contains(out, "ModuleNotFoundError: No module named 'pdpp_client'") ||
				!strings.Contains(out, `File "/srv/adapter/layer11.py"`) || strings.Contains(out, "Traceback (most recent call last)") {
				t.Errorf("want the last 20 lines of the traceback:\n%s", out)
			}
			if n := strings.Count(out, "\n"); n > 150 {
				t.Errorf("%d lines, want 150 at most", n)
			}
			var rep conformance.Report
			data, err := os.ReadFile(js)
			if err != nil || json.Unmarshal(data, &rep) != nil || rep.TargetError == nil {
				t.Fatalf("JSON report lost: %v", err)
			}
			tail := rep.TargetError.StderrTail
			if len(tail) != 20 || tail[len(tail)-1] != "ModuleNotFoundError: No module named 'pdpp_client'" || tail[len(tail)-2] != "DEBUG request had token="+redact.Replacement {
				t.Errorf("stderr_tail %q, want the traceback's last 20 lines, the token redacted", tail)
			}
			if !strings.Contains(out, "DEBUG request had token="+redact.Replacement) {
				t.Errorf("the text report does not redact the token:\n%s", out)
			}
		})
	}
}
