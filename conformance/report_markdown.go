package conformance

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as Markdown for a CI page (a GitHub
// Actions step summary): the totals, then every failed clause, then the
// scenarios that were not fully judged. Text from the target is escaped
// so it renders as text, never as markup.
func (r *Report) WriteMarkdown(w io.Writer) {
	t := r.Totals
	fmt.Fprintf(w, "## mcpcheck: %s\n\n", md(r.Target))
	if s := r.Applicability.Summary(); s != "" {
		fmt.Fprintf(w, "%s\n\n", md(s))
	}
	if r.TargetError != nil {
		fmt.Fprintf(w, "**Target error:** %s\n\n", md(r.TargetError.Reason))
	}
	fmt.Fprintf(w, "| passed | partial | failed (required) | failed (recommended) | skipped | n/a | errors | manual |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %d | %d |\n\n", t.Passed, t.Partial, t.Failed, t.FailedRecommended, t.Skipped, t.NotApplicable, t.Errors, t.Manual)
	fmt.Fprintf(w, "Exit %d (%s).\n\n", r.ExitCode(), exitMeaning[r.ExitCode()])
	if s := r.Scope; s != nil && len(s.Scenarios) > 0 {
		fmt.Fprintf(w, "Outside %s (each waits only on mcpcheck's fixture RS; run without %s to judge them): %s.\n\n", md(s.Mode), md(s.Mode), md(strings.Join(s.Scenarios, " ")))
	}
	var failed, open []string
	for _, row := range r.Rows {
		res := row.Result
		if res == nil {
			continue
		}
		switch {
		case res.Verdict == Error || res.Verdict == Fail && res.Clauses == nil:
			failed = append(failed, fmt.Sprintf("| %s | %s | %s | %s |", row.ID, res.Verdict, md(row.Title), md(FirstLine(res.Message))))
		case res.Verdict == Partial || res.Verdict == Skip:
			open = append(open, fmt.Sprintf("| %s | %s | %s |", row.ID, res.Verdict, md(FirstLine(res.Message))))
		}
		for _, c := range res.FailedClauses() {
			failed = append(failed, fmt.Sprintf("| %s | %s | %s | %s |", c.Key, c.FailLevel(), md(c.Text), md(FirstLine(c.Failures[0].Message))))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "### Failed clauses\n\n| clause | level | the clause | first failure |\n|---|---|---|---|\n%s\n\n", strings.Join(failed, "\n"))
	}
	if len(open) > 0 {
		fmt.Fprintf(w, "<details><summary>Not fully judged (%d)</summary>\n\n| scenario | verdict | why |\n|---|---|---|\n%s\n\n</details>\n", len(open), strings.Join(open, "\n"))
	}
}

// md escapes text for a Markdown table cell.
func md(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]").Replace(s)
}
