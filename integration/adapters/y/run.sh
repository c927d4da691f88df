#!/bin/sh
# Run mcpcheck against Y, an independently written PDPP MCP adapter (Go,
# standard library only, no MCP SDK; stdio and hosted Streamable HTTP; see
# README.md and VERDICTS.md). Needs Go 1.26.
#
#   run.sh MCPCHECK_BIN [OUT_PREFIX]            Y over stdio
#   run.sh --hosted MCPCHECK_BIN [OUT_PREFIX]   Y serving /mcp, checked with
#                                               mcpcheck --url and --rs-control
#
# The rest is run-built.sh's, shared with X.
exec "$(dirname "$0")/../run-built.sh" "$(dirname "$0")" pdpp-mcp-y "$@"
