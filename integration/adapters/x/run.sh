#!/bin/sh
# Run mcpcheck against X, an independently written PDPP MCP adapter (Java 17,
# JDK only, no MCP SDK; stdio and hosted Streamable HTTP; see README.md and
# VERDICTS.md). Needs a JDK 17+ (javac, java).
#
#   run.sh MCPCHECK_BIN [OUT_PREFIX]            X over stdio
#   run.sh --hosted MCPCHECK_BIN [OUT_PREFIX]   X serving /mcp, checked with
#                                               mcpcheck --url and --rs-control
#
# The rest is run-built.sh's, shared with Y.
exec "$(dirname "$0")/../run-built.sh" "$(dirname "$0")" pdpp-mcp-x "$@"
