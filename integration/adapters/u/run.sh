#!/bin/sh
# Run mcpcheck against U, an independently written PDPP MCP adapter
# (Node 20, ESM, tmcp; hosted Streamable HTTP only; see README.md and
# VERDICTS.md), as a deployment is checked: mcpcheck --url, with the
# adapter reading a pdpp-fake-rs whose control plane mcpcheck is lent.
#
#   run.sh MCPCHECK_BIN [OUT_PREFIX]
#
# Writes OUT_PREFIX.json (JSON report) and OUT_PREFIX.txt (text report).
# Needs node 20+ and npm. pdpp-fake-rs is taken from FAKE_RS, else beside
# MCPCHECK_BIN. On first use (and whenever package-lock.json changes) the
# locked dependencies are installed with npm ci into
# ${U_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/pdpp-adapter-u}; U runs from a
# fresh copy of its sources placed there (this folder may be read-only).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 MCPCHECK_BIN [OUT_PREFIX]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mc=$1; out=${2:-$(mktemp -d)/u}
fake=${FAKE_RS:-$(dirname "$mc")/pdpp-fake-rs}
deps=${U_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/pdpp-adapter-u}
[ -x "$fake" ] || { echo "no pdpp-fake-rs at $fake (set FAKE_RS)" >&2; exit 1; }
mkdir -p "$deps" "$(dirname "$out")"
if [ ! -d "$deps/node_modules/tmcp" ] || ! cmp -s "$here/package-lock.json" "$deps/package-lock.json"; then
  "$here/install.sh" "$deps" >/dev/null || { echo "install.sh failed in $deps" >&2; exit 1; }
else
  rm -rf "$deps/src" && cp -R "$here/src" "$deps/src"
fi
tmp=$(mktemp -d); rs=; ad=
cleanup() { [ -n "$ad" ] && kill "$ad" 2>/dev/null; [ -n "$rs" ] && kill "$rs" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
# line KEY FILE: the value of the first KEY= line FILE holds, waiting up to 60 s.
line() {
  i=0
  while [ $i -lt 600 ]; do
    v=$(sed -n "s/^$1=//p" "$2" | head -1)
    [ -n "$v" ] && { echo "$v"; return 0; }
    i=$((i + 1)); sleep 0.1
  done
  echo "no $1= line in $2:" >&2; cat "$2" >&2; return 1
}
"$fake" --profile spec --addr 127.0.0.1:0 > "$tmp/rs.out" 2>&1 & rs=$!
rs_url=$(line url "$tmp/rs.out")
line token "$tmp/rs.out" > "$tmp/token"
line control_token "$tmp/rs.out" > "$tmp/control"
control=$(line control_url "$tmp/rs.out")
node "$deps/src/server.mjs" --rs-url "$rs_url" --port 0 > "$tmp/u.out" 2>&1 & ad=$!
mcp_url=$(line mcp_url "$tmp/u.out")
"$mc" --url "$mcp_url" --token-file "$tmp/token" --rs-control "$control" --rs-control-token-file "$tmp/control" \
  --json "$out.json" > "$out.txt" 2>&1 || true
tail -3 "$out.txt"; echo "report: $out.json"
