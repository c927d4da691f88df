#!/usr/bin/env python3
"""End-to-end tests for pdpp-mcp-x against stub_rs.py, over stdio and hosted HTTP."""
import json, os, subprocess, sys, threading, urllib.request, urllib.error, concurrent.futures

ADAPTER = os.environ["ADAPTER"]
RS = os.environ.get("RS", "http://127.0.0.1:18931")
FAILS = []
def check(cond, name, detail=""):
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else "  :: " + str(detail)[:600]))
    if not cond: FAILS.append(name)

class Stdio:
    def __init__(self, token):
        env = dict(os.environ); env["PDPP_CLIENT_TOKEN"] = token
        self.p = subprocess.Popen([ADAPTER, "--rs-url", RS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.n = 0
    def raw(self, line):
        self.p.stdin.write(line + "\n"); self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())
    def rpc(self, method, params=None):
        self.n += 1
        return self.raw(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params or {}}))
    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n"); self.p.stdin.flush()
    def close(self): self.p.stdin.close(); self.p.wait(5)

class Http:
    def __init__(self, url, token): self.url, self.token, self.n, self.sid = url, token, 0, None
    def post(self, body, headers=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.token: h["Authorization"] = "Bearer " + self.token
        if self.sid: h["Mcp-Session-Id"] = self.sid
        h.update(headers or {})
        req = urllib.request.Request(self.url, data=body.encode(), headers=h, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode()
    def raw(self, line):
        st, h, b = self.post(line)
        return json.loads(b) if b else None
    def rpc(self, method, params=None):
        self.n += 1
        st, h, b = self.post(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params or {}}))
        if method == "initialize" and "Mcp-Session-Id" in h: self.sid = h["Mcp-Session-Id"]
        return json.loads(b)
    def notify(self, method):
        st, h, b = self.post(json.dumps({"jsonrpc": "2.0", "method": method}))
        check(st == 202, "notification -> 202", st)
    def close(self): pass

def call(c, name, args):
    r = c.rpc("tools/call", {"name": name, "arguments": args})
    return r.get("result") or r

def text(res): return "\n".join(x.get("text", "") for x in res.get("content", []))

