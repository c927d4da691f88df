package conformance

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// TextWidth bounds every line of the text report; wider values (whole
// calls, long messages) are in the JSON report, or with Verbose.
const TextWidth = 160

// WriteText writes the human report: what the target serves, one line per
// scenario grouped by seed with each failed clause under it, then the
// footprint and totals. Text from the target is escaped (termsafe) and
// indented, so none of it can pass for a verdict line.
func (r *Report) WriteText(w io.Writer) {
	p := textPrinter{w: w, width: TextWidth, verbose: r.Verbose}
	p.line(0, r.Tool)
	p.line(0, "target: "+r.Target)
	if s := r.Applicability.Summary(); s != "" {
		p.line(0, s)
	}
	if len(r.Dialect) > 0 {
		p.line(0, "dialect (the target's names for arguments the seeds leave open):")
		for _, d := range r.Dialect {
			p.wrap(2, d.Line())
		}
	}
	if r.TargetError != nil {
		kind := "unreachable"
		if !r.TargetError.Unreachable {
			kind = "authentication rejected"
		}
		p.blank()
		p.wrap(0, fmt.Sprintf("TARGET ERROR (%s): %s", kind, r.TargetError.Reason))
	}
	group := ""
	for _, row := range r.Rows {
		if row.Group != group {
			group = row.Group
			p.blank()
			p.line(0, group)
		}
		r.writeRow(&p, row)
	}
	if r.Footprint != nil {
		fmt.Fprintf(w, "\nFootprint (tools/list as received on the wire; tokens are o200k_base):\n")
		r.Footprint.WriteTable(w)
	}
	if g := r.Golden; g != nil {
		p.blank()
		p.line(0, "Goldens in "+g.Dir+":")
		for _, f := range g.Files {
			p.line(2, fmt.Sprintf("%-8s %s", f.Status, f.Name))
		}
		for _, c := range g.Changes {
			kind := "non-breaking"
			if c.Breaking {
				kind = "BREAKING"
			}
			p.line(2, fmt.Sprintf("%-12s %s: %s", kind, c.Tool, c.What))
		}
		for _, d := range g.Diffs {
			p.line(2, "diff "+d.Name+" (golden → target):")
			for _, l := range strings.Split(strings.TrimRight(d.Diff, "\n"), "\n") {
				p.line(4, l)
			}
		}
		if g.failed() {
			p.line(2, "review the drift, then rewrite with --update-golden")
		}
	}
	for _, warn := range r.Warnings {
		p.blank()
		p.wrap(0, "WARNING: "+warn)
	}
	t := r.Totals
	p.blank()
	p.wrap(0, fmt.Sprintf("%d scenarios: %d passed, %d partial, %d failed (required), %d failed (recommended), %d skipped, %d not applicable, %d errors, %d pending, %d manual",
		t.Scenarios, t.Passed, t.Partial, t.Failed, t.FailedRecommended, t.Skipped, t.NotApplicable, t.Errors, t.Pending, t.Manual))
	if t.Expected > 0 || t.Stale > 0 {
		p.line(0, fmt.Sprintf("baseline: %d expected failures, %d stale entries", t.Expected, t.Stale))
	}
	c := t.Clauses
	p.line(0, fmt.Sprintf("%d clauses: %d passed, %d failed (required), %d failed (recommended), %d not judged, %d errors",
		c.Total, c.Passed, c.Failed, c.FailedRecommended, c.Skipped, c.Errors))
	p.line(0, fmt.Sprintf("exit %d (%s)", r.ExitCode(), exitMeaning[r.ExitCode()]))
}

var exitMeaning = map[int]string{
	ExitPass: "pass", ExitFail: "failures", ExitUsage: "usage", ExitIncomplete: "incomplete: skipped or partly exercised checks",
	ExitUnreachable: "target unreachable", ExitAuth: "authentication rejected", ExitNotAdapter: "not a PDPP adapter",
}

// verdictLabel is a row's verdict as the text report prints it.
func verdictLabel(r *Report, res *Result) string {
	if res.Verdict == Fail && !r.Failing(res) {
		return "WARN"
	}
	return strings.ToUpper(string(res.Verdict))
}

