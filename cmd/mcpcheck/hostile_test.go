package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// TestMain doubles as a hostile stdio MCP server when MCPCHECK_HOSTILE names
// a mode, so the CLI can be pointed at one with --stdio.
// With MCPCHECK_TEST_AS_MCPCHECK set it is mcpcheck itself, so bench can
// run the reference adapter as its child (`<binary> pdpp-mcp …`).
func TestMain(m *testing.M) {
	if mode := os.Getenv(hostile.Env); mode != "" {
		hostile.RunStdio(mode, os.Stdin, os.Stdout)
		os.Exit(0)
	}
	if os.Getenv(asMCPCheckEnv) != "" {
		os.Exit(execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	}
	if os.Getenv(asMainEnv) != "" { // as main runs it, signals included
		os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	}
	os.Exit(m.Run())
}

const asMCPCheckEnv = "MCPCHECK_TEST_AS_MCPCHECK"

// The CLI against hostile targets: exit 4 within a bounded time, one
// TARGET ERROR line in the text report, and the JSON report still written.
func TestCLIAgainstHostileTargets(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := func(mode string) string {
		srv := httptest.NewUnstartedServer(nil)
		srv.Config.Handler = &hostile.Server{Mode: mode, Hold: 30 * time.Second, Crash: func() { srv.Listener.Close() }}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	stdio := []string{"--stdio", self, "--timeout", "3s", "--env"}
	cases := []struct {
		name   string
		args   []string
		reason string
	}{
		{"stdio crash mid-call", append(stdio, hostile.Env+"="+hostile.CrashMidCall), "the command exited (exit status 2)"},
		{"stdio hang after initialize", append(stdio, hostile.Env+"="+hostile.HangAfterInit), "tools/list: no answer within 3s"},
		{"stdio hang on tools/call", append(stdio, hostile.Env+"="+hostile.HangOnCall), "stopped serving during the run"},
		{"stdio invalid JSON-RPC", append(stdio, hostile.Env+"="+hostile.InvalidVersion), `invalid message version tag "1.0"`},
		{"http 100 MB tools/list", []string{"--url", server(hostile.HugeToolsList), "--timeout", "3s"}, "exceeds the wire tap's size limit"},
		{"http crash mid-call", []string{"--url", server(hostile.CrashMidCall), "--timeout", "3s"}, "stopped serving during the run"},
		{"http garbage", []string{"--url", server(hostile.Garbage), "--timeout", "3s"}, `unsupported content type "text/html"`},
		// 32 MB to read first: time enough for it on a busy machine.
		{"stdio endless pagination", append(append([]string(nil), stdio...), hostile.Env+"="+hostile.EndlessPagination, "--timeout", "20s"), "tools/list: more than 32 MB across pages"},
		{"http endless pagination", []string{"--url", server(hostile.EndlessPagination), "--timeout", "20s"}, "tools/list: more than 32 MB across pages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			js := filepath.Join(t.TempDir(), "report.json")
			start := time.Now()
			code, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "tok"}, append(tc.args, "--json", js)...)
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %s", took)
			}
			if code != conformance.ExitUnreachable {
				t.Errorf("exit %d, want 4; stderr %q", code, stderr)
			}
			var lines []string // a long reason wraps onto indented lines
			for _, l := range strings.Split(out, "\n") {
				switch {
				case strings.HasPrefix(l, "TARGET ERROR (unreachable): "):
					lines = append(lines, l)
				case len(lines) > 0 && strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "     "):
					lines[len(lines)-1] += " " + strings.TrimSpace(l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], tc.reason) {
				t.Errorf("TARGET ERROR lines %q, want one containing %q", lines, tc.reason)
			}
			if !strings.HasSuffix(out, "exit 4 (target unreachable)\n") {
				t.Errorf("report does not end with the exit line:\n%s", out)
			}
			var rep conformance.Report
			data, err := os.ReadFile(js)
			if err != nil || json.Unmarshal(data, &rep) != nil || rep.TargetError == nil {
				t.Errorf("JSON report lost or without target_error: %v", err)
			}
		})
	}
}

// bench against a target that hangs or crashes mid-call ends within its
// bounds and exits 4: no tool could be measured.
func TestBenchAgainstHostileTargets(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = &hostile.Server{Mode: hostile.CrashMidCall, Hold: 30 * time.Second, Crash: func() { srv.Listener.Close() }}
	srv.Start()
	t.Cleanup(srv.Close)
	quick := []string{"--timeout", "2s", "--samples", "3", "--duration", "100ms", "--concurrency", "1", "--startup-runs", "-1", "--scale", "-", "--tools", "schema,search"}
	for name, args := range map[string][]string{
		"stdio hang on tools/call": {"--stdio", self, "--env", hostile.Env + "=" + hostile.HangOnCall},
		"http crash mid-call":      {"--url", srv.URL + "/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			code, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "tok"}, append(append([]string{"bench"}, args...), quick...)...)
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %s", took)
			}
			if code != conformance.ExitUnreachable {
				t.Errorf("exit %d, want 4; stdout %s\nstderr %q", code, out, stderr)
			}
			if !strings.Contains(out, "schema") || !strings.Contains(out, "search") {
				t.Errorf("the table must still name the failed tools:\n%s", out)
			}
		})
	}
}
