package checks

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var ownerTokenEnv = []string{"PDPP_OWNER_TOKEN", "PDPP_OWNER_SESSION_COOKIE"}

// Seed 001: with an owner bearer in a request or the process environment,
// "the adapter SHALL reject the setup or request" (any 4xx refusal; 403 or
// a 401 challenge alike) and "SHALL NOT process the request as a normal
// MCP operation" (no JSON-RPC answer, no RS read beyond the bearer check,
// no MCP on stdout).
var s015 = &Check{ID: "S015", Slug: "owner-bearer-rejected", Mode: ModeHOST, Run: func(t *T) {
	judged := false
	if t.Target.Has(CapHTTP) {
		for _, c := range []struct{ what, token string }{{"an owner bearer", t.Target.OwnerToken}, {"a control-plane bearer", t.Target.ControlPlaneToken}} {
			if c.token == "" {
				continue
			}
			judged = true
			for _, body := range probe.RejectedBodies {
				a := probe.HostedDo(t.Context(), "POST", t.Hosted().MCPURL(), "Bearer "+c.token, body, nil)
				t.Clause(1, func() {
					t.Assert(a.Err == nil && a.Status >= 400 && a.Status < 500, "a request with %s must be refused (HTTP 4xx): HTTP %d %v", c.what, a.Status, a.Err)
				})
				t.Clause(2, func() {
					t.Assert(!probe.IsJSONRPC(a.Body), "a request with %s must never be processed as MCP: %s", c.what, clipText(string(a.Body), 200))
				})
			}
			if t.Target.Has(CapControlledRS) {
				t.Clause(2, func() {
					n := probe.RSDataRequests(t, c.token)
					t.Assert(n == 0, "the RS must serve no request but the bearer check for %s (it served %d)", c.what, n)
				})
			}
		}
	}
	if t.Target.Has(CapLocalCommand) {
		for _, k := range ownerTokenEnv {
			judged = true
			out, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{k: "mcpcheck-owner-credential"})
			t.Clause(1, func() {
				t.Assert(code != 0, "the adapter must refuse to start with %s set; stderr: %s", k, clipText(errOut, 200))
			})
			t.Clause(2, func() {
				t.Assert(strings.TrimSpace(out) == "", "with %s set, the adapter must serve no MCP on stdout: %s", k, clipText(out, 200))
			})
		}
		if t.Target.Has(CapCLI) && t.Target.Has(CapControlledRS) {
			if dir, ok := cachedOwnerCredential(t); ok {
				_, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{"PDPP_CLIENT_TOKEN": ""}, "--cache-root", dir)
				t.Clause(1, func() {
					t.Assert(code != 0, "the adapter must refuse an owner-kind cached credential; stderr: %s", clipText(errOut, 200))
				})
			}
		}
	}
	if !judged {
		t.Skipf("no owner bearer to try (pass --owner-token-file for a --url target) and no local command to start")
	}
}}

var cacheHostRe = regexp.MustCompile(`[^a-zA-Z0-9.-]`)

// cachedOwnerCredential writes a credential cache (pdpp connect's layout)
// holding an owner-kind credential for the target's RS.
func cachedOwnerCredential(t *T) (string, bool) {
	dir, err := os.MkdirTemp("", "mcpcheck-cache")
	if err != nil {
		return "", false
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	u, err := url.Parse(t.RS().URL())
	if err != nil {
		return "", false
	}
	path := filepath.Join(dir, "clients", cacheHostRe.ReplaceAllString(u.Host, "_")+".json")
	cred, _ := json.Marshal(map[string]any{"provider_url": t.RS().URL(),
		"credential": map[string]any{"access_token": "mcpcheck-owner-credential", "pdpp_token_kind": "owner"}})
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil || os.WriteFile(path, cred, 0o600) != nil {
		return "", false
	}
	return dir, true
}
