package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var (
	// A help line that defines a flag or names an environment variable.
	helpOptionRe = regexp.MustCompile(`(^|\s)--?[A-Za-z][\w-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`)
	// What makes such a line a profile selector.
	// A flag or variable whose own name selects a profile or toolset.
	selectorNameRe    = regexp.MustCompile(`(?i)^--?(profile|tools|tool-?sets?|surface|tool-?profile)$|^[A-Z0-9_]*(PROFILE|TOOLSETS?|SURFACE)[A-Z0-9_]*$|^[A-Z0-9_]*_TOOLS$`)
	profileSelectorRe = regexp.MustCompile(`(?i)--?(profile|tools|tool-?sets?|surface)\b|[A-Z0-9_]*(PROFILE|TOOLSETS?)[A-Z0-9_]*|\bprofiles?\b|\btool-?sets?\b|\b(core|events|full)\s*[|/,]\s*(core|events|full)\b`)
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
		sel := profileSelectors(help)
		t.AssertWith(len(sel) == 0, func() (conformance.Witness, error) {
			return conformance.Present(sel[0], conformance.Shown("--help", help))
		},
			"--help must not advertise profile-selection flags or variables: %q", sel)
		// What the adapter tells the model is setup advice too: a flag or
		// variable that is itself a profile selector, named there.
		served := map[string]string{}
		if t.Target.Init != nil {
			served["the initialize instructions"] = t.Target.Init.Instructions
		}
		for tool, texts := range probe.ToolDescriptions(t.Target) {
			served["the "+tool+" descriptions"] = strings.Join(texts, "\n")
		}
		for _, where := range slices.Sorted(maps.Keys(served)) {
			opt := selectorOption(served[where])
			t.AssertWith(opt == "", func() (conformance.Witness, error) {
				return conformance.Present(opt, conformance.Shown(where, served[where]))
			}, "%s must not advertise a profile-selection flag or variable: %q", where, opt)
		}
	})
	t.Clause(2, func() {
		plain := t.Target.ToolsRaw
		if t.Target.Kind != conformance.KindStdio {
			stdio, err := t.Command().StdioTools(t.Context(), nil)
			if err != nil {
				t.Inconclusive("the stdio adapter did not serve tools/list: %v", err)
			} else {
				expectSameSurface(t, plain, stdio, "stdio's tools/list", "stdio must serve the same profile-free surface as hosted HTTP")
			}
		}
		selected, err := t.Command().StdioTools(t.Context(), profileSelectorEnv)
		if err != nil {
			t.Inconclusive("the stdio adapter did not start with profile selector variables set (%v): %v", profileSelectorEnv, err)
			return
		}
		expectSameSurface(t, plain, selected, "tools/list with profile selector variables set", fmt.Sprintf("profile selector variables (%v) must not change the stdio tool set", profileSelectorEnv))
	})
}}

// expectSameSurface judges that other serves plain's tools: a tool one
// serves and the other does not, or one declared differently, is the
// witness, found by value in the answer that has it.
func expectSameSurface(t *T, plain, other []json.RawMessage, what, msg string) {
	a, b := probe.ToolsByName(plain), probe.ToolsByName(other)
	names := probe.SortedCopy(append(slices.Collect(maps.Keys(a)), slices.Collect(maps.Keys(b))...))
	for _, name := range names {
		ra, inA := a[name]
		rb, inB := b[name]
		switch {
		case !inA:
			t.FailWith(conformance.Witness{Kind: conformance.WitnessPresent, Fact: name, In: []string{what + ", and not the target's own tools/list"}, Excerpt: clipText(string(rb), 200)}, nil, "%s: it serves %s", msg, name)
		case !inB:
			t.FailWith(conformance.Witness{Kind: conformance.WitnessAbsent, Fact: name, In: []string{what}}, nil, "%s: it lacks %s", msg, name)
		default:
			t.AssertWith(probe.NormalizedTools([]json.RawMessage{ra}) == probe.NormalizedTools([]json.RawMessage{rb}), func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: clipText(string(rb), 300), In: []string{what + ": tool " + name + ", declared otherwise than in the target's own tools/list: " + clipText(string(ra), 300)}}, nil
			}, "%s: tool %s is declared differently", msg, name)
		}
	}
}

// selectorOption is the first flag or variable a sentence of text offers
// that is itself a profile or toolset selector (--surface,
// PDPP_MCP_TOOLSETS), or "". A sentence that says there is none offers
// none.
func selectorOption(text string) string {
	for _, sentence := range sentenceSplitRe.Split(text, -1) {
		if goneRe.MatchString(sentence) {
			continue
		}
		for _, opt := range helpOptionRe.FindAllString(sentence, -1) {
			if opt = strings.TrimSpace(opt); selectorNameRe.MatchString(opt) {
				return opt
			}
		}
	}
	return ""
}

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
