package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S052 searches through the CLI for words of the target's own data: its
// evidence output must offer an invocation that reads the matched field
// window (clause 1), and running it shows the matched text. The command is
// found by value: an output line that, split as a command, names the
// evidence's field. Witnesses: the read-field command its help documents,
// absent from the output; the printed invocation refused; the matched
// text absent from what it reads.
var s052 = &Check{ID: "S052", Slug: "cli-parity", Mode: ModeCTRL, Needs: []Capability{CapCLI, CapControlledRS}, Run: func(t *T) {
	term, c, _ := probe.FanInTerm(t)
	if c == nil || len(probe.HitsWithEvidence(t, c)) == 0 {
		t.NotApplicable("no search of the target's own words returned a proven evidence window")
	}
	fields := map[string]bool{}
	for _, p := range probe.ShownPreviews(t, c) {
		fields[p.Field] = true
	}
	// The CLI's own help names its commands: the witnesses are built from
	// it, never from mcpcheck's guesses.
	helpOut, helpErr, _ := t.CLI().RunCLI(t.Context(), "search", "--help")
	help := conformance.Shown("the CLI's search --help", helpOut+"\n"+helpErr)
	argv := []string{"search", "--provider-url", t.RS().URL(), term}
	out, errOut, code := t.CLI().RunCLI(t.Context(), argv...)
	searched := "search " + strings.Join(argv[1:], " ")
	if code != 0 {
		t.Clause(1, func() {
			t.AssertWith(false, func() (conformance.Witness, error) {
				for _, w := range []string{"search", "--provider-url"} {
					if !read.Find(help.Strings(), read.Text(w)).Exact {
						return conformance.Witness{}, fmt.Errorf("the CLI's help does not document %s", w)
					}
				}
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: term, Excerpt: clipText(errOut, 200),
					In: []string{searched + " exits " + strconv.Itoa(code), "the term from " + c.Describe() + ", the command as " + help.Describe() + " writes it"}}, nil
			}, "the CLI search must succeed (exit %d): %s", code, clipText(errOut, 300))
		})
		return
	}
	shown := conformance.Shown("the output of "+searched, out)
	t.Clause(1, func() {
		argv := readInvocation(out, fields)
		if !t.AssertWith(len(argv) > 1, func() (conformance.Witness, error) {
			if !read.Find(help.Strings(), read.Text("read-field")).Exact {
				return conformance.Witness{}, fmt.Errorf("the CLI's help names no read-field command")
			}
			return conformance.Absent(read.Text("read-field"), shown)
		}, "the CLI must print an invocation that reads the evidence's field window (one naming the field):\n%s", clipText(out, 600)) {
			return
		}
		printed := strings.Join(argv, " ")
		got, errOut, code := t.CLI().RunCLI(t.Context(), argv[1:]...)
		if !t.AssertWith(code == 0, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessCall, Fact: printed, Excerpt: clipText(errOut, 200),
				In: []string{"the printed invocation exits " + strconv.Itoa(code), "printed by " + searched}}, nil
		}, "the printed invocation %q must work: %s", printed, clipText(errOut, 300)) {
			return
		}
		window := conformance.Shown("the output of the printed invocation "+printed, got)
		t.AssertWith(strings.Contains(strings.ToLower(got), strings.ToLower(term)), func() (conformance.Witness, error) { return conformance.Absent(read.Text(term), window) },
			"the field window must show the matched text %q:\n%s", term, clipText(got, 400))
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
