package checks

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var ownerTokenEnv = []string{"PDPP_OWNER_TOKEN", "PDPP_OWNER_SESSION_COOKIE"}

var s015 = &Check{ID: "S015", Slug: "owner-bearer-rejected", Mode: ModeHOST, Run: func(t *T) {
	judged := 0
	if t.Target.Has(CapHTTP) {
		for _, c := range []struct{ what, token string }{{"an owner bearer", t.Target.OwnerToken}, {"a control-plane bearer", t.Target.ControlPlaneToken}} {
			if c.token == "" {
				continue
			}
			judged++
			for _, body := range rejectedBodies {
				a := hostedDo(t.Context(), "POST", t.Hosted().MCPURL(), "Bearer "+c.token, body, nil)
				t.Expect(a.Err).NotTo(HaveOccurred())
				t.Expect(a.Status).To(Equal(403), "%s must be refused with HTTP 403", c.what)
				t.Expect(isJSONRPC(a.Body)).To(BeFalse(), "a request with %s must never be processed as MCP", c.what)
				e, _ := a.JSON()["error"].(map[string]any)
				t.Expect(e["code"]).NotTo(BeEmpty(), "the refusal must be a typed error")
				t.Expect(strings.Contains(string(a.Body), c.token)).To(BeFalse(), "the refusal must not echo the bearer")
			}
			if t.Target.Has(CapControlledRS) {
				t.Expect(rsDataRequests(t, c.token)).To(BeZero(), "the RS must serve no request but the auth probe for %s", c.what)
			}
		}
	}
	if t.Target.Has(CapLocalCommand) {
		for _, k := range ownerTokenEnv {
			judged++
			out, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{k: "mcpcheck-owner-credential"})
			t.Expect(code).NotTo(BeZero(), "the adapter must refuse to start with %s set; stderr: %s", k, clipText(errOut, 200))
			t.Expect(strings.TrimSpace(out)).To(BeEmpty(), "a refused start writes nothing to stdout")
		}
		if t.Target.Has(CapCLI) && t.Target.Has(CapControlledRS) {
			judged++
			dir := cachedOwnerCredential(t)
			_, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{"PDPP_CLIENT_TOKEN": ""}, "--cache-root", dir)
			t.Expect(code).NotTo(BeZero(), "the adapter must refuse an owner-kind cached credential; stderr: %s", clipText(errOut, 200))
			t.Expect(strings.ToLower(errOut)).To(ContainSubstring("owner"), "the refusal must say why")
		}
	}
	if judged == 0 {
		t.Skipf("no owner bearer to try (pass --owner-token-file for a --url target) and no local command to start")
	}
}}

var cacheHostRe = regexp.MustCompile(`[^a-zA-Z0-9.-]`)

// cachedOwnerCredential writes a credential cache (pdpp connect's layout)
// holding an owner-kind credential for the target's RS.
func cachedOwnerCredential(t *T) string {
	dir, err := os.MkdirTemp("", "mcpcheck-cache")
	t.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	u, err := url.Parse(t.RS().URL())
	t.Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(dir, "clients", cacheHostRe.ReplaceAllString(u.Host, "_")+".json")
	t.Expect(os.MkdirAll(filepath.Dir(path), 0o700)).To(Succeed())
	cred, _ := json.Marshal(map[string]any{"provider_url": t.RS().URL(),
		"credential": map[string]any{"access_token": "mcpcheck-owner-credential", "pdpp_token_kind": "owner"}})
	t.Expect(os.WriteFile(path, cred, 0o600)).To(Succeed())
	return dir
}
