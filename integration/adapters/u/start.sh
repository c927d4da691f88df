#!/usr/bin/env bash
# start.sh DEPSDIR [args...] — start the hosted MCP adapter from the copy installed by install.sh.
set -euo pipefail
if [ $# -lt 1 ]; then echo "usage: $0 DEPSDIR [--rs-url URL] [--host HOST] [--port PORT] [...]" >&2; exit 2; fi
DEPS="$1"; shift
if [ ! -f "$DEPS/src/server.mjs" ] || [ ! -d "$DEPS/node_modules" ]; then
  echo "$DEPS does not hold an installed adapter; run install.sh $DEPS first" >&2; exit 2
fi
exec node "$DEPS/src/server.mjs" "$@"
