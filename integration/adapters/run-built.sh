#!/bin/sh
# Run mcpcheck against a clean-room adapter that builds with its own
# build.sh OUTDIR into OUTDIR/BINARY, runs over stdio as
# `BINARY --rs-url URL` (its client token in PDPP_CLIENT_TOKEN, where
# mcpcheck substitutes {token}), and serves hosted Streamable HTTP as
# `BINARY --rs-url URL --http --port 0`, printing `mcp_url=…` (X and Y).
#
#   run-built.sh DIR BINARY MCPCHECK_BIN [OUT_PREFIX]            over stdio
#   run-built.sh DIR BINARY --hosted MCPCHECK_BIN [OUT_PREFIX]   serving /mcp, checked
#                                          with mcpcheck --url and --rs-control
#
# Writes OUT_PREFIX.json (JSON report) and OUT_PREFIX.txt (text report).
# The adapter is built into a temporary folder that is removed afterwards;
# nothing is written into DIR. --hosted takes pdpp-fake-rs from FAKE_RS,
# else beside MCPCHECK_BIN.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 DIR BINARY [--hosted] MCPCHECK_BIN [OUT_PREFIX]" >&2; exit 2; }
dir=$(cd "$1" && pwd); bin=$2; shift 2
hosted=; [ "${1:-}" = --hosted ] && { hosted=1; shift; }
[ $# -ge 1 ] || { echo "usage: $dir/run.sh [--hosted] MCPCHECK_BIN [OUT_PREFIX]" >&2; exit 2; }
mc=$1; out=${2:-$(mktemp -d)/$(basename "$dir")}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d); rs=; ad=
cleanup() { [ -n "$ad" ] && kill "$ad" 2>/dev/null; [ -n "$rs" ] && kill "$rs" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
"$dir/build.sh" "$tmp" >/dev/null 2>&1 || { echo "$(basename "$dir") does not build (see $dir/README.md for what it needs)" >&2; exit 1; }
if [ -z "$hosted" ]; then
  "$mc" --stdio "'$tmp/$bin' --rs-url {rs_url}" --env "PDPP_CLIENT_TOKEN={token}" \
    --json "$out.json" > "$out.txt" 2>&1 || true
  tail -3 "$out.txt"; echo "report: $out.json"
  exit 0
fi
fake=${FAKE_RS:-$(dirname "$mc")/pdpp-fake-rs}
[ -x "$fake" ] || { echo "no pdpp-fake-rs at $fake (set FAKE_RS)" >&2; exit 1; }
# line KEY FILE: the value after KEY= on the first such line FILE holds,
# waiting up to 60 s.
line() {
  i=0
  while [ $i -lt 600 ]; do
    v=$(sed -n "s/^.*$1=//p" "$2" | head -1)
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
"$tmp/$bin" --rs-url "$rs_url" --http --port 0 > "$tmp/adapter.out" 2>"$tmp/adapter.err" & ad=$!
mcp_url=$(line mcp_url "$tmp/adapter.out")
"$mc" --url "$mcp_url" --token-file "$tmp/token" --rs-control "$control" --rs-control-token-file "$tmp/control" \
  --json "$out.json" > "$out.txt" 2>&1 || true
tail -3 "$out.txt"; echo "report: $out.json"
