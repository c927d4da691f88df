package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/matrix"
	"github.com/spf13/cobra"
)

// newMutantsCommand runs every check against every mutant of the reference
// adapter and prints which ids caught which mutant.
func newMutantsCommand(stdout io.Writer, code *int) *cobra.Command {
	var (
		parallel int
		jsonOut  string
	)
	cmd := &cobra.Command{
		Use:   "mutants [MUTANT ...]",
		Short: "Run every check against each mutant of the reference adapter; exit 1 unless each is killed by its own ids",
		Long: `mutants opens the reference adapter once per mutant (a named, deliberate fault)
and runs every check against it. A mutant is killed when every scenario id it
names fails; it is a wrong-reason kill when only other ids fail, and survived
when nothing fails. Either is a harness defect, and the exit code is 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := matrix.Run(cmd.Context(), args, parallel)
			if err != nil {
				return err
			}
			matrix.WriteTable(stdout, results)
			if jsonOut != "" {
				data, _ := json.MarshalIndent(results, "", "  ")
				if err := os.WriteFile(jsonOut, append(data, '\n'), 0o644); err != nil {
					return err
				}
			}
			for _, r := range results {
				if r.Verdict != matrix.Killed {
					*code = conformance.ExitFail
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 2, "mutants to run at once")
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the matrix as JSON to FILE")
	return cmd
}
