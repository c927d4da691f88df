#!/usr/bin/env bash
# install.sh DEPSDIR — install pinned dependencies and a runnable copy of the adapter into DEPSDIR.
# The source folder is never written to (it may be read-only).
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 DEPSDIR" >&2; exit 2; fi
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS="$1"
mkdir -p "$DEPS"
DEPS="$(cd "$DEPS" && pwd)"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DEPS/"
rm -rf "$DEPS/src" "$DEPS/test"
cp -R "$SRC/src" "$DEPS/src"
cp -R "$SRC/test" "$DEPS/test"
cd "$DEPS"
npm ci --omit=dev --no-audit --no-fund --ignore-scripts
echo "installed into $DEPS (start with: $SRC/start.sh $DEPS --rs-url <RS URL>)"
