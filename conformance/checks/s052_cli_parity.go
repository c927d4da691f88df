package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

var readCommandRe = regexp.MustCompile(`(?m)^\s*read:\s*(.+)$`)

// The CLI shows the same bounded evidence as MCP search and prints the
// command that reads the field window; running that command works.
var s052 = &Check{ID: "S052", Slug: "cli-parity", Mode: ModeCTRL, Needs: []Capability{CapCLI, CapControlledRS}, Run: func(t *T) {
	term, c, _ := fanInTerm(t)
	if c == nil || len(hitsWithEvidence(c)) == 0 {
		t.Skipf("no search of the target's own words returned a proven evidence window")
	}
	out, errOut, code := t.CLI().RunCLI(t.Context(), "search", "--provider-url", t.RS().URL(), term)
	t.Expect(code).To(Equal(0), "the CLI search must succeed: %s", clipText(errOut, 300))
	t.Expect(out).To(ContainSubstring("<mark>"), "the CLI must show the bounded evidence preview:\n%s", clipText(out, 600))
	m := readCommandRe.FindStringSubmatch(out)
	t.Expect(m).NotTo(BeNil(), "the CLI must print the command that reads the evidence's field window:\n%s", clipText(out, 600))
	argv, err := conformance.SplitCommand(m[1])
	t.Expect(err).NotTo(HaveOccurred())
	t.Expect(len(argv)).To(BeNumerically(">", 1))
	read, errOut, code := t.CLI().RunCLI(t.Context(), argv[1:]...)
	t.Expect(code).To(Equal(0), "the printed command %q must work: %s", m[1], clipText(errOut, 300))
	t.Expect(strings.ToLower(read)).To(ContainSubstring(strings.ToLower(term)), "the field window must show the matched text")
}}
