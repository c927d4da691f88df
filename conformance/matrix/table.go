package matrix

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// WriteTable prints the mutants: each with the clauses it must fail, its
// verdict, the ids it broke beyond them (undeclared ones marked !), and
// the ids that failed.
func WriteTable(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tMUST FAIL\tVERDICT\tCOLLATERAL\tFAILED")
	ok, n, collateral := 0, 0, 0
	for _, r := range results {
		if r.Conforming {
			continue
		}
		n++
		var coll []string
		for _, id := range r.Collateral {
			if slices.Contains(r.Failed, id) {
				coll = append(coll, id)
			}
		}
		for _, id := range r.Undeclared {
			coll = append(coll, id+"!")
		}
		if len(coll) > 0 {
			collateral++
		}
		if r.OK() {
			ok++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Mutant, cut(strings.Join(r.Expect, ","), 40), r.Verdict, cut(dash(coll), 30), cut(dash(r.Failed), 40))
	}
	tw.Flush()
	writeErrors(w, results)
	fmt.Fprintf(w, "%d mutants: %d killed by their own clauses with no undeclared collateral (%s); %d with collateral (%s)\n",
		n, ok, pct(ok, n), collateral, pct(collateral, n))
}

// WriteVariants prints the conforming variants: each with the freedom it
// exercises, its verdict, and what failed or was judged less than on the
// reference adapter.
func WriteVariants(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIANT\tFREEDOM\tVERDICT\tFAILED")
	ok, n := 0, 0
	for _, r := range results {
		if !r.Conforming {
			continue
		}
		n++
		if r.OK() {
			ok++
		}
		bad := append(slices.Clone(r.FailedClauses), r.Degraded...)
		if len(bad) == 0 {
			bad = r.Failed
		}
		if len(r.KnownFalse) > 0 {
			bad = append([]string{fmt.Sprintf("%d known false", len(r.KnownFalse))}, r.falseIDs()...)
			if len(r.Stale) > 0 {
				bad = append(bad, "stale: "+strings.Join(r.Stale, " "))
			}
		}
		if len(bad) == 0 && len(r.Advised) > 0 {
			bad = []string{"advised only: " + strings.Join(r.Advised, ",")}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Mutant, cut(r.Freedom, 60), r.Verdict, cut(dash(bad), 50))
	}
	tw.Flush()
	writeErrors(w, results)
	known := 0
	for _, r := range results {
		if r.Conforming && len(r.KnownFalse) > 0 {
			known++
		}
	}
	fmt.Fprintf(w, "%d variants: %d pass every check as the reference adapter does (%s)", n, ok, pct(ok, n))
	if known > 0 {
		fmt.Fprintf(w, ", %d of them apart from the checks they list as failing them falsely today", known)
	}
	fmt.Fprintln(w)
}

func writeErrors(w io.Writer, results []Result) {
	for _, r := range results {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "harness error under %s: %s\n", r.Mutant, cut(termsafe.Line(e), 120))
		}
	}
}

// Coverage is how many required clauses some mutant names and fails.
type Coverage struct {
	Required int      `json:"required"`
	Covered  int      `json:"covered"`
	Manual   []string `json:"manual,omitempty"`    // judged by a proxy outside MCP traffic
	Missing  []string `json:"uncovered,omitempty"` // no mutant names and fails them
}

// ClauseCoverage counts the required clauses of checked scenarios that a
// mutant names by clause key and fails. A manual scenario's clauses, and
// a check's manual clauses, are listed apart.
func ClauseCoverage(entries []conformance.Entry, results []Result) Coverage {
	caught := map[string]bool{}
	for _, r := range results {
		if r.Conforming || r.Verdict == HarnessFault {
			continue
		}
		for _, k := range r.Expect {
			if strings.Contains(k, ".") && r.caught(k) {
				caught[k] = true
			}
		}
	}
	var c Coverage
	for _, e := range entries {
		for i, cl := range e.Scenario.Clauses {
			if cl.Level != scenarios.Required {
				continue
			}
			c.Required++
			switch {
			case e.Check == nil || e.Check.Manual[i+1] != "":
				c.Manual = append(c.Manual, cl.Key)
			case caught[cl.Key]:
				c.Covered++
			default:
				c.Missing = append(c.Missing, cl.Key)
			}
		}
	}
	return c
}

// WriteCoverage prints the clause coverage.
func WriteCoverage(w io.Writer, c Coverage) {
	judged := c.Required - len(c.Manual)
	fmt.Fprintf(w, "clause coverage: %d of %d required clauses judged over MCP have a mutant that fails them (%s); %d manual\n",
		c.Covered, judged, pct(c.Covered, judged), len(c.Manual))
	for i := 0; i < len(c.Missing); i += 16 {
		fmt.Fprintf(w, "  no mutant fails: %s\n", strings.Join(c.Missing[i:min(i+16, len(c.Missing))], " "))
	}
}

func dash(ss []string) string {
	if len(ss) == 0 {
		return "-"
	}
	return strings.Join(ss, ",")
}

func cut(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func pct(a, b int) string { return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(max(1, b))) }
