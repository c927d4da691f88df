#!/bin/sh
# Run mcpcheck against Y, an independently written PDPP MCP adapter (Go,
# standard library only, no MCP SDK; stdio and hosted Streamable HTTP; see README.md and
# VERDICTS.md).
#
#   run.sh MCPCHECK_BIN [OUT_PREFIX]            Y over stdio
#   run.sh --hosted MCPCHECK_BIN [OUT_PREFIX]   Y serving /mcp, checked with
#                                               mcpcheck --url and --rs-control
#
# Writes OUT_PREFIX.json (JSON report) and OUT_PREFIX.txt (text report).
# Needs Go 1.26. Y is built into a temporary folder that is
# removed afterwards; nothing is written here. --hosted takes pdpp-fake-rs
# from FAKE_RS, else beside MCPCHECK_BIN. Y takes its RS URL from --rs-url
# and, over stdio, its client token from PDPP_CLIENT_TOKEN, where mcpcheck
# substitutes {token}.
set -eu
hosted=; [ "${1:-}" = --hosted ] && { hosted=1; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--hosted] MCPCHECK_BIN [OUT_PREFIX]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mc=$1; out=${2:-$(mktemp -d)/y}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d); rs=; ad=
cleanup() { [ -n "$ad" ] && kill "$ad" 2>/dev/null; [ -n "$rs" ] && kill "$rs" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
"$here/build.sh" "$tmp" 2>/dev/null || { echo "Y does not build (needs Go)" >&2; exit 1; }
if [ -z "$hosted" ]; then
  "$mc" --stdio "'$tmp/pdpp-mcp-y' --rs-url {rs_url}" --env "PDPP_CLIENT_TOKEN={token}" \
    --json "$out.json" > "$out.txt" 2>&1 || true
  tail -3 "$out.txt"; echo "report: $out.json"
  exit 0
fi
fake=${FAKE_RS:-$(dirname "$mc")/pdpp-fake-rs}
[ -x "$fake" ] || { echo "no pdpp-fake-rs at $fake (set FAKE_RS)" >&2; exit 1; }
# line KEY FILE [SEP]: the value after KEY and SEP (=) on the first such
# line FILE holds, waiting up to 60 s.
line() {
  i=0
  while [ $i -lt 600 ]; do
    v=$(sed -n "s/^.*$1${3:-=}//p" "$2" | head -1)
    [ -n "$v" ] && { echo "$v"; return 0; }
    i=$((i + 1)); sleep 0.1
  done
  echo "no $1 line in $2:" >&2; cat "$2" >&2; return 1
}
"$fake" --profile spec --addr 127.0.0.1:0 > "$tmp/rs.out" 2>&1 & rs=$!
rs_url=$(line url "$tmp/rs.out")
line token "$tmp/rs.out" > "$tmp/token"
line control_token "$tmp/rs.out" > "$tmp/control"
control=$(line control_url "$tmp/rs.out")
"$tmp/pdpp-mcp-y" --rs-url "$rs_url" --http --port 0 > "$tmp/y.out" 2>"$tmp/y.err" & ad=$!
mcp_url=$(line mcp_url "$tmp/y.out")
"$mc" --url "$mcp_url" --token-file "$tmp/token" --rs-control "$control" --rs-control-token-file "$tmp/control" \
  --json "$out.json" > "$out.txt" 2>&1 || true
tail -3 "$out.txt"; echo "report: $out.json"
