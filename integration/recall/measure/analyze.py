#!/usr/bin/env python3
"""Recall trial analysis (issue 34): caught, masked, not fired, wrong reason, false alarms."""
import json, os, sys
from collections import defaultdict
OUT = os.environ["OUT"]; TRIAL = os.environ["TRIAL"]
faults = json.load(open(f"{TRIAL}/faults.json"))
def clauses(path):
    try: r = json.load(open(path))
    except Exception: return None
    res = {}
    for s in r["scenarios"]:
        rr = s.get("result") or {}
        for c in rr.get("clauses") or []:
            res[c["key"]] = c.get("outcome")
        res[s["id"]] = rr.get("verdict")
    return res
def failing(cl): return {k for k, v in cl.items() if "." in k and str(v).startswith("fail")}
def hits(ids, keys): return {k for k in keys if any(k == i or k.startswith(i + ".") for i in ids)}
base = {a: clauses(f"{OUT}/none.{a}.json") for a in "psty"}
tot = defaultdict(lambda: [0, 0]); bykind = defaultdict(lambda: [0, 0]); lines = []
for f in faults:
    for a in (f.get("adapters") or list("psty")):
        cl = clauses(f"{OUT}/{f['name']}.{a}.json")
        fired = os.path.exists(f"{OUT}/{f['name']}.{a}.fired") and os.path.getsize(f"{OUT}/{f['name']}.{a}.fired") > 0
        if cl is None: lines.append(f"NOREPORT {f['name']} {a}"); continue
        new = failing(cl) - failing(base[a])
        if f["kind"] == "ok":
            st = "FALSE-ALARM " + ",".join(sorted(new)) if new else "ok"
            lines.append(f"{st:12} {f['name']} {a}"); continue
        t = f["targets"]
        passing = {k for k, v in base[a].items() if "." in k and v == "pass"}
        failing_base = failing(base[a])
        if not fired and hits(t, failing_base): st = "masked"  # the baseline already fails what the fault would break
        elif not fired and not hits(t, passing): st = "UNEXERCISED"  # mcpcheck never made the call the fault needs: a miss
        elif not fired: st = "notfired"
        elif hits(t, new): st = "CAUGHT"
        elif not hits(t, {k for k, v in base[a].items() if "." in k and v == "pass"}): st = "masked"
        elif hits({i.split(".")[0] for i in t}, new): st = "SCENARIO:" + ",".join(sorted(new))
        elif new: st = "WRONG:" + ",".join(sorted(new))
        else: st = "missed"
        if st in ("CAUGHT", "missed", "UNEXERCISED") or st.startswith("WRONG") or st.startswith("SCENARIO"):
            tot[a][1] += 1; bykind[f["kind"]][1] += 1
            if st == "CAUGHT": tot[a][0] += 1; bykind[f["kind"]][0] += 1
        tgt_out = ",".join(f"{k}={cl.get(k)}" for k in sorted(hits(t, cl.keys())))
        lines.append(f"{st:10} k{f['kind']} {f['name']} {a}  [{tgt_out}]")
print("\n".join(lines))
print()
for a in "psty": print(f"{a}: {tot[a][0]}/{tot[a][1]}")
print("all:", sum(v[0] for v in tot.values()), "/", sum(v[1] for v in tot.values()))
for k in sorted(bykind, key=str): print(f"kind {k}: {bykind[k][0]}/{bykind[k][1]}")
