package conformance

import (
	"regexp"

	. "github.com/onsi/gomega"
)

var profileVocabRe = regexp.MustCompile(`(?i)--?(profile|toolsets?|tool-?set|surface)\b|\bPDPP_MCP_(PROFILE|TOOLSETS?)\b|\bprofiles?\b|\btoolsets?\b|\b(core|events|full)\s*[|/,]\s*(core|events|full)\b`)

var s011 = &Check{ID: "S011", Slug: "stdio-no-profile-selectors", Mode: ModeCTRL, Needs: []Capability{CapLocalCommand}, Run: func(t *T) {
	h, err := t.Target.Help(t.Context())
	t.Expect(err).NotTo(HaveOccurred(), "run the adapter with --help")
	t.Expect(h.ExitCode).To(Equal(0), "--help must exit 0; stderr: %s", h.Stderr)
	help := h.Stdout + h.Stderr
	t.Expect(help).NotTo(BeEmpty(), "--help must print usage")
	t.Expect(profileVocabRe.FindAllString(help, -1)).To(BeEmpty(), "--help must not advertise profile-selection flags or variables:\n%s", help)

	if t.Target.StdioTools != nil {
		stdio, err := t.Target.StdioTools(t.Context())
		t.Expect(err).NotTo(HaveOccurred(), "list tools over stdio")
		t.Expect(normalizeTools(stdio)).To(Equal(normalizeTools(t.Target.ToolsRaw)),
			"stdio must serve the same profile-free surface as hosted HTTP")
		return
	}
	// A stdio target: its own session is stdio; hold it to the hosted surface as data.
	t.Expect(toolNames(t.Target)).To(ConsistOf(t.Settings.Surface.Tools), "stdio must start the same normal read surface as hosted MCP")
}}
