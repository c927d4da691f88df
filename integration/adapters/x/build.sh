#!/usr/bin/env bash
# Build pdpp-mcp-x: build.sh OUTDIR  -> OUTDIR/classes and OUTDIR/pdpp-mcp-x
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 OUTDIR" >&2; exit 2; fi
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/src"
OUT="$1"
if ! command -v javac >/dev/null 2>&1; then
  echo "error: javac (JDK 17+) not found on PATH; install a JDK to build pdpp-mcp-x" >&2
  exit 1
fi
mkdir -p "$OUT/classes"
OUT="$(cd "$OUT" && pwd)"
find "$SRC" -name '*.java' > "$OUT/.sources"
javac --release 17 -encoding UTF-8 -d "$OUT/classes" @"$OUT/.sources"
rm -f "$OUT/.sources"
cat > "$OUT/pdpp-mcp-x" <<LAUNCH
#!/usr/bin/env bash
exec java -cp "$OUT/classes" pdpp.x.Main "\$@"
LAUNCH
chmod +x "$OUT/pdpp-mcp-x"
echo "built $OUT/pdpp-mcp-x" >&2
