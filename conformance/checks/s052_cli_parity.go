package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S052 searches through the CLI for words of the target's own data: its
// evidence output must offer an invocation that reads the matched field
// window (clause 1), and running it shows the matched text. The command is
// found by value: an output line that, split as a command, names the
// evidence's field.
var s052 = &Check{ID: "S052", Slug: "cli-parity", Mode: ModeCTRL, Needs: []Capability{CapCLI, CapControlledRS}, Run: func(t *T) {
	term, c, _ := probe.FanInTerm(t)
	if c == nil || len(probe.HitsWithEvidence(t, c)) == 0 {
		t.NotApplicable("no search of the target's own words returned a proven evidence window")
	}
	fields := map[string]bool{}
	for _, p := range probe.ShownPreviews(t, c) {
		fields[p.Field] = true
	}
	out, errOut, code := t.CLI().RunCLI(t.Context(), "search", "--provider-url", t.RS().URL(), term)
	if code != 0 {
		t.Clause(1, func() { t.Fail("the CLI search must succeed (exit %d): %s", code, clipText(errOut, 300)) })
		return
	}
	t.Clause(1, func() {
		argv := readInvocation(out, fields)
		if !t.Assert(len(argv) > 1, "the CLI must print an invocation that reads the evidence's field window (one naming the field):\n%s", clipText(out, 600)) {
			return
		}
		read, errOut, code := t.CLI().RunCLI(t.Context(), argv[1:]...)
		if !t.Assert(code == 0, "the printed invocation %q must work: %s", strings.Join(argv, " "), clipText(errOut, 300)) {
			return
		}
		t.Assert(strings.Contains(strings.ToLower(read), strings.ToLower(term)), "the field window must show the matched text %q:\n%s", term, clipText(read, 400))
	})
}}

// readInvocation is the first output line that, with any "label:" prefix
// dropped, splits into a command with a flag whose value is one of fields.
func readInvocation(out string, fields map[string]bool) []string {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, ": "); i >= 0 && !strings.Contains(line[:i], " ") {
			line = line[i+2:]
		}
		argv, err := conformance.SplitCommand(line)
		if err != nil || len(argv) < 3 {
			continue
		}
		for i := 2; i < len(argv); i++ {
			flag, val, ok := strings.Cut(argv[i], "=")
			if ok && strings.HasPrefix(flag, "-") && fields[val] || strings.HasPrefix(argv[i-1], "-") && fields[argv[i]] {
				return argv
			}
		}
	}
	return nil
}
