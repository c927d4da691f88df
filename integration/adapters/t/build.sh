#!/usr/bin/env bash
# Build the PDPP MCP adapter into OUTDIR without writing into this folder.
#   ./build.sh OUTDIR   ->   OUTDIR/pdpp-mcp-adapter
set -euo pipefail
if [ $# -lt 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
cd "$src"
# -mod=readonly: never rewrite go.mod/go.sum; -buildvcs=false: no VCS stamping.
CGO_ENABLED=0 go build -mod=readonly -buildvcs=false -trimpath -o "$out/pdpp-mcp-adapter" .
echo "$out/pdpp-mcp-adapter"
