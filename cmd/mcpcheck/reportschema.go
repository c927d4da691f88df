package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

func newReportSchemaCommand(stdout io.Writer) *cobra.Command {
	var validate string
	cmd := &cobra.Command{
		Use:   "report-schema [--validate FILE]",
		Short: "Print the JSON Schema of the --json report (" + conformance.ReportSchema + "), or validate a report against it",
		Example: `  mcpcheck report-schema > report.schema.json
  mcpcheck --json report.json; mcpcheck report-schema --validate report.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if validate == "" {
				_, err := stdout.Write(conformance.ReportJSONSchema())
				return err
			}
			data, err := os.ReadFile(validate)
			if err != nil {
				return usageError{fmt.Errorf("--validate: %w", err)}
			}
			var se *conformance.ReportSchemaError
			switch err := conformance.ValidateReportJSON(data); {
			case errors.As(err, &se) && se.NotJSON:
				return usageError{fmt.Errorf("--validate %s: %w", validate, err)}
			case errors.As(err, &se):
				fmt.Fprintf(stdout, "%s: not a valid %s report: %d violations\n", validate, conformance.ReportSchema, len(se.Violations))
				for _, v := range se.Violations {
					fmt.Fprintf(stdout, "  %s\n", v)
				}
				return fmt.Errorf("%s: %w", validate, err)
			case err != nil:
				return err
			}
			fmt.Fprintf(stdout, "%s: valid %s report\n", validate, conformance.ReportSchema)
			return nil
		},
	}
	cmd.Flags().StringVar(&validate, "validate", "", "validate the JSON report in FILE instead of printing the schema")
	return cmd
}
