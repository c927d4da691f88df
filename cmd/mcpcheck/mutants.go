package main

import (
	"encoding/json"
	"io"
	"os"
	"runtime/debug"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/matrix"
	"github.com/spf13/cobra"
)

// newMutantsCommand runs every check against every mutant of the reference
// adapter and prints which ids caught which mutant.
func newMutantsCommand(stdout, stderr io.Writer, getenv func(string) string, code *int) *cobra.Command {
	var (
		parallel int
		jsonOut  string
	)
	cmd := &cobra.Command{
		Use:   "mutants [MUTANT ...]",
		Short: "Run every check against each mutant of the reference adapter; exit 1 unless each is killed by its own clauses",
		Long: `mutants opens the reference adapter once per mutant (a named, deliberate fault)
and runs every check against it. A mutant is killed when every clause (S029.2)
or scenario id it names fails; it is a wrong-reason kill when only other ids
fail, and survived when nothing fails. Its collateral are the other ids that
fail: each must be declared in its row (adapter/variation), or the id's check
is failing on a property it does not own. Any of these is a harness defect,
and the exit code is 1. With no names, it also reports clause coverage: the
required clauses that some mutant names and fails.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			lessGC(getenv)
			results, err := matrix.Mutants(cmd.Context(), matrix.Options{Only: args, Parallel: parallel, Progress: progressTo(stderr, getenv, "mutants")})
			if err != nil {
				return err
			}
			matrix.WriteTable(stdout, results)
			if len(args) == 0 {
				entries, err := checks.LoadRegistry()
				if err != nil {
					return err
				}
				matrix.WriteCoverage(stdout, matrix.ClauseCoverage(entries, results))
			}
			return finishMatrix(results, jsonOut, code)
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 2, "mutants to run at once")
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the matrix as JSON to FILE")
	return cmd
}

// newVariantsCommand runs every check against every conforming variant of
// the reference adapter: a check that fails one fails what the seeds allow.
func newVariantsCommand(stdout, stderr io.Writer, getenv func(string) string, code *int) *cobra.Command {
	var (
		parallel int
		jsonOut  string
	)
	cmd := &cobra.Command{
		Use:   "variants [VARIANT ...]",
		Short: "Run every check against each conforming variant of the reference adapter; exit 1 if any check fails one",
		Long: `variants opens the reference adapter once per conforming variant (a single
freedom the seeds allow: another ellipsis, other labels, another id format…)
and runs every check against it, and once as shipped. A variant conforms when
no check fails it and every check that passes the shipped adapter passes it
too (not partly, not skipped). Anything else is a false failure of a check:
the exit code is 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			lessGC(getenv)
			results, err := matrix.Variants(cmd.Context(), matrix.Options{Only: args, Parallel: parallel, Progress: progressTo(stderr, getenv, "variants")})
			if err != nil {
				return err
			}
			matrix.WriteVariants(stdout, results)
			return finishMatrix(results, jsonOut, code)
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 2, "variants to run at once")
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the results as JSON to FILE")
	return cmd
}

// finishMatrix writes a matrix run's JSON when asked, and fails the run
// when any mutant or variant is not as it must be.
// lessGC collects garbage less often for a matrix run, which opens hundreds
// of short-lived adapters: a fifth less CPU (BENCHMARKS.md, "Test-suite
// time"). A GOGC the user sets wins.
func lessGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

func finishMatrix(results []matrix.Result, jsonOut string, code *int) error {
	if jsonOut != "" {
		data, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	for _, r := range results {
		if !r.OK() {
			*code = conformance.ExitFail
		}
	}
	return nil
}
