package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpcheck version, the Go toolchain that built it, and the JSON report schema",
		Args:  cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			fmt.Fprintf(stdout, "mcpcheck %s (%s %s/%s; report schema %s)\n",
				conformance.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, conformance.ReportSchema)
		},
	}
}
