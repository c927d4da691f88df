package conformance

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
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
	if r.Verbose {
		r.writeText(w, -1)
		return
	}
	// Past maxTextLines, the rows printed last lose their details first;
	// a compact row still takes a few lines, hence a few tries.
	var buf bytes.Buffer
	budget := r.writeText(&buf, -1)
	for range 4 {
		over := bytes.Count(buf.Bytes(), []byte("\n")) - maxTextLines
		if over <= 0 || budget == 0 {
			break
		}
		budget = max(0, budget-over)
		buf.Reset()
		r.writeText(&buf, budget)
	}
	_, _ = w.Write(buf.Bytes())
}

// writeText writes the report giving rows at most budget lines of details
// in all (-1: no bound), and returns how many it gave.
func (r *Report) writeText(w io.Writer, budget int) int {
	p := textPrinter{w: w, width: TextWidth, verbose: r.Verbose, budget: budget}
	p.line(0, r.Tool)
	p.wrap(0, "target: "+r.Target) // whole: a long command must not cut off which RS it read
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
		if tail := r.TargetError.StderrTail; len(tail) > 0 {
			p.line(2, fmt.Sprintf("its stderr ends (%s):", plural(len(tail), "line")))
			for _, l := range tail {
				p.line(4, l)
			}
		}
	}
	shown := r.writeRootCauses(&p, r.rootCauses())
	notRun := 0
	for _, row := range r.Rows {
		if row.Result == nil && row.Status == Checked {
			notRun++
		}
	}
	if notRun > 0 && !r.Verbose {
		p.blank()
		p.line(0, fmt.Sprintf("%s not run: the target could not be reached (--verbose lists them)", plural(notRun, "scenario")))
	}
	group := ""
	for _, row := range r.Rows {
		if row.Result == nil && row.Status == Checked && !r.Verbose {
			continue
		}
		if row.Group != group {
			group = row.Group
			p.blank()
			p.line(0, group)
		}
		switch {
		case row.Result == nil:
			r.writeRow(&p, row, rowFull)
		case r.styleOf(row, shown) == rowFull:
			r.writeBudgeted(&p, row)
		default:
			r.writeRow(&p, row, r.styleOf(row, shown))
		}
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
			p.line(2, "review the drift; if it is intended, rewrite the goldens with:")
			p.wrap(4, cmp.Or(r.updateGolden, "mcpcheck … --golden-dir "+shellquote.Quote(g.Dir)+" --update-golden"))
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
	if s := r.Scope; s != nil && len(s.Scenarios) > 0 {
		p.wrap(0, fmt.Sprintf("outside %s: %s (%s), each waiting only on mcpcheck's fixture RS, so not making this run incomplete: %s; run without %s to judge them",
			s.Mode, plural(len(s.Scenarios), "skipped or partial scenario"), strings.Join(s.Scenarios, " "), s.Why, s.Mode))
	}
	c := t.Clauses
	p.line(0, fmt.Sprintf("%d clauses: %d passed, %d failed (required), %d failed (recommended), %d not judged, %d errors",
		c.Total, c.Passed, c.Failed, c.FailedRecommended, c.Skipped, c.Errors))
	p.line(0, fmt.Sprintf("exit %d (%s)", r.ExitCode(), exitMeaning[r.ExitCode()]))
	return p.detail
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

// writeRow prints one row: in full, in one line (blocked by a root cause,
// or a harness error once the target was gone), or as a pointer to the
// root cause printed above.
func (r *Report) writeRow(p *textPrinter, row Row, style rowStyle, lead ...string) {
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
	switch {
	case style == rowSeeAbove:
		p.line(2, head+"  root cause: see above")
		return
	case style == rowOneLine && res.Verdict == Error:
		p.short(2, head+"  "+FirstLine(res.Message))
		return
	case style == rowOneLine:
		p.line(2, head+"  "+blockedLine(row))
		return
	case res.Verdict == Skip, res.Verdict == NA:
		p.wrap(2, head+"  "+res.Message)
	default:
		p.line(2, head)
	}
	const in = 13 // under the scenario name's column
	for _, l := range lead {
		p.wrap(in, l)
	}
	if style == rowCompact {
		if res.Verdict == Error {
			p.short(in, FirstLine(res.Message))
		}
		for _, c := range res.FailedClauses() {
			p.line(in, fmt.Sprintf("%s FAIL (%s): %s", c.Key, c.FailLevel(), FirstLine(c.Failures[0].Message)))
		}
		if row.Reproduce != "" {
			p.line(in, "reproduce: "+row.Reproduce)
		}
		return
	}
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
	p.calls(in, res.Calls)
	for _, c := range res.Clauses {
		switch c.Outcome {
		case Broken:
			p.wrap(in, fmt.Sprintf("%s FAIL (%s): %s", c.Key, c.FailLevel(), c.Text))
			msgs := make([]string, len(c.Failures))
			for i, f := range c.Failures {
				if msgs[i] = f.Message; f.Level != c.Level {
					msgs[i] = "[" + string(f.Level) + "] " + f.Message
				}
				if f.Witness != nil {
					msgs[i] += "\n  " + f.Witness.Line()
				}
			}
			distinct, n := counted(msgs)
			for i, m := range distinct {
				if i == maxShown && !p.verbose {
					p.line(in+2, fmt.Sprintf("… %s more (--verbose shows them)", plural(len(distinct)-i, "failure")))
					break
				}
				p.text(in+2, "- "+m+times(n[m]))
			}
			p.calls(in+2, c.Calls)
		case NotExercised:
			switch {
			case res.Verdict == Skip:
			case res.Verdict == Error && !p.verbose: // the error above says why
			case c.BlockedBy != "" && c.BlockedBy != row.ID && !p.verbose:
				p.line(in, fmt.Sprintf("%s not exercised: blocked by %s (see root causes)", c.Key, c.BlockedBy))
			default:
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
// Rows written through [Report.writeBudgeted] share budget lines of
// details (-1: no bound); detail counts those written.
type textPrinter struct {
	w       io.Writer
	width   int
	verbose bool
	budget  int
	detail  int
}

func (p *textPrinter) blank() { fmt.Fprintln(p.w) }

// line writes one line, escaped and cut to the width.
func (p *textPrinter) line(indent int, s string) {
	fmt.Fprintln(p.w, strings.Repeat(" ", indent)+cutTo(termsafe.Line(s), p.width-indent))
}

// MaxTextMessage bounds what the text report prints of one message (a
// failure quoting a 400 KB tool description, say); the JSON report keeps
// it whole.
const MaxTextMessage = 2000

// wrap writes s, clipped, on as many lines as it needs, breaking at spaces.
func (p *textPrinter) wrap(indent int, s string) {
	p.wrapClipped(indent, termsafe.Clip(s, MaxTextMessage))
}

func (p *textPrinter) wrapClipped(indent int, s string) {
	for _, l := range wrapText(termsafe.Line(s), p.width-indent, 4) {
		fmt.Fprintln(p.w, strings.Repeat(" ", indent)+l)
	}
}

// text writes a message that may span lines (a gomega failure), clipped,
// each line wrapped: it keeps its own line breaks, indented. Without
// verbose it stops after maxMessageLines lines.
func (p *textPrinter) text(indent int, s string) {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(termsafe.Clip(s, MaxTextMessage), "\n"), "\n") {
		out = append(out, wrapText(termsafe.Line(l), p.width-indent, 4)...)
	}
	if len(out) > maxMessageLines && !p.verbose {
		out = append(out[:maxMessageLines-1], fmt.Sprintf("… %d more lines (--verbose or the JSON report has them)", len(out)-maxMessageLines+1))
	}
	for _, l := range out {
		fmt.Fprintln(p.w, strings.Repeat(" ", indent)+l)
	}
}

// short writes s on one line cut to the width, or whole with verbose.
func (p *textPrinter) short(indent int, s string) {
	if p.verbose {
		p.wrap(indent, s)
		return
	}
	p.line(indent, s)
}

// calls writes calls, each as [textPrinter.short] does; a call made again
// and again is written once with its count, and without verbose at most
// maxShown of them.
func (p *textPrinter) calls(indent int, calls []string) {
	distinct, n := counted(calls)
	for i, c := range distinct {
		if i == maxShown && !p.verbose {
			p.line(indent, fmt.Sprintf("… %s more (--verbose shows them)", plural(len(distinct)-i, "call")))
			return
		}
		p.short(indent, "call: "+c+times(n[c]))
	}
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
