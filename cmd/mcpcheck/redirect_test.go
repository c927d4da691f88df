package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// A redirect to another origin never carries a bearer there: neither the
// MCP session's nor the control plane's. The run ends with exit 4 and one
// reason, and the other origin records no Authorization header.
func TestBearersStayOnTheirOrigin(t *testing.T) {
	env := map[string]string{"MCPCHECK_TOKEN": "mcpcheck-redirect-bearer", "MCPCHECK_RS_CONTROL_TOKEN": "mcpcheck-redirect-control"}
	type redirectCase struct{ name, mode, flag string }
	var cases []redirectCase
	for _, mode := range hostile.RedirectModes {
		for _, flag := range []string{"--url", "--rs-control", "footprint", "bench"} {
			cases = append(cases, redirectCase{strings.TrimPrefix(flag, "--") + "/" + mode, mode, flag})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &hostile.Recorder{Next: &hostile.Server{Mode: hostile.HangOnCall}}
			other := httptest.NewServer(rec)
			defer other.Close()
			srv := httptest.NewServer(&hostile.Server{Mode: tc.mode, RedirectTo: other.URL + "/mcp"})
			defer srv.Close()
			args := []string{"--url", srv.URL + "/mcp", "--timeout", "3s"}
			switch tc.flag {
			case "--url":
				args = append(args, "--json", filepath.Join(t.TempDir(), "r.json"))
			case "--rs-control":
				args = append(args, "--rs-control", srv.URL+"/_fixture/")
			default: // a subcommand
				args = append([]string{tc.flag}, args...)
			}
			if tc.flag == "bench" {
				args = append(args, "--samples", "2", "--startup-runs", "-1", "--scale", "-")
			}
			code, out, stderr := run(t, env, args...)
			if code != conformance.ExitUnreachable {
				t.Errorf("exit %d, want %d\n%s\n%s", code, conformance.ExitUnreachable, out, stderr)
			}
			want := "redirected to another origin (" + srv.URL + " to " + other.URL + "); mcpcheck sends the bearer only to the origin you named"
			// The text report wraps long lines: compare words.
			if n := strings.Count(strings.Join(strings.Fields(out+stderr), " "), want); n != 1 {
				t.Errorf("stdout and stderr say %d times %q, want once:\n%s\n%s", n, want, out, stderr)
			}
			for _, a := range rec.Authorizations() {
				if a != "" {
					t.Errorf("the other origin received Authorization %q", a)
				}
			}
		})
	}
}
