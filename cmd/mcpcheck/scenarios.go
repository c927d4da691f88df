package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/spf13/cobra"
)

func newScenariosCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "List every catalog scenario with its status: checked, or manual with the proxy check that stands in for it",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
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
