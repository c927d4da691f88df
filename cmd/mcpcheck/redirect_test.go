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
		cases = append(cases, redirectCase{"url/" + mode, mode, "--url"}, redirectCase{"rs-control/" + mode, mode, "--rs-control"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &hostile.Recorder{Next: &hostile.Server{Mode: hostile.HangOnCall}}
			other := httptest.NewServer(rec)
			defer other.Close()
			srv := httptest.NewServer(&hostile.Server{Mode: tc.mode, RedirectTo: other.URL + "/mcp"})
			defer srv.Close()
			args := []string{"--url", srv.URL + "/mcp", "--timeout", "3s", "--json", filepath.Join(t.TempDir(), "r.json")}
			if tc.flag == "--rs-control" {
				args = append(args, "--rs-control", srv.URL+"/_fixture/")
			}
			code, out, stderr := run(t, env, args...)
			if code != conformance.ExitUnreachable {
				t.Errorf("exit %d, want %d\n%s\n%s", code, conformance.ExitUnreachable, out, stderr)
			}
			want := "redirected to another origin (" + srv.URL + " to " + other.URL + "); mcpcheck sends the bearer only to the origin you named"
			if n := strings.Count(out, want); n != 1 {
				t.Errorf("the report says %d times %q, want once:\n%s", n, want, out)
			}
			for _, a := range rec.Authorizations() {
				if a != "" {
					t.Errorf("the other origin received Authorization %q", a)
				}
			}
		})
	}
}
