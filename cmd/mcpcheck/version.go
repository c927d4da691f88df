package main

import (
	"fmt"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/cobra"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpcheck version",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, "mcpcheck "+conformance.Version()) },
	}
}
