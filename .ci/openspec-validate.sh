#!/usr/bin/env bash
# The scenario catalog is an OpenSpec tree (scenarios/openspec/): the
# official OpenSpec CLI (@fission-ai/openspec, pinned in .ci/npm) must accept
# every spec under --strict, as a spec author's own `openspec validate` would.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
start_ci openspec-validate

install_node_tools
export HOME="$WORK/home" OPENSPEC_TELEMETRY=0
mkdir -p "$HOME"
cd "$ROOT/scenarios"
timeout 120 openspec validate --all --strict --no-interactive --json >"$WORK/validate.json" 2>"$WORK/validate.stderr" || {
	cat "$WORK/validate.json" "$WORK/validate.stderr" >&2
	die "openspec validate --strict rejected scenarios/openspec"
}
specs=$(ls -d openspec/specs/*/ | wc -l)
passed=$(node -e 'const r=require(process.argv[1]); console.log((r.items||[]).filter(i=>i.valid).length)' "$WORK/validate.json")
[ "$passed" = "$specs" ] || { cat "$WORK/validate.json" >&2; die "openspec validated $passed of $specs specs"; }
log "openspec validate --strict: $passed of $specs specs valid"
