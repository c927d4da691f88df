package checks

import (
	"html"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var (
	tagRe       = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)
	ownerAskRe  = regexp.MustCompile(`(?i)\b(owner|admin|control[- ]plane)\b[^.\n]{0,60}\b(token|bearer|credential|cookie)`)
	bearerEnvRe = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*(TOKEN|BEARER|SECRET)\b|Authorization:`)
)

// setupText is the setup page as a reader sees it: text without markup.
func setupText(t *T) (text string, status int) {
	a := probe.HostedDo(t.Context(), "GET", t.Hosted().Origin()+"/connect", "", nil, nil)
	if a.Err != nil {
		return "", 0
	}
	return html.UnescapeString(tagRe.ReplaceAllString(string(a.Body), " ")), a.Status
}

// S040 reads the connect page: the MCP URL first (clause 1), commands for
// Claude Code and Codex and the URL for remote clients (2), and an
// ordinary path without profile vocabulary or owner bearer (3). The
// scenario is the connect page's; /llms.txt is S010's and S011's.
var s040 = &Check{ID: "S040", Slug: "setup-page", Mode: ModePROC, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	text, status := setupText(t)
	if status == 404 || status == 0 {
		t.Skipf("the target serves no setup page at /connect")
	}
	if status != 200 {
		t.Clause(1, func() { t.Fail("GET /connect answers %d", status) })
		return
	}
	url := t.Hosted().MCPURL()
	claude := "claude mcp add --transport http pdpp " + url
	codex := "codex mcp add pdpp --url " + url
	first := strings.Index(text, url)
	t.Clause(1, func() {
		if !t.Assert(first >= 0, "the setup page must show the MCP URL %s", url) {
			return
		}
		for _, cmd := range []string{claude, codex} {
			if at := strings.Index(text, cmd); at >= 0 {
				t.Assert(first < at, "the MCP URL comes before any client-specific command (%q)", cmd)
			}
		}
	})
	t.Clause(2, func() {
		for _, cmd := range []string{claude, codex} {
			t.Assert(strings.Contains(text, cmd), "the setup page must show the command %q", cmd)
		}
		t.Assert(remoteClientsGuidance(text, url), "the setup page must tell ChatGPT and other remote MCP clients to use the MCP URL")
	})
	t.Clause(3, func() {
		t.Assert(ownerAskRe.FindString(text) == "", "the ordinary path must not ask for an owner or control-plane credential: %q", ownerAskRe.FindString(text))
		t.Assert(bearerEnvRe.FindString(text) == "", "the ordinary path must not ask for a bearer env var or header: %q", bearerEnvRe.FindString(text))
		vocab := exposed(text, setupVocabRe)
		t.Assert(len(vocab) == 0, "the ordinary path mentions no profile or toolset: %q", vocab)
	})
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
