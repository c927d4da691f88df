import json, sys
sys.argv=["x"]
from test_mcp import Stdio, call, text
c = Stdio("tok_client")
c.rpc("initialize", {"protocolVersion": "2025-06-18"})
for name, args in [("schema", {}), ("schema", {"stream": "messages", "connection_id": "cin_b"}), ("search", {"query": "overdraft", "limit": 3}),
                   ("query_records", {"stream": "messages", "limit": 3}), ("fetch", {"id": "cin_a/messages/msg_3"}), ("fetch", {"id": "messages/msg_shared"}),
                   ("aggregate", {"stream": "messages", "metric": "count", "group_by": "label"})]:
    r = call(c, name, args)
    print("=====", name, json.dumps(args)); print(text(r)[:2500]); print("--- structured:", json.dumps(r.get("structuredContent"))[:800])
c.close()
