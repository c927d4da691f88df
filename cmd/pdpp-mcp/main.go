// Command pdpp-mcp is the PDPP MCP reference adapter: stdio by default,
// stateless Streamable HTTP with `serve`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := adapter.Main(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
