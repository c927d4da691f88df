#!/usr/bin/env python3
"""End-to-end tests: stub RS + built adapter, over stdio and hosted HTTP.
Usage: test_adapter.py BINARY"""
import json, os, subprocess, sys, threading, time, urllib.request, urllib.error
sys.path.insert(0, os.path.dirname(__file__))
from mcpclient import Stdio

BIN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = []
def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond: FAILS.append(msg)

rs = subprocess.Popen([sys.executable, os.path.join(HERE, "stub_rs.py"), "0"], stdout=subprocess.PIPE, text=True)
RS = rs.stdout.readline().strip().split("=", 1)[1]
def stub(path):
    return json.load(urllib.request.urlopen(RS + path))

def text(r): return r["content"][0]["text"]

def run_tool_suite(call, label):
    # schema index
    r = call("schema", {})
    check(not r["isError"] and "messages" in text(r) and "notes" in text(r), f"{label}: schema index lists every stream")
    check("data" in r["structuredContent"] and "data" not in r["structuredContent"]["data"], f"{label}: schema index under structuredContent.data")
    r = call("schema", {"stream": "messages"})
    t = text(r)
    check(not r["isError"] and "cin_a" in t and "cin_b" in t and "Legend" in t and "group_by" in t and "label" in t, f"{label}: schema(stream) has connections, legend, fields, aggregations")
    r = call("schema", {"stream": "messages", "connection_id": "cin_b"})
    check(not r["isError"] and "cin_b" in text(r) and "cin_a" not in text(r), f"{label}: schema(stream, connection_id) narrows to one connection")
    r = call("schema", {"detail": "full"})
    check(r["isError"] and "schema(stream, connection_id, detail: \"full\")" in text(r), f"{label}: detail full without stream rejected")
    r = call("schema", {"stream": "messages", "detail": "full"})
    check(r["isError"] and r["structuredContent"]["error"]["retry_with"] == "connection_id", f"{label}: ambiguous full schema -> retry_with connection_id")
    r = call("schema", {"stream": "messages", "detail": "full", "connection_id": "cin_a"})
    d = r["structuredContent"].get("data", {})
    check(not r["isError"] and "connectors" in d and "data" not in d and "streams" not in d, f"{label}: scoped full schema directly under data, no duplicate streams")
    r = call("schema", {"stream": "nope"})
    check(r["isError"], f"{label}: unknown stream is a typed error")
    # query_records
    r = call("query_records", {"stream": "messages", "connection_id": "cin_a", "limit": 2, "count": True})
    sc = r["structuredContent"]
    check(not r["isError"] and sc.get("next_cursor") and sc["next_cursor"] in text(r) and "count: 3" in text(r), f"{label}: query_records shows next_cursor and count in text")
    r2 = call("query_records", {"stream": "messages", "connection_id": "cin_a", "limit": 2, "cursor": sc["next_cursor"]})
    check(not r2["isError"] and len(r2["structuredContent"]["records"]) == 1, f"{label}: cursor paging works")
    r = call("query_records", {"stream": "messages", "connection_id": "cin_a", "changes_since": "beginning"})
    check("next_changes_since" in text(r), f"{label}: next_changes_since visible")
    r = call("query_records", {"stream": "messages", "connection_id": "cin_a", "fields": ["subject"]})
    recs = r["structuredContent"]["records"]
    check(all(set(x["data"]) <= {"subject"} for x in recs) and "body:" not in text(r), f"{label}: projection narrows payload")
    r = call("query_records", {"stream": "messages", "connection_id": "cin_a"})
    t = text(r)
    check("binary not inlined" in t and "blob_9" in t and "AAECAwQF" not in t, f"{label}: blob/binary metadata only")
    check("⟨cut: showing 240" in t and "read_record_field" in t, f"{label}: long text cut with continuation")
    big = [x for x in r["structuredContent"]["records"] if x["id"] == "msg_1"][0]
    check(big.get("truncated_fields") and len(big["data"]["body"]) <= 4000, f"{label}: structured long strings bounded with descriptor")
    r = call("query_records", {"stream": "messages", "limit": 1})
    check("Sources on this page" in text(r) and "partial_results" in text(r), f"{label}: fan-in shows source mix and partial warning")
    before = stub("/_stub/state")["records_calls"]
    r = call("query_records", {"stream": "messages", "expand": ["related"]})
    after = stub("/_stub/state")["records_calls"]
    e = r["structuredContent"].get("error", {})
    check(r["isError"] and e.get("code") == "invalid_expand" and "messages" in e["message"] and "GET /v1/schema" in e["message"] and before == after, f"{label}: expand gated before RS records call")
    r = call("fetch", {"stream": "messages", "record_id": "msg_1", "connection_id": "cin_a", "expand": ["related"]})
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "invalid_expand", f"{label}: fetch expand gated")
    r = call("query_records", {"stream": "notes", "expand": ["related"], "limit": 1})
    check(not r["isError"], f"{label}: expand forwarded on advertising stream")
    stub("/_stub/toggle_expand")
    r = call("query_records", {"stream": "notes", "expand": ["related"], "limit": 1})
    stub("/_stub/toggle_expand")
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "invalid_expand", f"{label}: expand gate follows live schema")
    r = call("query_records", {"stream": "messages", "filter": {"sent_at": {"between": 1}}})
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "invalid_argument", f"{label}: bad filter operator typed error")
    r = call("query_records", {"stream": "messages", "connector_instance_id": "cin_a"})
    check(r["isError"] and "connection_id" in text(r), f"{label}: connector_instance_id refused")
    r = call("query_records", {"stream": "forbidden"})
    check(r["isError"], f"{label}: ungranted stream error passes through")
    # aggregate
    r = call("aggregate", {"stream": "messages", "metric": "count", "group_by": "label", "connection_id": "cin_a"})
    check(not r["isError"] and "| bank | 2 |" in text(r), f"{label}: aggregate grouped table")
    r = call("aggregate", {"stream": "messages", "metric": "bogus"})
    check(r["isError"], f"{label}: aggregate bad metric")
    # search
    r = call("search", {"query": "overdraft", "limit": 1})
    hits = r["structuredContent"]["results"]
    check(len(hits) == 1 and all(k in hits[0] for k in ("connection_id", "connector_key", "stream", "record_id", "id", "title")), f"{label}: search global limit + source identity")
    r = call("search", {"query": "overdraft"})
    hits = r["structuredContent"]["results"]
    t = text(r)
    check(len(hits) == 2 and "Source mix" in t and "<mark>" in t and t.count("<mark>") == t.count("</mark>"), f"{label}: source mix + balanced marks")
    check(all("<mark>" not in h["title"] for h in hits) and "2026-03-01T09:00:00Z" in hits[0]["title"], f"{label}: title is identity, prefers authored time")
    ev = hits[0]["evidence"][0]["read"]["arguments"]
    r = call("read_record_field", ev)
    check(not r["isError"] and "OVERDRAFT" in r["structuredContent"]["text"] and r["structuredContent"].get("next"), f"{label}: evidence read continuation works")
    r = call("search", {"query": "overdraft", "connection_id": "cin_b"})
    check(all(h["connection_id"] == "cin_b" for h in r["structuredContent"]["results"]), f"{label}: search scoped to connection")
    r = call("search", {"query": "overdraft", "mode": "semantic"})
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "search_mode_unavailable", f"{label}: unavailable semantic mode typed error")
    # fetch
    r = call("fetch", {"id": hits[0]["id"]})
    sc = r["structuredContent"]
    check(set(sc) == {"id", "title", "text", "url", "metadata"} and json.loads(text(r)) == sc and len(r["content"]) == 1, f"{label}: fetch document + exact JSON mirror")
    check("data" not in sc and "request_id" not in json.dumps(sc) and "provider_url" not in sc, f"{label}: fetch has no data/request_id")
    r = call("fetch", {"id": "cin_a/messages/msg_2", "fields": ["subject"]})
    sc = r["structuredContent"]
    check("Photo" in sc["text"] and "See attached" not in json.dumps(sc) and "blob_9" not in json.dumps(sc) and sc["metadata"]["connection_id"] == "cin_a", f"{label}: fetch projection leaks nothing")
    r = call("fetch", {"stream": "messages", "record_id": "shared_1"})
    e = r["structuredContent"].get("error", {})
    check(r["isError"] and e.get("code") == "ambiguous_connection" and e.get("retry_with") == "connection_id" and all({"grant_id", "connector_key", "connection_id"} <= set(x) for x in e["available_connections"]), f"{label}: ambiguous_connection typed + enriched")
    r = call("fetch", {"id": "cin_a/notes/note_3"})
    check(r["structuredContent"]["title"] == "Note number 3", f"{label}: fetch title from declared role")
    r = call("fetch", {"id": "???"})
    check(r["isError"], f"{label}: bad handle typed error")
    # read_record_field
    r = call("read_record_field", {"id": "cin_a/messages/msg_1", "field": "body"})
    sc = r["structuredContent"]
    check(sc["start_chars"] == 0 and sc["end_chars"] == 4000 and not sc["complete"] and sc["next"]["arguments"]["offset"] == 4000, f"{label}: field window offsets + next")
    r = call("read_record_field", {"id": "cin_a/notes/note_1", "field": "text"})
    check(r["structuredContent"]["complete"] and "complete field" in text(r), f"{label}: small field inline + complete")
    r = call("read_record_field", {"id": "cin_a/messages/msg_2", "field": "attachment"})
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "field_not_text", f"{label}: non-text field typed error")
    r = call("read_record_field", {"stream": "messages", "record_id": "shared_1", "field": "body"})
    check(r["isError"] and r["structuredContent"]["error"]["code"] == "ambiguous_connection", f"{label}: field read ambiguity")
    r = call("read_record_field", {"id": "cin_a/messages/msg_1", "field": "body", "offset": "abc"})
    check(r["isError"], f"{label}: bad offset typed error")

