package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var (
	// A help line that defines a flag or names an environment variable.
	helpOptionRe = regexp.MustCompile(`(^|\s)--?[A-Za-z][\w-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`)
	// What makes such a line a profile selector.
	profileSelectorRe = regexp.MustCompile(`(?i)--?(profile|tool-?sets?|surface)\b|[A-Z0-9_]*(PROFILE|TOOLSETS?)[A-Z0-9_]*|\bprofiles?\b|\btool-?sets?\b|\b(core|events|full)\s*[|/,]\s*(core|events|full)\b`)
)

// profileSelectorEnv asks for the widest surface by every name a profile
// or toolset variable might have; a profile-free adapter ignores them all.
var profileSelectorEnv = map[string]string{"PDPP_MCP_PROFILE": "full", "PDPP_MCP_TOOLSETS": "all", "PDPP_MCP_TOOLSET": "all",
	"PDPP_MCP_TOOL_PROFILE": "full", "PDPP_MCP_SURFACE": "full", "MCP_PROFILE": "full", "MCP_TOOLSETS": "all"}

// Seed 001: "supported setup SHALL NOT advertise profile-selection flags
// or environment variables", and "the adapter SHALL start the same
// profile-free normal read surface used by hosted MCP", whatever profile
// variables its environment holds.
var s011 = &Check{ID: "S011", Slug: "stdio-no-profile-selectors", Mode: ModeCTRL, Needs: []Capability{CapLocalCommand}, Run: func(t *T) {
	t.Clause(1, func() {
		h, err := t.Command().Help(t.Context())
		help := h.Stdout + h.Stderr
		if err != nil || strings.TrimSpace(help) == "" {
			t.Skipf("--help printed no usage to judge (%v)", err)
		}
		t.Assert(len(profileSelectors(help)) == 0, "--help must not advertise profile-selection flags or variables: %q", profileSelectors(help))
	})
	t.Clause(2, func() {
		plain := t.Target.ToolsRaw
		if t.Target.Kind != conformance.KindStdio {
			stdio, err := t.Command().StdioTools(t.Context(), nil)
			if t.Assert(err == nil, "the stdio adapter must serve tools/list: %v", err) {
				t.Assert(probe.NormalizedTools(stdio) == probe.NormalizedTools(plain), "stdio must serve the same profile-free surface as hosted HTTP")
			}
		}
		selected, err := t.Command().StdioTools(t.Context(), profileSelectorEnv)
		if t.Assert(err == nil, "the stdio adapter must start with profile selector variables set (%v), ignoring them: %v", profileSelectorEnv, err) {
			t.Assert(probe.NormalizedTools(selected) == probe.NormalizedTools(plain), "profile selector variables (%v) must not change the stdio tool set", profileSelectorEnv)
		}
	})
}}

// profileSelectors returns the help lines that define a flag or name a
// variable selecting a profile or toolset.
func profileSelectors(help string) []string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		if helpOptionRe.MatchString(line) && profileSelectorRe.MatchString(line) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
