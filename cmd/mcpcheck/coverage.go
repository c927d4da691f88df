package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/scenarios"
	"github.com/spf13/cobra"
)

// A coverageRow is one scenario of an OpenSpec tree and what covers it.
type coverageRow struct {
	Capability  string  `json:"capability"`
	Source      string  `json:"source"`
	Requirement string  `json:"requirement"`
	Scenario    string  `json:"scenario"`
	File        string  `json:"file"`
	Line        int     `json:"line"`
	ID          string  `json:"id,omitempty"`    // the catalog scenario matched
	Status      string  `json:"status"`          // checked, manual, or unchecked
	Check       string  `json:"check,omitempty"` // the check's name, or the manual proxy
	Score       float64 `json:"score,omitempty"` // how much text they share, 0…1
}

// newCoverageCommand maps a spec author's OpenSpec tree onto mcpcheck's
// checks.
func newCoverageCommand(stdout io.Writer, code *int) *cobra.Command {
	var (
		dir, capability string
		asJSON          bool
	)
	cmd := &cobra.Command{
		Use:   "coverage --openspec DIR [--capability NAME]",
		Short: "List each Requirement and Scenario of an OpenSpec tree with the check that covers it, or unchecked",
		Long: `coverage reads an OpenSpec tree (its specs, openspec/specs/<capability>/spec.md, and
its changes' spec deltas, openspec/changes/<change>/specs/<capability>/spec.md)
and lists each scenario with the mcpcheck check that covers it, matched by the
text of the scenario and its requirement against mcpcheck's catalog (the score
is the share of text they have in common), or "unchecked". DIR holds openspec/
(a spec repository's root) or is openspec/ itself.`,
		Example: `  mcpcheck coverage --openspec ../pdpp --capability mcp-adapter
  mcpcheck coverage --openspec scenarios     # mcpcheck's own catalog`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if dir == "" {
				return usageError{errors.New("coverage needs --openspec DIR")}
			}
			if _, err := os.Stat(dir); err != nil {
				return usageError{fmt.Errorf("--openspec: %w", err)}
			}
			reqs, err := scenarios.ReadOpenSpec(os.DirFS(dir))
			if err != nil {
				return usageError{fmt.Errorf("--openspec %s: %w", dir, err)}
			}
			if capability != "" {
				var kept []scenarios.SpecRequirement
				for _, r := range reqs {
					if r.Capability == capability {
						kept = append(kept, r)
					}
				}
				if len(kept) == 0 {
					return usageError{fmt.Errorf("--capability %q: no requirement of that capability under %s", capability, dir)}
				}
				reqs = kept
			}
			rows, err := coverageRows(reqs)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			writeCoverage(stdout, rows)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "openspec", "", "the OpenSpec tree: a directory holding openspec/, or openspec/ itself")
	f.StringVar(&capability, "capability", "", "only this capability's requirements (e.g. mcp-adapter)")
	f.BoolVar(&asJSON, "json", false, "print the rows as JSON")
	return cmd
}

func coverageRows(reqs []scenarios.SpecRequirement) ([]coverageRow, error) {
	cat, err := scenarios.Load()
	if err != nil {
		return nil, err
	}
	entries, err := checks.Registry(cat)
	if err != nil {
		return nil, err
	}
	byID := map[string]conformance.Entry{}
	for _, e := range entries {
		byID[e.Scenario.ID] = e
	}
	var rows []coverageRow
	for _, m := range cat.MatchTree(reqs) {
		r := coverageRow{Capability: m.Requirement.Capability, Source: m.Requirement.Source, Requirement: m.Requirement.Name,
			Scenario: m.Scenario.Name, File: m.Requirement.File, Line: m.Scenario.Line, Status: "unchecked"}
		if e, ok := byID[m.ID]; ok {
			r.ID, r.Score, r.Status = m.ID, m.Score, string(e.Status)
			if e.Check != nil {
				r.Check = e.Check.Name()
			} else {
				r.Check = e.Proxy
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func writeCoverage(w io.Writer, rows []coverageRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tCHECK\tSCORE\tREQUIREMENT › SCENARIO")
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Status]++
		check, score := "-", "-"
		if r.ID != "" {
			check, score = r.Check, fmt.Sprintf("%.2f", r.Score)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Status, check, score, cutText(r.Requirement+" › "+r.Scenario, 90))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d scenarios: %d checked, %d manual, %d unchecked\n", len(rows), counts["checked"], counts["manual"], counts["unchecked"])
}

func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
