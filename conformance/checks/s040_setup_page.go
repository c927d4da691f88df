package checks

import (
	"html"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	tagRe       = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)
	ownerAskRe  = regexp.MustCompile(`(?i)\b(owner|admin|control[- ]plane)\b[^.\n]{0,60}\b(token|bearer|credential|cookie)`)
	bearerEnvRe = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*(TOKEN|BEARER|SECRET)\b|Authorization:`)
)

// setupText is the setup page as a reader sees it: text without markup.
func setupText(t *T) (string, bool) {
	a := hostedDo(t.Context(), "GET", t.Hosted().Origin()+"/connect", "", nil, nil)
	if a.Status == 404 || a.Err != nil {
		return "", false
	}
	t.Expect(a.Status).To(Equal(200), "GET /connect")
	return html.UnescapeString(tagRe.ReplaceAllString(string(a.Body), " ")), true
}

var s040 = &Check{ID: "S040", Slug: "setup-page", Mode: ModePROC, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	text, ok := setupText(t)
	if !ok {
		t.Skipf("the target serves no setup page at /connect")
	}
	url := t.Hosted().MCPURL()
	claude := "claude mcp add --transport http pdpp " + url
	codex := "codex mcp add pdpp --url " + url
	first := strings.Index(text, url)
	t.Expect(first).To(BeNumerically(">=", 0), "the setup page must show the MCP URL %s", url)
	for _, cmd := range []string{claude, codex} {
		at := strings.Index(text, cmd)
		t.Expect(at).To(BeNumerically(">=", 0), "the setup page must show the command %q", cmd)
		t.Expect(first).To(BeNumerically("<", at), "the MCP URL comes before any client-specific command")
	}
	t.Expect(remoteClientsGuidance(text, url)).To(BeTrue(), "the setup page must tell ChatGPT and other remote MCP clients to use the MCP URL")
	t.Expect(ownerAskRe.FindString(text)).To(BeEmpty(), "the ordinary path must not ask for an owner or control-plane credential")
	t.Expect(bearerEnvRe.FindString(text)).To(BeEmpty(), "the ordinary path must not ask for a bearer env var or header")
	llms := hostedDo(t.Context(), "GET", t.Hosted().Origin()+"/llms.txt", "", nil, nil)
	t.Expect(llms.Err).NotTo(HaveOccurred())
	t.Expect(llms.Status).To(Equal(200), "the agent-readable entrypoint /llms.txt must answer")
	for _, want := range []string{url, claude, codex} {
		t.Expect(string(llms.Body)).To(ContainSubstring(want), "/llms.txt must give the resolved MCP URL and both commands")
	}
	t.Expect(remoteClientsGuidance(string(llms.Body), url)).To(BeTrue(), "/llms.txt must tell ChatGPT and other remote MCP clients to use the MCP URL")
}}

var urlWordRe = regexp.MustCompile(`\bURL\b`)

// remoteClientsGuidance reports whether a text tells ChatGPT and other
// remote clients to use the MCP URL: "remote" and the URL itself or "the …
// URL" follow the ChatGPT mention closely.
func remoteClientsGuidance(text, url string) bool {
	at := strings.Index(text, "ChatGPT")
	if at < 0 {
		return false
	}
	sec := text[at:min(len(text), at+300)]
	return strings.Contains(sec, "remote") && (strings.Contains(sec, url) || urlWordRe.MatchString(sec))
}