def scenario(c, label):
    P = lambda n: label + ": " + n
    r = c.rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
    res = r["result"]
    check(res["protocolVersion"] == "2025-03-26", P("version negotiation echoes client"), res)
    ins = res.get("instructions", "")
    head = ins[:512].lower()
    check(all(k in head for k in ["schema", "connection_id", "filter", "limit", "cursor"]), P("instructions first 512 chars cover core pattern"), head)
    check("owner" in ins and "never use owner" in ins, P("instructions do not ask for owner tokens"))
    r2 = c.rpc("initialize", {"protocolVersion": "1999-01-01"})
    check(r2["result"]["protocolVersion"] == "2025-06-18", P("unknown version -> latest"), r2)
    c.notify("notifications/initialized")
    tl = c.rpc("tools/list")["result"]["tools"]
    names = sorted(t["name"] for t in tl)
    check(names == sorted(["schema", "query_records", "aggregate", "search", "fetch", "read_record_field"]), P("exactly six tools"), names)
    payload = json.dumps({"tools": tl})
    check(len(payload) < 12000, P("tools/list under 12000-byte budget (%d)" % len(payload)), len(payload))
    check("connector_instance_id" not in payload, P("no connector_instance_id in tool schemas"))
    for t in tl:
        check(t["annotations"]["readOnlyHint"] is True and "Read-only" in t["description"], P("tool %s annotated read-only" % t["name"]))
    check(payload.count("ambiguous_connection") <= 1, P("connection_id recovery guidance not repeated"))
    for n in ["schema", "query_records", "aggregate", "search"]:
        props = [t for t in tl if t["name"] == n][0]["inputSchema"]["properties"]
        check("connection_id" in props, P("%s has connection_id" % n))

    # schema
    g = call(c, "schema", {})
    tx = text(g)
    check("messages" in tx and "labels" in tx and "cin_b" in tx, P("global schema lists streams + connections in text"), tx)
    check(g["structuredContent"]["data"]["object"] == "schema_index", P("global schema under structuredContent.data"))
    s = call(c, "schema", {"stream": "messages"})
    tx = text(s)
    check("subject: string; search: lexical" in tx and "label: string; filter: exact; aggregate: group_by" in tx and "Field flags" in tx, P("scoped schema has field summaries + legend"), tx)
    check("connection_id=cin_a" in tx and "connection_id=cin_b" in tx, P("scoped schema lists connections"), tx)
    f = call(c, "schema", {"detail": "full"})
    check(f.get("isError") and f["structuredContent"]["error"]["code"] == "full_detail_requires_stream", P("full without stream rejected"), f)
    f = call(c, "schema", {"stream": "messages", "detail": "full"})
    e = f["structuredContent"].get("error", {})
    check(f.get("isError") and e.get("retry_with") == "connection_id" and e["available_connections"][0].get("grant_id") == "grt_1", P("full ambiguous -> retry_with connection_id"), f)
    f = call(c, "schema", {"stream": "messages", "detail": "full", "connection_id": "cin_a"})
    d = f["structuredContent"]["data"]
    check(not f.get("isError") and "connectors" in d and "data" not in d and "streams" not in d, P("scoped full schema directly under data"), d.keys() if isinstance(d, dict) else d)
    x = call(c, "schema", {"stream": "nope"})
    check(x.get("isError") and "messages" in text(x), P("unknown stream error lists granted streams"), x)

    # query_records
    q = call(c, "query_records", {"stream": "messages", "connection_id": "cin_a", "limit": 2, "count": "exact"})
    tx = text(q); sc = q["structuredContent"]
    check("next_cursor:" in tx and sc.get("next_cursor") and "count: 4" in tx, P("query_records shows next_cursor and count in text"), tx)
    q2 = call(c, "query_records", {"stream": "messages", "connection_id": "cin_a", "limit": 2, "cursor": sc["next_cursor"]})
    check(len(q2["structuredContent"]["records"]) == 2 and q2["structuredContent"]["records"][0]["id"] != sc["records"][0]["id"], P("cursor paging works"), q2)
    big = [r for r in q2["structuredContent"]["records"] + sc["records"] if r["id"] == "msg_2"]
    check(big and big[0]["truncated_fields"][0]["read_record_field"]["id"] == "cin_a/messages/msg_2", P("long field truncated with read_record_field continuation"), big)
    check(len(tx) < 14000, P("query text bounded"), len(tx))
    q3 = call(c, "query_records", {"stream": "messages", "fields": ["subject"], "connection_id": "cin_a", "limit": 10})
    recs = q3["structuredContent"]["records"]
    check(all(list(r["data"].keys()) == ["subject"] for r in recs), P("fields projection narrows data"), recs[:1])
    q4 = call(c, "query_records", {"stream": "messages", "limit": 100})
    check(any(w.get("code") == "partial_results" for w in q4["structuredContent"].get("warnings", [])) or True, P("fan-in query ok"))
    blob = [r for r in call(c, "query_records", {"stream": "messages", "connection_id": "cin_a"})["structuredContent"]["records"] if r["id"] == "msg_3"][0]
    check("blobs" in blob and blob["data"]["raw_b64"].startswith("[base64-like"), P("blob metadata-only, base64 omitted"), blob)
    q5 = call(c, "query_records", {"stream": "messages", "changes_since": "beginning", "connection_id": "cin_a"})
    check("next_changes_since:" in text(q5), P("next_changes_since in text"), text(q5))
    q6 = call(c, "query_records", {"stream": "messages", "changes_since": "beginning"})
    check(q6.get("isError") and q6["structuredContent"]["error"]["retry_with"] == "connection_id", P("changes_since fan-in error typed"), q6)
    ex = call(c, "query_records", {"stream": "messages", "expand": ["labels"], "connection_id": "cin_a"})
    e = ex["structuredContent"].get("error", {})
    check(ex.get("isError") and e.get("code") == "invalid_expand" and "messages" in e["message"] and "/v1/schema" in e["message"], P("expand gated with invalid_expand"), ex)
    urllib.request.urlopen(RS + "/_admin/expand?on=1").read()
    ex = call(c, "query_records", {"stream": "messages", "expand": ["labels"], "connection_id": "cin_a"})
    check(not ex.get("isError") and "expanded" in ex["structuredContent"]["records"][0], P("expand forwarded once advertised (no restart)"), ex)
    urllib.request.urlopen(RS + "/_admin/expand?on=0").read()
    fe = call(c, "fetch", {"id": "cin_a/messages/msg_1", "expand": ["labels"]})
    check(fe.get("isError") and fe["structuredContent"]["error"]["code"] == "invalid_expand", P("fetch expand gated"), fe)
    bad = call(c, "query_records", {"stream": "messages", "limit": "lots"})
    check(bad.get("isError") and bad["structuredContent"]["error"]["param"] == "limit", P("bad arg typed"), bad)
    bad = call(c, "query_records", {"stream": "messages", "connector_instance_id": "x"})
    check(bad.get("isError"), P("connector_instance_id rejected"), bad)
    bad = call(c, "query_records", {"stream": "secret"})
    check(bad.get("isError") and bad["structuredContent"]["error"]["code"] == "context.stream_not_allowed", P("RS error envelope passed through"), bad)
    fl = call(c, "query_records", {"stream": "messages", "filter": {"sent_at": {"gte": "2026-01-01"}}})
    check(fl.get("isError") and fl["structuredContent"]["error"]["param"] == "filter", P("client filter -> RS 400 typed"), fl)
    fl = call(c, "query_records", {"stream": "messages", "filter": {"sent_at": {"between": 1}}})
    check(fl.get("isError") and "operator" in fl["structuredContent"]["error"]["message"], P("bad filter operator rejected in adapter"), fl)

    # aggregate
    a = call(c, "aggregate", {"stream": "messages", "metric": "count", "group_by": "label", "connection_id": "cin_a"})
    check("inbox: 3" in text(a) and "other_count" in text(a), P("aggregate grouped"), text(a))
    a = call(c, "aggregate", {"stream": "messages", "metric": "count"})
    check("value: 6" in text(a), P("aggregate fan-in count"), text(a))

    # search
    sr = call(c, "search", {"query": "overdraft", "limit": 2})
    res = sr["structuredContent"]["results"]; tx = text(sr)
    check(len(res) <= 2, P("search global limit"), len(res))
    check(all(all(k in h for k in ("connection_id", "connector_key", "stream", "record_id", "id")) for h in res), P("hits carry source identity"), res)
    sr = call(c, "search", {"query": "overdraft", "limit": 10})
    tx = text(sr); res = sr["structuredContent"]["results"]
    check("source mix:" in tx, P("source mix in text for multi-connection"), tx)
    check("<mark>overdraft</mark>" in tx and "read_record_field" in tx, P("evidence preview + continuation in text"), tx)
    t0 = res[0]
    check(t0["title"] != t0.get("snippet") and "2026-03-01" in [h for h in res if h["record_id"] == "msg_1"][0]["title"], P("title uses authored time, not snippet"), res)
    sr1 = call(c, "search", {"query": "overdraft", "connection_id": "cin_b", "limit": 1})
    check(len(sr1["structuredContent"]["results"]) == 1 and sr1["structuredContent"]["results"][0]["connection_id"] == "cin_b" and "next_cursor:" in text(sr1), P("scoped search + next_cursor in text"), sr1)
    sm = call(c, "search", {"query": "x", "mode": "semantic"})
    check(sm.get("isError") and "404" in text(sm), P("semantic not mounted -> typed error"), sm)

    # fetch
    fd = call(c, "fetch", {"id": res[0]["id"]})
    doc = fd["structuredContent"]
    check(sorted(doc.keys()) == ["id", "metadata", "text", "title", "url"], P("fetch document-only"), doc.keys())
    check(json.loads(fd["content"][0]["text"]) == doc, P("fetch content mirrors structuredContent"))
    fp = call(c, "fetch", {"id": "cin_a/messages/msg_1", "fields": ["subject"]})
    d = fp["structuredContent"]
    check("Overdraft notice" in d["text"] and "bank" not in json.dumps(d) and "sent_at" not in json.dumps(d), P("fetch projection leaks nothing"), d)
    fa = call(c, "fetch", {"id": "messages/msg_shared"})
    e = fa["structuredContent"].get("error", {})
    check(fa.get("isError") and e.get("code") == "ambiguous_connection" and e.get("retry_with") == "connection_id"
          and all(k in e["available_connections"][0] for k in ("grant_id", "connector_key", "connection_id")), P("fetch ambiguity typed"), fa)
    fl = call(c, "fetch", {"id": "cin_a/messages/msg_2"})
    check("read_record_field" in fl["structuredContent"]["text"] and len(fl["structuredContent"]["text"]) < 20000, P("fetch long field bounded"), len(fl["structuredContent"]["text"]))
    fb = call(c, "fetch", {"id": "cin_a/messages/msg_3"})
    check("blobs" in fb["structuredContent"]["metadata"] and "fakeimage" not in json.dumps(fb), P("fetch blob metadata-only"), fb)
    fx = call(c, "fetch", {"id": "garbage"})
    check(fx.get("isError"), P("fetch bad id"), fx)
    fy = call(c, "fetch", {"id": "labels/lab_1"})
    check(not fy.get("isError") and fy["structuredContent"]["metadata"]["connection_id"] == "cin_a", P("fetch single-connection stream resolves"), fy)

    # read_record_field
    rf = call(c, "read_record_field", {"id": "cin_a/messages/msg_2", "field": "body", "limit_chars": 1000})
    sc = rf["structuredContent"]
    check(sc["total_chars"] > 10000 and sc["next"]["offset_chars"] == 1000 and "next: read_record_field" in text(rf), P("field window + next args"), sc.get("next"))
    rf2 = call(c, "read_record_field", sc["next"])
    check(rf2["structuredContent"]["start_chars"] == 1000 and rf2["structuredContent"]["previous"]["offset_chars"] == 0, P("next window continues"), rf2["structuredContent"].get("previous"))
    rq = call(c, "read_record_field", {"id": "cin_a/messages/msg_2", "field": "body", "q": "needle", "before_chars": 20, "after_chars": 40})
    check("NEEDLE" in rq["structuredContent"]["text"] and rq["structuredContent"]["match_start_chars"] is not None, P("q-centered window"), rq)
    rs_ = call(c, "read_record_field", {"id": "cin_a/messages/msg_1", "field": "subject"})
    check(rs_["structuredContent"]["complete"] is True and "Overdraft notice" in text(rs_), P("small field inline complete"), rs_)
    rn = call(c, "read_record_field", {"id": "cin_a/messages/msg_3", "field": "attachment"})
    check(rn.get("isError") and rn["structuredContent"]["error"]["code"] == "field_not_text", P("non-text field typed 422"), rn)
    ra = call(c, "read_record_field", {"stream": "messages", "record_id": "msg_shared", "field": "body"})
    check(ra.get("isError") and ra["structuredContent"]["error"]["code"] == "ambiguous_connection", P("read_record_field ambiguity"), ra)
    rr = call(c, "read_record_field", {"id": "cin_a/messages/msg_1", "field": "body", "q": "x", "offset_chars": 3})
    check(rr.get("isError"), P("q+offset exclusive"), rr)

    # resources
    rb = c.rpc("resources/read", {"uri": "pdpp://blob/blob_9?connection_id=cin_a"})
    check("result" in rb and rb["result"]["contents"][0]["mimeType"] == "image/png", P("blob resource readable"), rb)

    # protocol robustness
    check(c.raw("this is not json")["error"]["code"] == -32700, P("parse error"))
    check(c.raw(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "nope"}))["error"]["code"] == -32601, P("method not found"))
    u = c.rpc("tools/call", {"name": "list_streams", "arguments": {}})
    check("error" in u, P("unknown tool -> JSON-RPC error"), u)
    w = c.rpc("tools/call", {"name": "schema", "arguments": "oops"})
    check(w.get("result", {}).get("isError"), P("non-object arguments -> tool error"), w)
    check(c.rpc("ping")["result"] == {}, P("ping"))
    c.close()

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        scenario(Stdio("tok_client"), "stdio")
        # owner token at startup is rejected
        env = dict(os.environ); env["PDPP_CLIENT_TOKEN"] = "tok_owner"
        p = subprocess.run([ADAPTER, "--rs-url", RS], input="", capture_output=True, text=True, timeout=20)
        p = subprocess.run([ADAPTER, "--rs-url", RS], input="", capture_output=True, text=True, timeout=20, env=env)
        check(p.returncode != 0 and "owner" in p.stderr, "stdio: owner token refused at startup", (p.returncode, p.stderr))
    else:
        url = sys.argv[2]
        scenario(Http(url, "tok_client"), "http")
    print("FAILURES:", len(FAILS), FAILS)
    sys.exit(1 if FAILS else 0)
