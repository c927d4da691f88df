#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against the reference adapter over Streamable HTTP:
#
#   pdpp-fake-rs --spec-client-reads  <-  pdpp-mcp serve  <-  mcp-authproxy  <-  suite
#
# The suite has no auth flags, so mcp-authproxy adds the fixture's client
# token as the bearer. Scenarios that only make sense against the suite's own
# fixture server are listed, with reasons, in official-conformance-baseline.yml;
# every other scenario must pass, and a listed one that passes fails the run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
start_ci official-conformance

# The protocol revision mcpcheck and pdpp-mcp pin (conformance/target.go).
SPEC_VERSION=2025-11-25
BASELINE="$ROOT/.ci/official-conformance-baseline.yml"
# Scenarios that apply to a PDPP adapter and pass today (docs/CI.md).
MIN_PASSED=7

install_node_tools
build_binaries
start_fixture_rs
start_adapter_http
start_authproxy

log "conformance $(conformance --version) (spec $SPEC_VERSION) against pdpp-mcp at $MCP_URL via mcp-authproxy"
status=0
timeout 600 conformance server --url "$PROXY_URL" --spec-version "$SPEC_VERSION" \
	--expected-failures "$BASELINE" --timeout 30000 -o "$WORK/results" >"$WORK/suite.log" 2>&1 || status=$?

summary=0
node "$ROOT/.ci/conformance-summary.mjs" "$WORK/results" "$BASELINE" | tee "$WORK/summary.txt" || summary=$?
if [ "$status" -ne 0 ]; then
	# the suite's baseline verdict, without its colour codes
	sed -n '/Expected failures (in baseline)/,$p' "$WORK/suite.log" | sed 's/\x1b\[[0-9;]*m//g' >&2
	die "the official conformance suite exited $status; full log: $WORK/suite.log"
fi
# The suite's exit status alone would pass a run that checked nothing: a new
# pin or filter that ran no scenario, or dropped the ones the adapter serves.
[ "$summary" -eq 0 ] || die "the results could not be summarised (exit $summary); full log: $WORK/suite.log"
passed=$(sed -n 's/^official-conformance: \([0-9]*\) passed.*/\1/p' "$WORK/summary.txt")
[ "${passed:-0}" -ge "$MIN_PASSED" ] || die "only ${passed:-0} scenarios passed, want at least $MIN_PASSED; full log: $WORK/suite.log"
