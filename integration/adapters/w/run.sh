#!/usr/bin/env bash
# Run the mcpcheck harness against this adapter.
#   run.sh MCPCHECK_BIN [OUT_PREFIX]            stdio mode ({rs_url}/{token} filled in by the harness)
#   run.sh --hosted MCPCHECK_BIN [OUT_PREFIX]   hosted Streamable HTTP mode against a fresh fake RS
# Dependencies are installed with `npm ci` into a cache dir (this folder may be read-only):
#   ${W_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/pdpp-adapter-w}
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOSTED=0
if [ "${1:-}" = "--hosted" ]; then HOSTED=1; shift; fi
MCPCHECK_BIN="${1:?usage: run.sh [--hosted] MCPCHECK_BIN [OUT_PREFIX]}"
OUT="${2:-$PWD/mcpcheck-w$([ $HOSTED = 1 ] && echo -hosted)}"
DEPS="${W_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/pdpp-adapter-w}"

prepare() {
  mkdir -p "$DEPS"
  (
    if command -v flock >/dev/null 2>&1; then flock 9; fi
    rm -rf "$DEPS/lib"
    cp "$SRC/server.mjs" "$SRC/package.json" "$SRC/package-lock.json" "$DEPS/"
    cp -R "$SRC/lib" "$DEPS/lib"
    stamp="$(sha256sum "$SRC/package-lock.json" | cut -d' ' -f1)"
    if [ ! -d "$DEPS/node_modules" ] || [ "$(cat "$DEPS/.lock-stamp" 2>/dev/null)" != "$stamp" ]; then
      (cd "$DEPS" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2)
      echo "$stamp" > "$DEPS/.lock-stamp"
    fi
  ) 9>"$DEPS/.install-lock"
}
prepare

if [ "$HOSTED" = 0 ]; then
  "$MCPCHECK_BIN" --stdio "node '$DEPS/server.mjs' --rs-url {rs_url}" --env "PDPP_CLIENT_TOKEN={token}" \
    --json "$OUT.json" > "$OUT.txt" 2>&1 || true
  exit 0
fi

FAKE="${FAKE_RS:-$(dirname "$MCPCHECK_BIN")/pdpp-fake-rs}"
WORK="$(mktemp -d)"
RS_PID=""; AD_PID=""
cleanup() {
  [ -n "$AD_PID" ] && kill "$AD_PID" 2>/dev/null || true
  [ -n "$RS_PID" ] && kill "$RS_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

wait_for() { # file key timeout_s
  local i=0
  while [ $i -lt $(( $3 * 10 )) ]; do
    if grep -q "^$2=" "$1" 2>/dev/null; then grep -m1 "^$2=" "$1" | cut -d= -f2-; return 0; fi
    sleep 0.1; i=$((i + 1))
  done
  return 1
}

"$FAKE" --profile spec --addr 127.0.0.1:0 > "$WORK/rs.out" 2> "$WORK/rs.err" &
RS_PID=$!
RS_URL="$(wait_for "$WORK/rs.out" url 20)" || { echo "fake RS did not start" >&2; cat "$WORK/rs.err" >&2; exit 1; }
wait_for "$WORK/rs.out" token 5 > "$WORK/token"
wait_for "$WORK/rs.out" control_token 5 > "$WORK/control_token" || true
CONTROL_URL="$(wait_for "$WORK/rs.out" control_url 5 || true)"

node "$DEPS/server.mjs" --rs-url "$RS_URL" --http --port 0 > "$WORK/adapter.out" 2> "$WORK/adapter.err" &
AD_PID=$!
MCP_URL="$(wait_for "$WORK/adapter.out" mcp_url 60)" || { echo "adapter did not start" >&2; cat "$WORK/adapter.err" >&2; exit 1; }

"$MCPCHECK_BIN" --url "$MCP_URL" --token-file "$WORK/token" --rs-control "$CONTROL_URL" \
  --rs-control-token-file "$WORK/control_token" --json "$OUT.json" > "$OUT.txt" 2>&1 || true
