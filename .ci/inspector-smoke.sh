#!/usr/bin/env bash
# Smoke test with the MCP Inspector CLI (@modelcontextprotocol/inspector
# --cli, pinned in .ci/npm/package.json) against the reference adapter, over
# Streamable HTTP with an Authorization header and over stdio with the token
# in the child's environment: list the tools, call search.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
start_ci inspector-smoke

install_node_tools
build_binaries
start_fixture_rs
start_adapter_http

# The Inspector writes ~/.mcp-inspector; keep it out of the real HOME.
export HOME="$WORK/home"
mkdir -p "$HOME"
SURFACE="$ROOT/scenarios/surface.json"
PASSED=0

# inspect NAME ARGS...: run one Inspector CLI call, result in $WORK/NAME.json.
# It exits non-zero on a failed connection and 5 on an isError tool result.
inspect() {
	local name="$1"
	shift
	local status=0
	timeout 120 inspector --cli "$@" >"$WORK/$name.json" 2>"$WORK/$name.stderr" || status=$?
	if [ "$status" -ne 0 ]; then
		cat "$WORK/$name.json" "$WORK/$name.stderr" >&2
		die "$name: inspector exited $status"
	fi
}

pass() {
	PASSED=$((PASSED + 1))
	log "pass  $1"
}

log "inspector $(inspector --cli --version) against pdpp-mcp (HTTP at $MCP_URL, and stdio)"
auth="Authorization: Bearer $RS_TOKEN"
# --stored-auth-only: on a 401 fail at once instead of starting interactive OAuth.
http=("$MCP_URL" --transport http --stored-auth-only)

# --strict exits 6 on an error-severity tool-schema portability problem and
# prints warnings (type arrays, schemas that constrain nothing) on stderr:
# the reference adapter has none of either.
inspect http-tools-list "${http[@]}" --header "$auth" --method tools/list --strict
node "$ROOT/.ci/inspector-assert.mjs" tools "$WORK/http-tools-list.json" "$SURFACE"
if grep -q "^Warning: " "$WORK/http-tools-list.stderr"; then
	cat "$WORK/http-tools-list.stderr" >&2
	die "http tools/list --strict: schema portability warnings"
fi
pass "http tools/list: the six PDPP tools, described, no schema portability errors or warnings"

inspect http-search "${http[@]}" --header "$auth" --method tools/call --tool-name search --tool-arg q=budget
node "$ROOT/.ci/inspector-assert.mjs" search "$WORK/http-search.json"
pass "http tools/call search q=budget: hits, structuredContent, no isError"

# Negative control: without the header the adapter must refuse, so the
# passes above really went through the header.
if timeout 120 inspector --cli "${http[@]}" --method tools/list >"$WORK/http-no-auth.json" 2>&1; then
	die "http tools/list without Authorization succeeded; want a refusal"
fi
grep -q "Missing Bearer token" "$WORK/http-no-auth.json" || {
	cat "$WORK/http-no-auth.json" >&2
	die "http tools/list without Authorization failed for another reason than the missing bearer"
}
pass "http tools/list without Authorization: refused (Missing Bearer token)"

# stdio: the Inspector passes only -e variables (and a few safe ones) to the child.
inspect stdio-tools-list -e "PDPP_CLIENT_TOKEN=$RS_TOKEN" --method tools/list -- "$CACHE/bin/pdpp-mcp" --provider-url "$RS_URL"
node "$ROOT/.ci/inspector-assert.mjs" tools "$WORK/stdio-tools-list.json" "$SURFACE"
pass "stdio tools/list: the six PDPP tools"

inspect stdio-search -e "PDPP_CLIENT_TOKEN=$RS_TOKEN" --method tools/call --tool-name search --tool-arg q=budget -- "$CACHE/bin/pdpp-mcp" --provider-url "$RS_URL"
node "$ROOT/.ci/inspector-assert.mjs" search "$WORK/stdio-search.json"
pass "stdio tools/call search q=budget: hits, structuredContent, no isError"

echo "inspector-smoke: $PASSED passed, 0 failed"
