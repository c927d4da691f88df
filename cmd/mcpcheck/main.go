// Command mcpcheck runs the PDPP MCP conformance and footprint checks against
// the built-in reference adapter, a Streamable HTTP URL, or a stdio command.
package main

import "os"

func main() {
	os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
