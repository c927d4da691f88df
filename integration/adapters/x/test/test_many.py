import json, sys
sys.argv = ["x"]
from test_mcp import Stdio, call, text, check, FAILS
c = Stdio("tok_many")
c.rpc("initialize", {"protocolVersion": "2025-06-18"})
g = call(c, "schema", {})
tx = text(g)
check(all(("s%02d" % i) in tx for i in range(45)) and "notes" in tx, "all 46 stream names visible in text", tx[:300])
check(g["structuredContent"]["data"]["detailed_rows_capped"] is True and "capped" in tx, "detailed rows capped", tx[-200:])
check(len(json.dumps(g)) < 20000, "global schema complete result bounded (%d bytes)" % len(json.dumps(g)))
f = call(c, "fetch", {"id": "notes/n1"})
e = f["structuredContent"]["error"]
check(e["code"] == "ambiguous_connection" and len(e["available_connections"]) == 10 and e["available_connections_truncated"] is True
      and e["available_connections_omitted"] == 2 and e["available_connection_count"] == 12 and "schema" in e["discovery_hint"] and "hint:" in text(f), "large-package ambiguity capped", e)
f = call(c, "fetch", {"id": "cin_1/notes/n1"})
check(not f.get("isError") and "note one" in f["structuredContent"]["text"], "fetch with connection in handle", f)
c.close()
print("FAILURES:", len(FAILS), FAILS); sys.exit(1 if FAILS else 0)
