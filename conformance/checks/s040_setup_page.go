package checks

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

var (
	tagRe       = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)
	ownerAskRe  = regexp.MustCompile(`(?i)\b(owner|admin|control[- ]plane)\b[^.\n]{0,60}\b(token|bearer|credential|cookie)`)
	bearerEnvRe = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*(TOKEN|BEARER|SECRET)\b|Authorization:`)
)

// clientCommands are the seed's copy-paste commands, by the words it
// writes them with; the rest of each is the target's.
var clientCommands = []struct{ host, prefix string }{
	{"Claude Code", "claude mcp add --transport http"},
	{"Codex", "codex mcp add"},
}

// S040 reads the connect page: the MCP URL first (clause 1), commands for
// Claude Code and Codex and the URL for remote clients (2), and an
// ordinary path without profile vocabulary or owner bearer (3). The
// scenario is the connect page's; /llms.txt is S010's and S011's. The
// witnesses are the page's own text: the MCP URL or the seed's words
// absent from it (or from the part before the first client command), or
// the forbidden phrase present.
var s040 = &Check{ID: "S040", Slug: "setup-page", Mode: ModePROC, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	a := probe.HostedDo(t.Context(), "GET", t.Hosted().Origin()+"/connect", "", nil, nil)
	if a.Err != nil || a.Status == 404 {
		t.Skipf("the target serves no setup page at /connect")
	}
	text := html.UnescapeString(tagRe.ReplaceAllString(string(a.Body), " "))
	page := conformance.Shown("the setup page /connect", text)
	url := t.Hosted().MCPURL()
	if a.Status != 200 {
		t.Clause(1, func() {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Absent(read.Text(url), conformance.Shown(fmt.Sprintf("GET /connect (HTTP %d)", a.Status), text))
			}, "GET /connect answers %d", a.Status)
		})
		return
	}
	t.Clause(1, func() {
		if !t.Shows(page, read.Text(url), "the setup page must show the MCP URL %s", url) {
			return
		}
		cmd := -1
		for _, c := range clientCommands {
			if at := strings.Index(text, c.prefix); at >= 0 && (cmd < 0 || at < cmd) {
				cmd = at
			}
		}
		if cmd < 0 {
			return // clause 2 judges the commands
		}
		before := conformance.Shown("the setup page before its first client command ("+clipText(text[cmd:], 40)+")", text[:cmd])
		t.AssertWith(read.TokenIndex(text[:cmd], url) >= 0, func() (conformance.Witness, error) { return conformance.Absent(read.Text(url), before) },
			"the MCP URL %s comes before any client-specific command", url)
	})
	t.Clause(2, func() {
		for _, c := range clientCommands {
			if !t.Shows(page, read.Text(c.prefix), "the setup page must give %s a copy-paste command (%s …)", c.host, c.prefix) {
				continue
			}
			at := strings.Index(text, c.prefix)
			line, _, _ := strings.Cut(text[at:], "\n")
			t.Shows(conformance.Shown("the setup page's "+c.host+" command", line), read.Text(url), "the %s command must carry the MCP URL %s", c.host, url)
		}
		t.AssertWith(remoteClientsGuidance(text, url), func() (conformance.Witness, error) { return conformance.Absent(read.Text("ChatGPT"), page) },
			"the setup page must tell ChatGPT and other remote MCP clients to use the MCP URL")
	})
	t.Clause(3, func() {
		for _, re := range []*regexp.Regexp{ownerAskRe, bearerEnvRe} {
			loc := re.FindStringIndex(text)
			t.AssertWith(loc == nil, func() (conformance.Witness, error) { return conformance.Present(wordEnd(text, loc), page) },
				"the ordinary path must not ask for an owner or control-plane credential, a bearer env var or header")
		}
		vocab := exposed(text, setupVocabRe)
		t.AssertWith(len(vocab) == 0, func() (conformance.Witness, error) { return conformance.Present(vocab[0], page) },
			"the ordinary path mentions no profile or toolset: %q", vocab)
	})
}}

// wordEnd is the match at loc, run on to the end of its last word
// ("token" → "tokens"): a phrase that stands in the text on its own.
func wordEnd(text string, loc []int) string {
	end := loc[1]
	for end < len(text) && (unicode.IsLetter(rune(text[end])) || unicode.IsDigit(rune(text[end])) || text[end] == '_') {
		end++
	}
	return text[loc[0]:end]
}

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
