package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpcheck version, the Go toolchain that built it, and the JSON report schema",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, versionLine()) },
	}
}

// versionLine is what `mcpcheck version` and `mcpcheck --version` print.
func versionLine() string {
	return fmt.Sprintf("mcpcheck %s (%s %s/%s; report schema %s)",
		conformance.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, conformance.ReportSchema)
}

// addVersionFlag gives the root command --version, as most CLIs have.
func addVersionFlag(root *cobra.Command) {
	root.Version = conformance.Version()
	root.SetVersionTemplate(strings.ReplaceAll(versionLine(), "{{", "{{`{{`}}") + "\n")
}
