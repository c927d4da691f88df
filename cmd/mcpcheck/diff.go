package main

import (
	"encoding/json"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

// newDiffCommand compares two JSON reports: what regressed, what was
// fixed, and how the footprint moved.
func newDiffCommand(stdout io.Writer, code *int) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "Compare two --json reports: regressions, fixes, breaking tool changes and footprint deltas; exit 1 on a regression",
		Long: `diff reads two JSON reports (` + conformance.ReportSchema + `) of the same target, for
instance main's and a pull request's, and lists every scenario and clause whose
verdict got worse (a regression: pass to partial, skip or fail…), better (a
fix), or otherwise changed (to or from n/a or manual, added or removed), then
each tool that changed, classified as --golden-dir does (BREAKING: removed,
an argument removed, newly required or of another type), and each tool whose
footprint changed. It exits 1 on a regression or a breaking tool change, and
2 when a report has no footprint (written with --no-footprint).`,
		Example: `  mcpcheck --url "$URL" --json main.json        # on main
  mcpcheck --url "$URL" --json pr.json          # on the pull request
  mcpcheck diff main.json pr.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			old, err := conformance.ReadReportToDiff(args[0])
			if err != nil {
				return err
			}
			new, err := conformance.ReadReportToDiff(args[1])
			if err != nil {
				return err
			}
			d := conformance.Diff(old, new)
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else {
				d.WriteText(stdout)
			}
			if d.Regressed() {
				*code = conformance.ExitFail
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diff as JSON")
	return cmd
}
