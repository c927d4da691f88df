#!/usr/bin/env python3
"""Hosted-mode tests: auth challenges, owner rejection, sessions, metadata, concurrency, then the shared scenario."""
import json, subprocess, sys, time, urllib.request, urllib.error, concurrent.futures, os
sys.argv = [sys.argv[0]]
import test_mcp
from test_mcp import Http, check, call, text, FAILS, ADAPTER, RS

p = subprocess.Popen([ADAPTER, "--rs-url", RS, "--http", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = p.stdout.readline().strip()
check(line.startswith("mcp_url=http://127.0.0.1:") and line.endswith("/mcp"), "startup line", line)
url = line.split("=", 1)[1]
base = url[:-4]
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}})
try:
    st, h, b = Http(url, None).post(init)
    check(st == 401 and 'resource_metadata="%s/.well-known/oauth-protected-resource/mcp"' % base in h.get("WWW-Authenticate", ""), "no bearer -> 401 challenge", (st, h))
    check(json.loads(b)["error"]["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp"), "401 body carries resource_metadata")
    st, h, b = Http(url, "bogus").post(init)
    check(st == 401 and "WWW-Authenticate" in h, "invalid bearer -> 401", (st, b))
    st, h, b = Http(url, "tok_owner").post(init)
    check(st == 403 and json.loads(b)["error"]["type"] == "permission_error", "owner bearer -> 403", (st, b))
    st, h, b = Http(url, "tok_revoked").post(init)
    check(st in (401, 403), "revoked bearer rejected", (st, b))
    with urllib.request.urlopen(base + "/.well-known/oauth-protected-resource/mcp") as r:
        md = json.loads(r.read())
    check(md["resource"] == url and md["authorization_servers"] == ["http://127.0.0.1:1/as"] and "owner" not in md["pdpp_token_kinds_supported"], "protected-resource metadata", md)
    try:
        urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Bearer tok_client"}))
        check(False, "GET /mcp -> 405")
    except urllib.error.HTTPError as e:
        check(e.code == 405, "GET /mcp -> 405", e.code)
    c = Http(url, "tok_client")
    st, h, b = c.post(init)
    check(st == 200 and "Mcp-Session-Id" in h, "initialize returns session id", h)
    sid = h.get("Mcp-Session-Id")
    c2 = Http(url, "tok_single"); c2.sid = sid
    st, h, b = c2.post(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    check(st == 403, "session bound to its bearer", st)
    c3 = Http(url, "tok_client"); c3.sid = "nope"
    st, h, b = c3.post(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    check(st == 404, "unknown session -> 404", st)
    st, h, b = c.post(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}), {"MCP-Protocol-Version": "1900-01-01"})
    check(st == 400, "bad MCP-Protocol-Version -> 400", st)
    st, h, b = c.post("{not json")
    check(st == 200 and json.loads(b)["error"]["code"] == -32700, "bad JSON -> parse error", (st, b))
    st, h, b = c.post(json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]))
    check(st == 200 and len(json.loads(b)) == 2, "batch", b)

    # concurrency: 40 parallel tool calls from two different bearers
    def work(i):
        cc = Http(url, "tok_client" if i % 2 == 0 else "tok_single")
        cc.rpc("initialize", {"protocolVersion": "2025-06-18"})
        if i % 2 == 0:
            r = call(cc, "search", {"query": "overdraft", "limit": 5})
            return ("client", len(r["structuredContent"]["results"]))
        r = call(cc, "schema", {})
        return ("single", "messages" in text(r))
    with concurrent.futures.ThreadPoolExecutor(20) as ex:
        res = list(ex.map(work, range(40)))
    check(all((k == "client" and v == 4) or (k == "single" and v is False) for k, v in res), "40 concurrent calls, no cross-bearer leakage", res)
    test_mcp.scenario(Http(url, "tok_client"), "http")
    st, h, b = c.post(init)
    cd = urllib.request.Request(url, method="DELETE", headers={"Authorization": "Bearer tok_client", "Mcp-Session-Id": h["Mcp-Session-Id"]})
    with urllib.request.urlopen(cd) as r: check(r.status == 204, "DELETE session")
    check(p.poll() is None, "server still alive after all tests")
finally:
    p.terminate(); p.wait(5)
print("FAILURES:", len(FAILS), FAILS)
sys.exit(1 if FAILS else 0)
