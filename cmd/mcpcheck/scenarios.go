package main

import (
	"fmt"
	"io"
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
			fmt.Fprintln(tw, "ID\tSEED\tMODE\tSTATUS\tTITLE")
			counts := map[conformance.Status]int{}
			for _, e := range entries {
				mode := "-"
				if e.Check != nil {
					mode = string(e.Check.Mode)
				}
				counts[e.Status]++
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Scenario.Name(), e.Scenario.Seed, mode, e.StatusText(), e.Scenario.Title)
			}
			tw.Flush()
			fmt.Fprintf(stdout, "\n%d scenarios: %d checked, %d manual", len(entries), counts[conformance.Checked], counts[conformance.Manual])
			if n := counts[conformance.Pending]; n > 0 { // the coverage gate forbids pending; say so if one slips in
				fmt.Fprintf(stdout, ", %d pending", n)
			}
			fmt.Fprintln(stdout)
			return nil
		},
	}
}
