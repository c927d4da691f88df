#!/bin/sh
# Usage: ./build.sh OUTDIR   — builds OUTDIR/pdpp-mcp-y without writing into the source folder.
set -eu
OUT="${1:?usage: build.sh OUTDIR}"
SRC="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export GOFLAGS=-mod=mod
# Use the default build cache unless it is not writable.
CACHE="$(go env GOCACHE 2>/dev/null || true)"
if [ -z "$CACHE" ] || ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
  GOCACHE="$(mktemp -d)"; export GOCACHE
fi
cd "$SRC"
go build -buildvcs=false -o "$OUT/pdpp-mcp-y" .
