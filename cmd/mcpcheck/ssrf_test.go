package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// A target's 401 challenge cannot make mcpcheck read another URL and
// publish it: U13 fetches a challenge's metadata only on the target's own
// origin, follows no redirect off it, and prints no fetched body. A secret
// served on loopback, where the challenge points directly or by redirect,
// is never requested and appears in no report.
func TestChallengeCannotMakeMCPCheckReadElsewhere(t *testing.T) {
	const planted = "PLANTED-instance-credential-7c1e55"
	var hits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"resource":"not-the-endpoint","AccessKeyId":"` + planted + `","SecretAccessKey":"` + planted + `"}`))
	}))
	t.Cleanup(elsewhere.Close)
	for _, mode := range hostile.ChallengeModes {
		t.Run(mode, func(t *testing.T) {
			srv := httptest.NewServer(&hostile.Server{Mode: mode, Token: "ssrf-test-bearer", RedirectTo: elsewhere.URL + "/latest/meta-data/iam/security-credentials/role"})
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			js, junit := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
			_, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "ssrf-test-bearer"}, "--url", srv.URL+"/mcp", "--timeout", "5s", "--json", js, "--junit", junit, "U13")
			if !strings.Contains(out, "U13") || !strings.Contains(out, "was not read") {
				t.Errorf("the report does not say the metadata was not read:\n%s\n%s", out, stderr)
			}
			texts := map[string]string{"stdout": out, "stderr": stderr}
			for name, path := range map[string]string{"JSON": js, "JUnit": junit} {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				texts[name] = string(data)
			}
			for name, text := range texts {
				if strings.Contains(text, planted) || strings.Contains(text, "AccessKeyId") {
					t.Errorf("the %s report holds what the other URL served", name)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the URL the challenge named was requested %d times", n)
	}
}
