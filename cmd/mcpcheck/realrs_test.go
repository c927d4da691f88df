package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

func TestRealRSUsageErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"not stdio":         {[]string{"--rs", "real"}, "needs --stdio"},
		"url":               {[]string{"--rs", "real", "--url", "http://x/mcp"}, "needs --stdio"},
		"unknown kind":      {[]string{"--rs", "mirror", "--stdio", "true"}, "want fixture or real"},
		"unknown grant":     {[]string{"--rs", "real:slack", "--stdio", "true"}, "gmail, github, reddit"},
		"with a fixture":    {[]string{"--rs", "real", "--stdio", "true", "--fixture", "single-connection"}, "--fixture"},
		"url without token": {[]string{"--rs", "real", "--stdio", "true"}, "PDPP_REAL_RS_TOKEN_DIR"},
	} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			if name == "url without token" {
				env["PDPP_REAL_RS_URL"] = "http://127.0.0.1:1"
			}
			code, _, stderr := run(t, env, c.args...)
			if code != conformance.ExitUsage || !strings.Contains(stderr, c.says) {
				t.Errorf("exit %d, want 2 saying %q; stderr %q", code, c.says, stderr)
			}
		})
	}
}

// A real RS that does not answer is an unreachable target (exit 4), said
// before any check runs; the tokens it was given are never printed.
func TestRealRSUnreachable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "client_token_gmail"), []byte("secret_gmail_token_0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, map[string]string{"PDPP_REAL_RS_URL": "http://127.0.0.1:1", "PDPP_REAL_RS_TOKEN_DIR": dir}, "--rs", "real", "--stdio", "true")
	if code != conformance.ExitUnreachable || !strings.Contains(stderr, "does not answer") {
		t.Errorf("exit %d, want 4 saying the RS does not answer:\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(out+stderr, "secret_gmail_token") {
		t.Error("the real RS's token was printed")
	}
}

// A real RS whose grant has no token for the chosen connector says so.
func TestRealRSMissingGrant(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"data":[]}`)) }))
	defer srv.Close()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "client_token_gmail"), []byte("g"), 0o600)
	spec := conformance.TargetSpec{Stdio: "true"}
	_, err := startRealRS(context.Background(), &spec, "github", func(k string) string {
		return map[string]string{"PDPP_REAL_RS_URL": srv.URL, "PDPP_REAL_RS_TOKEN_DIR": dir}[k]
	}, os.Stderr)
	if err == nil || !strings.Contains(err.Error(), "no github client token") || spec.RS != nil {
		t.Errorf("startRealRS = %v, spec.RS %v; want an error naming the missing github token", err, spec.RS)
	}
}
