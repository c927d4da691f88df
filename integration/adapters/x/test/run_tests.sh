#!/usr/bin/env bash
# Build the adapter, start the stub RS, run stdio, hosted, large-package and fuzz tests.
set -u -o pipefail
cd "$(dirname "$0")"
OUT=$(mktemp -d); LOGS=$(mktemp -d)
../build.sh "$OUT" || exit 1
PORT=18931
python3 stub_rs.py $PORT > "$LOGS/rs.log" 2>&1 &
RSPID=$!
trap 'kill $RSPID 2>/dev/null; rm -rf "$OUT" "$LOGS"' EXIT
sleep 1
export RS=http://127.0.0.1:$PORT ADAPTER=$OUT/pdpp-mcp-x
rc=0
python3 test_mcp.py stdio | tail -1 || rc=1
python3 test_http.py | tail -1 || rc=1
python3 test_many.py | tail -1 || rc=1
python3 fuzz.py | tail -1 || rc=1
exit $rc
