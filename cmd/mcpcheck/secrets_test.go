package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Every token mcpcheck is lent stays out of every report, even when the
// target fails checks and echoes a bearer back in its errors.
func TestTokensNeverAppearInReports(t *testing.T) {
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	rsURL, shutdown, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	secrets := map[string]string{"token": rs.ClientToken(), "owner": rs.OwnerToken(), "expired": rs.ExpiredToken(), "foreign": rs.ForeignResourceToken()}
	dir := t.TempDir()
	for name, tok := range secrets {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []adapter.Mutant{adapter.EchoBearerInErrors, adapter.AcceptOwnerBearer} {
		t.Run(string(m), func(t *testing.T) {
			a, err := adapter.New(adapter.Options{ProviderURL: rsURL, Mutant: m})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(a.Handler())
			defer srv.Close()
			junit, js := filepath.Join(dir, string(m)+".xml"), filepath.Join(dir, string(m)+".json")
			code, out, stderr := run(t, nil, "--url", srv.URL+adapter.MCPPath, "--token-file", filepath.Join(dir, "token"),
				"--owner-token-file", filepath.Join(dir, "owner"), "--expired-token-file", filepath.Join(dir, "expired"),
				"--foreign-token-file", filepath.Join(dir, "foreign"), "--junit", junit, "--json", js)
			if code != conformance.ExitFail {
				t.Fatalf("exit %d, want %d (the mutant fails checks)\n%s\n%s", code, conformance.ExitFail, out, stderr)
			}
			outputs := map[string]string{"text": out, "stderr": stderr}
			for _, f := range []string{junit, js} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				outputs[filepath.Ext(f)] = string(b)
			}
			if m == adapter.EchoBearerInErrors && !strings.Contains(outputs[".json"], "[redacted]") {
				t.Errorf("the echoed bearer should show as [redacted] in the JSON report: the test would not see a leak")
			}
			for where, text := range outputs {
				for name, tok := range secrets {
					if strings.Contains(text, tok) {
						t.Errorf("the %s output holds the %s token", where, name)
					}
				}
			}
		})
	}
}
