#!/bin/sh
# Run mcpcheck against V, an independently written PDPP MCP adapter
# (Perl 5 core modules only, MCP over stdio written by hand; see README.md
# and VERDICTS.md).
#
#   run.sh MCPCHECK_BIN [OUT_PREFIX]
#
# Writes OUT_PREFIX.json (JSON report) and OUT_PREFIX.txt (text report).
# Needs perl 5 (tried with 5.36). Nothing is installed and nothing is
# written here. V takes its RS URL from --rs-url and its client token from
# PDPP_CLIENT_TOKEN, where mcpcheck substitutes {token}.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 MCPCHECK_BIN [OUT_PREFIX]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mc=$1; out=${2:-$(mktemp -d)/v}
mkdir -p "$(dirname "$out")"
"$mc" --stdio "perl '$here/pdpp-mcp-v.pl' --rs-url {rs_url}" --env "PDPP_CLIENT_TOKEN={token}" \
  --json "$out.json" > "$out.txt" 2>&1 || true
tail -3 "$out.txt"; echo "report: $out.json"
