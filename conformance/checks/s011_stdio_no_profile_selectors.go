package checks

import (
	"encoding/json"
	"regexp"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

var profileVocabRe = regexp.MustCompile(`(?i)--?(profile|toolsets?|tool-?set|surface)\b|\bPDPP_MCP_(PROFILE|TOOLSETS?)\b|\bprofiles?\b|\btoolsets?\b|\b(core|events|full)\s*[|/,]\s*(core|events|full)\b`)

// profileSelectorEnv asks for the widest surface by every name a profile
// or toolset variable might have; a profile-free adapter ignores them all.
var profileSelectorEnv = map[string]string{"PDPP_MCP_PROFILE": "full", "PDPP_MCP_TOOLSETS": "all", "PDPP_MCP_TOOLSET": "all",
	"PDPP_MCP_TOOL_PROFILE": "full", "PDPP_MCP_SURFACE": "full", "MCP_PROFILE": "full", "MCP_TOOLSETS": "all"}

var s011 = &Check{ID: "S011", Slug: "stdio-no-profile-selectors", Mode: ModeCTRL, Run: func(t *T) {
	if t.Target.Has(CapHTTP) {
		expectNoHTTPProfiles(t)
	}
	if !t.Target.Has(CapLocalCommand) {
		if !t.Target.Has(CapHTTP) {
			t.Skipf("%s", CapLocalCommand.SkipReason())
		}
		return
	}
	h, err := t.Command().Help(t.Context())
	t.Expect(err).NotTo(HaveOccurred(), "run the adapter with --help")
	t.Expect(h.ExitCode).To(Equal(0), "--help must exit 0; stderr: %s", h.Stderr)
	help := h.Stdout + h.Stderr
	t.Expect(help).NotTo(BeEmpty(), "--help must print usage")
	t.Expect(profileVocabRe.FindAllString(help, -1)).To(BeEmpty(), "--help must not advertise profile-selection flags or variables:\n%s", help)

	if t.Target.Kind == conformance.KindStdio {
		t.Expect(toolNames(t.Target)).To(ConsistOf(t.Settings.Surface.Tools), "stdio must start the same normal read surface as hosted MCP")
	}
	plain := t.Target.ToolsRaw
	if t.Target.Kind != conformance.KindStdio {
		stdio, err := t.Command().StdioTools(t.Context(), nil)
		t.Expect(err).NotTo(HaveOccurred(), "list tools over stdio")
		t.Expect(normalizedTools(stdio)).To(Equal(normalizedTools(plain)), "stdio must serve the same profile-free surface as hosted HTTP")
	}
	selected, err := t.Command().StdioTools(t.Context(), profileSelectorEnv)
	t.Expect(err).NotTo(HaveOccurred(), "start the stdio adapter with profile selector variables set")
	t.Expect(normalizedTools(selected)).To(Equal(normalizedTools(plain)), "profile selector variables (%v) must not change the stdio tool set", profileSelectorEnv)
}}

// expectNoHTTPProfiles asks the hosted endpoint for a "full" profile by
// header and by query: the answer must be the same surface, and nothing in
// the response may name a profile.
func expectNoHTTPProfiles(t *T) {
	token := t.Target.BearerToken()
	for _, probe := range []struct {
		url    string
		header map[string]string
	}{
		{t.Hosted().MCPURL(), map[string]string{"X-PDPP-MCP-Profile": "full", "X-MCP-Toolsets": "all"}},
		{t.Hosted().MCPURL() + "?profile=full&toolsets=all", nil},
	} {
		a := hostedDo(t.Context(), "POST", probe.url, "Bearer "+token, toolsListBody, probe.header)
		t.Expect(a.Status).To(Equal(200), "tools/list with a profile selector must still answer (the selector is ignored)")
		var rpc struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		_ = json.Unmarshal(a.Body, &rpc)
		var names []string
		for _, tool := range rpc.Result.Tools {
			names = append(names, tool.Name)
		}
		t.Expect(names).To(ConsistOf(toolNames(t.Target)), "no header or query may select another tool surface")
		for k := range a.Header {
			t.Expect(profileKeyRe.MatchString(k)).To(BeFalse(), "response header %s names a profile", k)
		}
	}
}
