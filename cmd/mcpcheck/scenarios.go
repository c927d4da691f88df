package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/clausemap"
	"github.com/spf13/cobra"
)

func newScenariosCommand(stdout io.Writer) *cobra.Command {
	var index bool
	cmd := &cobra.Command{
		Use:     "scenarios [ID ...]",
		Aliases: []string{"explain"},
		Short:   "List every catalog scenario with its status; with ids, map each clause to its check, adapter code, fixture data, mutants and variants",
		Long: `scenarios lists every catalog scenario with its status: checked, or manual
with the proxy check that stands in for it.

With ids or id prefixes (scenarios S029), it maps each of their clauses
(S029.2): the seed text, where the check judges it (file:line), the
reference adapter code that implements the scenario, the fixture data the
check reads (seen by running it against the reference adapter), and the
mutants that must fail the clause and the conforming variants it must
accept. --index writes that map for every scenario as markdown:
` + clausemap.IndexCommand + `.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if index || len(args) > 0 {
				scs, err := clausemap.Build(cmd.Context(), args)
				if err != nil {
					return err
				}
				if index {
					clausemap.WriteMarkdown(stdout, scs)
				} else {
					clausemap.WriteText(stdout, scs)
				}
				return nil
			}
			entries, err := checks.LoadRegistry()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEED\tMODE\tLEVEL\tCLAUSES\tSTATUS\tTITLE")
			counts := map[conformance.Status]int{}
			var notes []string
			for _, e := range entries {
				mode := "-"
				if e.Check != nil {
					mode = string(e.Check.Mode)
				}
				counts[e.Status]++
				if e.Status != conformance.Checked {
					notes = append(notes, e.Scenario.ID+": "+e.StatusText())
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", e.Scenario.Name(), e.Scenario.Seed, mode, e.Scenario.Level, len(e.Scenario.Clauses),
					e.Status, cutText(e.Scenario.Title, 60))
			}
			tw.Flush()
			if len(notes) > 0 {
				fmt.Fprintln(stdout)
			}
			for _, n := range notes {
				for i, l := range wrapWords(n, 150) {
					fmt.Fprintf(stdout, "%s%s\n", map[bool]string{true: "  ", false: ""}[i > 0], l)
				}
			}
			fmt.Fprintf(stdout, "\n%d scenarios: %d checked, %d manual", len(entries), counts[conformance.Checked], counts[conformance.Manual])
			if n := counts[conformance.Pending]; n > 0 { // the coverage gate forbids pending; say so if one slips in
				fmt.Fprintf(stdout, ", %d pending", n)
			}
			fmt.Fprintln(stdout)
			return nil
		},
	}
	cmd.Flags().BoolVar(&index, "index", false, "write the clause map of every scenario as markdown (scenarios/INDEX.md)")
	return cmd
}

// wrapWords breaks s into lines of at most n bytes, at spaces.
func wrapWords(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.LastIndexByte(s[:n], ' ')
		if cut <= 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = strings.TrimLeft(s[cut:], " ")
	}
	return append(out, s)
}
