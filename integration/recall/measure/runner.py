#!/usr/bin/env python3
"""Recall trial runner (issue 34): mcpcheck (MC) against p, s, t, y behind the frozen
fault proxy. Baseline (fault none) and conforming rewrites (kind ok) run
the whole registry; each fault runs its target scenarios only.
Env: MC (mcpcheck binary), OUT (output dir), J (parallel, default 2),
TRIAL (the fault set's folder), BIN (the adapter binaries: pdpp-mcp, s, t, y), ONLY (comma list of fault names)."""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
MC = os.environ["MC"]; OUT = os.environ["OUT"]; J = int(os.environ.get("J", "2"))
TRIAL = os.environ["TRIAL"]
BIN = os.environ["BIN"]
CMD = {"p": f"{BIN}/pdpp-mcp --provider-url {{rs_url}}", "s": f"{BIN}/s --provider-url {{rs_url}}",
       "t": f"{BIN}/t --rs-url {{rs_url}}", "y": f"{BIN}/y --rs-url {{rs_url}}"}
faults = json.load(open(f"{TRIAL}/faults.json"))
only = set(filter(None, os.environ.get("ONLY", "").split(",")))
os.makedirs(OUT, exist_ok=True)
def scen(ids): return sorted({i.split(".")[0] for i in ids})
jobs = []
for a in CMD: jobs.append(("none", a, []))
for f in faults:
    if only and f["name"] not in only: continue
    for a in (f.get("adapters") or list(CMD)):
        jobs.append((f["name"], a, [] if f["kind"] == "ok" else scen(f["targets"])))
def run(job):
    name, a, sc = job
    base = f"{OUT}/{name}.{a}"
    if os.path.exists(base + ".json") and os.path.getsize(base + ".json") > 0: return
    log = base + ".fired"
    if os.path.exists(log): os.remove(log)
    env = dict(os.environ, FAULT_LOG=log)
    cmd = [MC, "--stdio", f"python3 {TRIAL}/proxy.py {name} -- {CMD[a]}", "--env", "PDPP_CLIENT_TOKEN={token}",
           "--json", base + ".json"] + sc
    with open(base + ".txt", "w") as out:
        try: subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=900)
        except subprocess.TimeoutExpired: out.write("\nTIMEOUT\n")
    print(name, a, flush=True)
with ThreadPoolExecutor(J) as ex: list(ex.map(run, jobs))
