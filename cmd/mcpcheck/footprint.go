package main

import (
	"fmt"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

func newFootprintCommand(stdout io.Writer, getenv func(string) string, red *conformance.Redactor, stdioArgv []string) *cobra.Command {
	var (
		to     = targetOptions{redactor: red, stdioArgv: stdioArgv}
		budget int
	)
	cmd := &cobra.Command{
		Use:   "footprint",
		Short: "Print the tools/list footprint (wire bytes and o200k tokens per tool) of a target",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := to.spec(getenv)
			if err != nil {
				return usageError{err}
			}
			settings, err := conformance.LoadSettings(budget)
			if err != nil {
				return err
			}
			tgt, err := conformance.Open(cmd.Context(), spec)
			if err != nil {
				return err
			}
			defer tgt.Close()
			fp, err := conformance.MeasureFootprint(tgt, settings.BudgetBytes)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "target: %s\n", tgt.Description)
			fp.WriteTable(stdout)
			return nil
		},
	}
	to.addFlags(cmd)
	cmd.Flags().IntVar(&budget, "budget", 0, "tools/list byte budget (default 24576)")
	return cmd
}