func (r *Report) writeRow(p *textPrinter, row Row) {
	res := row.Result
	switch {
	case res == nil && row.Status == Checked:
		p.line(2, fmt.Sprintf("%-8s %-11s %s  not run: the target could not be reached", "ERROR", row.Level, row.Name))
		return
	case res == nil:
		p.wrap(2, fmt.Sprintf("%-8s %-11s %s  %s", strings.ToUpper(string(row.Status)), row.Level, row.Name, row.Reason))
		return
	}
	head := fmt.Sprintf("%-8s %-11s %s", verdictLabel(r, res), rowLevel(res), row.Name)
	switch res.Verdict {
	case Skip, NA:
		p.wrap(2, head+"  "+res.Message)
	default:
		p.line(2, head)
	}
	const in = 13 // under the scenario name's column
	for _, e := range res.Entries {
		p.wrap(in, "["+e.Name+"="+e.Value+"]")
	}
	if row.Baseline != "" {
		p.wrap(in, "baseline: "+row.Baseline)
	}
	switch {
	case res.Verdict == Error, res.Verdict == Fail && res.Clauses == nil:
		p.text(in, res.Message)
	}
	if len(res.Calls) > 0 && res.Clauses != nil {
		p.line(in, "calls before the clauses:")
	}
	for _, c := range res.Calls {
		p.call(in, c)
	}
	for _, c := range res.Clauses {
		switch c.Outcome {
		case Broken:
			p.wrap(in, fmt.Sprintf("%s FAIL (%s): %s", c.Key, c.FailLevel(), c.Text))
			for _, f := range c.Failures {
				level := ""
				if f.Level != c.Level {
					level = "[" + string(f.Level) + "] "
				}
				p.text(in+2, "- "+level+f.Message)
			}
			for _, call := range c.Calls {
				p.call(in+2, call)
			}
		case NotExercised:
			if res.Verdict != Skip {
				p.wrap(in, fmt.Sprintf("%s not exercised: %s", c.Key, clauseWhy(c)))
			}
		}
	}
	if row.Reproduce != "" {
		p.wrap(in, "reproduce: "+row.Reproduce)
	}
}

// rowLevel is the level a row shows: what its failure counts as, else the
// scenario's own.
func rowLevel(res *Result) scenarios.Level {
	if res.Verdict == Fail && res.FailLevel != "" {
		return res.FailLevel
	}
	return res.Level
}

// A textPrinter writes escaped, indented lines of at most width columns.
type textPrinter struct {
	w       io.Writer
	width   int
	verbose bool
}

func (p *textPrinter) blank() { fmt.Fprintln(p.w) }

// line writes one line, escaped and cut to the width.
func (p *textPrinter) line(indent int, s string) {
	fmt.Fprintln(p.w, strings.Repeat(" ", indent)+cutTo(termsafe.Line(s), p.width-indent))
}

// wrap writes s on as many lines as it needs, breaking at spaces.
func (p *textPrinter) wrap(indent int, s string) {
	for _, l := range wrapText(termsafe.Line(s), p.width-indent, 4) {
		fmt.Fprintln(p.w, strings.Repeat(" ", indent)+l)
	}
}

// text writes a message that may span lines (a gomega failure), each line
// wrapped: it keeps its own line breaks, indented.
func (p *textPrinter) text(indent int, s string) {
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		p.wrap(indent, l)
	}
}

// call writes one call: on one line cut to the width, or whole with Verbose.
func (p *textPrinter) call(indent int, c string) {
	if p.verbose {
		p.wrap(indent, "call: "+c)
		return
	}
	p.line(indent, "call: "+c)
}

// wrapText breaks s into lines of at most width runes, at spaces where it
// can; continuation lines are indented by hang.
func wrapText(s string, width, hang int) []string {
	if width < 20 {
		width = 20
	}
	var out []string
	for first := true; ; first = false {
		w := width
		if !first {
			w -= hang
		}
		if utf8.RuneCountInString(s) <= w {
			return append(out, indentIf(!first, hang)+s)
		}
		cut := runeOffset(s, w)
		if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
			cut = sp
		}
		out = append(out, indentIf(!first, hang)+strings.TrimRight(s[:cut], " "))
		s = strings.TrimLeft(s[cut:], " ")
	}
}

func indentIf(b bool, n int) string {
	if b {
		return strings.Repeat(" ", n)
	}
	return ""
}

// cutTo cuts s to n runes, marking the cut.
func cutTo(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return s[:runeOffset(s, n-1)] + "…"
}

func runeOffset(s string, n int) int {
	i := 0
	for pos := range s {
		if i == n {
			return pos
		}
		i++
	}
	return len(s)
}
