#!/usr/bin/env bash
# mcpcheck against every independent adapter, each report scored against its
# adjudicated verdicts: Q, R and S from ../shared/adapters (skipped, saying so,
# where that folder is absent) and those in integration/adapters. A score
# fails on a false required failure, a false skip, a missed deviation or
# fewer than 50 judged scenarios. One adapter at a time (2 cores).
#   .ci/adapters.sh [NAME...]   NAME: q r s v t t-hosted u w w-hosted x x-hosted y y-hosted (default: all)
# Reports land in .cache/adapters/NAME.{json,txt}.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$PWD/.cache/adapters
mkdir -p "$out/bin"
go build -o "$out/bin/" ./cmd/mcpcheck ./cmd/pdpp-fake-rs || exit 1
export FAKE_RS=$out/bin/pdpp-fake-rs
shared=../shared/adapters
score=$shared/score.py
if [ ! -f "$score" ]; then
  echo "adapters: skipped: $shared is absent (it holds score.py and adapters q, r, s)"
  exit 0
fi
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(q r s v t t-hosted u w w-hosted x x-hosted y y-hosted)
failed=()
for n in "${names[@]}"; do
  case $n in
    q|r|s) run=("$shared/$n/run.sh"); exp=$out/expected-$n.json
      # the shared verdicts, with this repository's amendments (expected.json "amend")
      python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); a=json.load(open(sys.argv[2])).get("amend",{}).get(sys.argv[3],{})
for k,v in a.items(): d[sys.argv[3]].setdefault(k,{}).update(v)
json.dump(d,open(sys.argv[4],"w"),indent=2)' "$shared/expected.json" integration/adapters/expected.json "$n" "$exp" ;;
    t-hosted|w-hosted|x-hosted|y-hosted) run=("integration/adapters/${n%-hosted}/run.sh" --hosted); exp=integration/adapters/expected.json ;;
    *) run=("integration/adapters/$n/run.sh"); exp=integration/adapters/expected.json ;;
  esac
  # X is Java: a JDK from Debian's packages where the machine has none.
  if [ "${n%-hosted}" = x ] && ! command -v javac >/dev/null 2>&1; then
    echo "$n: installing a JDK (openjdk-17-jdk-headless) to build X"
    { apt-get install -y -q openjdk-17-jdk-headless || { apt-get update -q && apt-get install -y -q openjdk-17-jdk-headless; }; } >/dev/null 2>&1 ||
      echo "$n: could not install a JDK (javac is needed to build X)"
  fi
  rm -f "$out/$n.json"
  "${run[@]}" "$out/bin/mcpcheck" "$out/$n" >/dev/null 2>&1
  if [ ! -s "$out/$n.json" ]; then
    echo "$n: no report (see $out/$n.txt)"; failed+=("$n"); continue
  fi
  ok=1
  python3 "$score" "$out/$n.json" "$n" "$exp" || ok=
  judged=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for s in r["scenarios"] if str((s.get("result") or {}).get("verdict","")).lower() in ("pass","fail")))' "$out/$n.json")
  unwitnessed=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
for s in r["scenarios"]:
    res=s.get("result") or {}
    if "recommend" in str(res.get("fail_level","")).lower(): continue
    for c in res.get("clauses") or []:
        for f in c.get("failures") or []:
            if f.get("level")=="required" and not f.get("witness"): print(c.get("key"))' "$out/$n.json")
  if [ -n "$unwitnessed" ]; then echo "  required failures without a witness: $unwitnessed"; ok=; fi
  if [ "$judged" -lt 50 ]; then echo "  fewer than 50 scenarios judged ($judged)"; ok=; fi
  [ -n "$ok" ] || failed+=("$n")
done
if [ ${#failed[@]} -gt 0 ]; then echo "adapters: not as adjudicated: ${failed[*]}"; exit 1; fi
echo "adapters: every report as adjudicated"
