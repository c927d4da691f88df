import json, random, sys
sys.argv = ["x"]
from test_mcp import Stdio, call
random.seed(7)
vals = [None, 0, -1, 10**15, 1.5, "", " ", "x", "../../etc", "a/b/c/d", "%2F", True, [], [1, 2], ["a"], {}, {"a": {"b": {"c": 1}}}, {"gte": []}, "\u0000", "é"*5000]
keys = ["stream", "connection_id", "fields", "filter", "sort", "order", "limit", "cursor", "changes_since", "count", "expand", "expand_limit", "metric", "field",
        "group_by", "query", "streams", "mode", "id", "record_id", "offset_chars", "limit_chars", "q", "before_chars", "after_chars", "detail", "granularity"]
c = Stdio("tok_client")
c.rpc("initialize", {"protocolVersion": "2025-06-18"})
bad = 0; internal = 0
for i in range(600):
    name = random.choice(["schema", "query_records", "aggregate", "search", "fetch", "read_record_field"])
    args = {random.choice(keys): random.choice(vals) for _ in range(random.randint(0, 4))}
    if random.random() < 0.5: args["stream"] = random.choice(["messages", "labels"])
    r = c.rpc("tools/call", {"name": name, "arguments": args})
    if "result" not in r: bad += 1; print("no result", name, args, r); continue
    if r["result"].get("isError") and r["result"]["structuredContent"]["error"]["code"] == "internal_error":
        internal += 1; print("internal", name, json.dumps(args)[:200])
print("calls ok; rpc-level errors:", bad, "internal:", internal, "alive:", c.p.poll() is None)
c.close()
