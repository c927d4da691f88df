package checks

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

var (
	advancedRe = regexp.MustCompile(`(?i)\badvanced\b`)
	// What the recommended path must not expose: profiles, toolsets,
	// full or developer tools, event-subscription management.
	setupVocabRe = regexp.MustCompile(`(?i)\bprofiles?\b|\btool-?sets?\b|--profile|\b(core|events|full)\s*[|/,]\s*(core|events|full)\b|\b(full|developer)[- ](only )?tools?\b|event[- ]subscriptions?`)
	// Copy that names such a thing only to keep it away from the path
	// ("no profiles to choose", "stays in the operator console") exposes
	// nothing.
	awayRe = regexp.MustCompile(`(?i)\b(not|never|no|none|don't|do not|without|refuse[sd]?|reject(s|ed)?|avoid|must not|cannot|outside|elsewhere|instead|separate(ly)?|stays?|remains?)\b`)
)

// Seed 001: setup "SHALL present one recommended path before advanced
// variants", and that path "SHALL NOT expose event-subscription
// management, full/developer tools, owner bearers, control-plane bearers,
// profile names, or profile selectors by default". The setup page and
// /llms.txt are the path; the hosted endpoint must not honour or name a
// profile selector either (catalog S010's proxies).
var s010 = &Check{ID: "S010", Slug: "setup-profile-free", Mode: ModePROC, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	// The setup copy is the /connect page, else /llms.txt: either is the
	// path a user is shown.
	where := "/connect"
	page, ok := probe.SetupCopy(t, where)
	if !ok {
		where = "/llms.txt"
		if page, ok = probe.SetupCopy(t, where); !ok {
			t.Skipf("the target serves no setup copy at /connect or /llms.txt")
		}
	}
	t.Clause(1, func() {
		url := t.Hosted().MCPURL()
		copyEv := conformance.Shown("the setup copy "+where, page)
		if !t.Shows(copyEv, read.Text(url), "the one recommended path starts from the MCP URL %s, which the setup copy must show", url) {
			return
		}
		first := strings.Index(page, url)
		if at := advancedRe.FindStringIndex(page); at != nil {
			t.AssertWith(first < at[0], func() (conformance.Witness, error) {
				return conformance.Present(page[at[0]:at[1]], conformance.Shown("the setup copy "+where+", before the MCP URL "+url, page[:first]))
			}, "the recommended path (the MCP URL) must come before any advanced variant: %q", clipText(page[at[0]:], 120))
		}
	})
	t.Clause(2, func() {
		copies := map[string]string{where: page}
		if llms, ok := probe.SetupCopy(t, "/llms.txt"); ok {
			copies["/llms.txt"] = llms
		}
		for where, text := range copies {
			ev := conformance.Shown(where, text)
			vocab, creds := exposed(text, setupVocabRe), exposed(text, credentialRe)
			t.AssertWith(len(vocab) == 0, func() (conformance.Witness, error) { return conformance.Present(vocab[0], ev) },
				"%s must expose no profile, toolset, full or developer tool, or event-subscription management: %q", where, vocab)
			t.AssertWith(len(creds) == 0, func() (conformance.Witness, error) { return conformance.Present(creds[0], ev) },
				"%s must not offer owner or control-plane bearers: %q", where, creds)
		}
		expectNoHTTPProfiles(t)
	})
}}

// exposed returns the phrases of text that name what re matches, other
// than to keep it away.
func exposed(text string, re *regexp.Regexp) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, p := range probe.Sentences(line) {
			if re.MatchString(p) && !awayRe.MatchString(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// expectNoHTTPProfiles asks the hosted endpoint for a "full" profile by
// header and by query: the answer must be the same surface, and no
// response header may name a profile.
func expectNoHTTPProfiles(t *T) {
	token := t.Target.BearerToken()
	for _, selector := range []struct {
		url    string
		header map[string]string
	}{
		{t.Hosted().MCPURL(), map[string]string{"X-PDPP-MCP-Profile": "full", "X-MCP-Toolsets": "all"}},
		{t.Hosted().MCPURL() + "?profile=full&toolsets=all", nil},
	} {
		a := probe.HostedDo(t.Context(), "POST", selector.url, "Bearer "+token, probe.ToolsListBody, selector.header)
		var rpc struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if a.Err != nil || a.Status != 200 || json.Unmarshal(a.Body, &rpc) != nil {
			// Refusing a selector exposes none.
			continue
		}
		var names []string
		for _, tool := range rpc.Result.Tools {
			names = append(names, tool.Name)
		}
		answer := conformance.Shown("tools/list with the profile selector "+selector.url, strings.Join(names, " "))
		for _, name := range names {
			t.AssertWith(slices.Contains(probe.ToolNames(t.Target), name), func() (conformance.Witness, error) { return conformance.Present(name, answer) },
				"no header or query may select another tool surface: %v, not %v", names, probe.ToolNames(t.Target))
		}
		for k := range a.Header {
			t.AssertWith(!profileKeyRe.MatchString(k), func() (conformance.Witness, error) {
				return conformance.Present(k, conformance.Shown("the response headers of POST "+selector.url, k))
			}, "response header %s names a profile", k)
		}
	}
}