# ---------------- stdio ----------------
s = Stdio(BIN, RS)
init = s.req("initialize", {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
check(init["result"]["protocolVersion"] == "2024-11-05" and "instructions" in init["result"], "stdio: initialize negotiates version, has instructions")
s.notify("notifications/initialized")
tl = s.req("tools/list")["result"]["tools"]
check([t["name"] for t in tl] == ["schema", "query_records", "aggregate", "search", "fetch", "read_record_field"], "stdio: exactly six tools")
check("connector_instance_id" not in json.dumps(tl), "stdio: no connector_instance_id")
check(s.raw("{not json")["error"]["code"] == -32700, "stdio: parse error answered")
check(s.req("bogus/method")["error"]["code"] == -32601, "stdio: unknown method")
check(s.req("ping")["result"] == {}, "stdio: ping")
run_tool_suite(s.call, "stdio")
rr = s.req("resources/read", {"uri": "pdpp://blob/blob_9?connection_id=cin_a"})
check(rr.get("result", {}).get("contents", [{}])[0].get("mimeType") == "image/png", "stdio: blob resource readable")
rr = s.req("resources/read", {"uri": "pdpp://blob/nope"})
check("error" in rr, "stdio: missing blob resource -> JSON-RPC error")
r = s.call("query_records", {"stream": "messages", "changes_since": "beginning"})
e = r["structuredContent"].get("error", {})
check(r["isError"] and e.get("retry_with") == "connection_id" and e.get("available_connections"), "stdio: fan-in changes_since error is typed with connections")
r = s.call("query_records", {"stream": "messages", "connection_id": "cin_a"})
check("pdpp://blob/blob_9?connection_id=cin_a" in text(r), "stdio: blob continuation URI visible")
for bad in [{"stream": 5}, {"stream": "messages", "limit": "x"}, {"stream": "messages", "fields": {"a": 1}}, {"stream": "messages", "filter": [1]}, {"stream": "messages", "limit": 1000}]:
    r = s.call("query_records", bad)
    check(r["isError"], f"stdio: bad args {bad} -> tool error")
s.close()
check(s.p.returncode == 0, "stdio: clean exit on EOF")

# owner token in environment: setup rejected
p = subprocess.run([BIN, "--rs-url", RS], input="", capture_output=True, text=True, env=dict(os.environ, PDPP_CLIENT_TOKEN="tok_owner"), timeout=10)
check(p.returncode != 0 and "owner" in p.stderr and p.stdout == "", "stdio: owner token in env rejects setup")

# ---------------- hosted ----------------
h = subprocess.Popen([BIN, "--rs-url", RS, "--http", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = h.stdout.readline().strip()
check(line.startswith("mcp_url=http://127.0.0.1:") and line.endswith("/mcp"), "hosted: prints mcp_url line")
URL = line.split("=", 1)[1]

def post(body, token="tok_client", raw=False):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(URL, data=data, method="POST", headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    if token: req.add_header("Authorization", "Bearer " + token)
    try:
        resp = urllib.request.urlopen(req, timeout=30)
        b = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}, (json.loads(b) if b else None)
    except urllib.error.HTTPError as e:
        b = e.read()
        return e.code, {k.lower(): v for k, v in e.headers.items()}, (json.loads(b) if b else None)

st, hd, body = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}, token=None)
check(st == 401 and "resource_metadata=" in hd.get("www-authenticate", "") and body["error"]["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp"), "hosted: 401 challenge without bearer")
st, _, body = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}, token="tok_owner")
check(st == 403, "hosted: owner bearer rejected 403")
st, hd, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize"}, token="tok_unknown")
check(st == 401 and "www-authenticate" in hd, "hosted: invalid bearer 401")
st, _, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize"}, token="tok_revoked")
check(st == 403, "hosted: revoked grant 403")
md = json.load(urllib.request.urlopen(URL.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")))
check(md["resource"] == URL and md["authorization_servers"] and "profile" not in json.dumps(md), "hosted: protected-resource metadata")
try:
    urllib.request.urlopen(urllib.request.Request(URL, headers={"Authorization": "Bearer tok_client"}))
    check(False, "hosted: GET /mcp 405")
except urllib.error.HTTPError as e:
    check(e.code == 405, "hosted: GET /mcp 405")
st, hd, body = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}})
check(st == 200 and body["result"]["protocolVersion"] == "2025-03-26", "hosted: initialize")
st, _, body = post({"jsonrpc": "2.0", "method": "notifications/initialized"})
check(st == 202 and body is None, "hosted: notification 202")
st, _, body = post(b"{garbage")
check(st == 200 and body["error"]["code"] == -32700, "hosted: garbage body answered")
st, _, body = post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}])
check(st == 200 and isinstance(body, list) and len(body) == 2, "hosted: batch")

def hcall(name, args):
    st, _, body = post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name, "arguments": args}})
    return body["result"]
run_tool_suite(hcall, "hosted")

# concurrency
results = []
def worker(i):
    try:
        r = hcall(["search", "query_records", "schema", "fetch"][i % 4], [{"query": "overdraft"}, {"stream": "notes", "limit": 2}, {"stream": "messages"}, {"id": "cin_a/notes/note_1"}][i % 4])
        results.append(not r["isError"])
    except Exception as ex:
        results.append(False)
ths = [threading.Thread(target=worker, args=(i,)) for i in range(40)]
[t.start() for t in ths]; [t.join() for t in ths]
check(len(results) == 40 and all(results), "hosted: 40 concurrent tool calls succeed")
check(h.poll() is None, "hosted: server still alive")
h.terminate(); rs.terminate()
print(f"\n{len(FAILS)} failure(s)")
sys.exit(1 if FAILS else 0)
