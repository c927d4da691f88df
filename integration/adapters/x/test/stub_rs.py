#!/usr/bin/env python3
"""Small stub PDPP RS written from rs-read-contract.md, for testing pdpp-mcp-x. Stdlib only."""
import base64, json, sys, threading, time, re
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qsl, quote

VERSION = "2026-04-06"
LONG = ("Lorem ipsum dolor sit amet. " * 300) + "The hidden NEEDLE sentence is here. " + ("More filler text. " * 200)
B64 = base64.b64encode(bytes(range(256)) * 8).decode()
BLOB = b"\x89PNG\r\n\x1a\nfakeimagebytes"
STATE = {"expand_messages": False, "calls": []}

def rec(rid, conn, data, emitted):
    return {"id": rid, "connection_id": conn, "data": data, "emitted_at": emitted}

RECORDS = {
  "messages": [
    rec("msg_1", "cin_a", {"id": "msg_1", "subject": "Overdraft notice", "body": "Your bank charged an overdraft fee; a refund was requested.", "sent_at": "2026-03-01T09:00:00Z", "label": "inbox"}, "2026-03-02T10:00:05Z"),
    rec("msg_2", "cin_a", {"id": "msg_2", "subject": "Long report", "body": LONG, "sent_at": "2026-03-03T09:00:00Z", "label": "work"}, "2026-03-04T10:00:05Z"),
    rec("msg_3", "cin_a", {"id": "msg_3", "subject": "Photo", "body": "see attachment", "sent_at": "2026-03-05T09:00:00Z", "label": "inbox",
        "attachment": {"blob_id": "blob_9", "mime_type": "image/png", "size_bytes": len(BLOB), "sha256": "abc"}, "raw_b64": B64}, "2026-03-06T10:00:05Z"),
    rec("msg_shared", "cin_a", {"id": "msg_shared", "subject": "Shared overdraft", "body": "shared copy A", "sent_at": "2026-02-01T00:00:00Z", "label": "inbox"}, "2026-02-01T00:00:05Z"),
    rec("msg_b1", "cin_b", {"id": "msg_b1", "subject": "Personal", "body": "overdraft at personal bank", "sent_at": "2026-03-07T09:00:00Z", "label": "personal"}, "2026-03-08T10:00:05Z"),
    rec("msg_shared", "cin_b", {"id": "msg_shared", "subject": "Shared overdraft", "body": "shared copy B", "sent_at": "2026-02-01T00:00:00Z", "label": "inbox"}, "2026-02-01T00:00:06Z"),
  ],
  "labels": [
    rec("lab_1", "cin_a", {"id": "lab_1", "name": "inbox"}, "2026-01-01T00:00:00Z"),
    rec("lab_2", "cin_a", {"id": "lab_2", "name": "work"}, "2026-01-01T00:00:00Z"),
  ],
}
FIELDS = {"messages": ["id", "subject", "body", "sent_at", "label", "attachment", "raw_b64"], "labels": ["id", "name"]}
GRANTS = {
  "tok_client": {"kind": "client", "grant_id": "grt_1", "streams": {"messages": ["cin_a", "cin_b"], "labels": ["cin_a"]}},
  "tok_single": {"kind": "client", "grant_id": "grt_2", "streams": {"labels": ["cin_a"]}},
  "tok_owner": {"kind": "owner"},
  "tok_revoked": {"kind": "revoked"},
}
NAMES = {"cin_a": "Work Gmail"}
RECORDS["notes"] = [rec("n1", "cin_1", {"id": "n1", "name": "note one"}, "2026-01-01T00:00:00Z")]
FIELDS["notes"] = ["id", "name"]
_many = {"notes": ["cin_%d" % i for i in range(1, 13)]}
for i in range(45):
    RECORDS["s%02d" % i] = []; FIELDS["s%02d" % i] = ["id"]; _many["s%02d" % i] = ["cin_1"]
GRANTS["tok_many"] = {"kind": "client", "grant_id": "grt_many", "streams": _many}

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass

    def send_json(self, status, body, extra=None):
        b = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.send_header("PDPP-Version", VERSION)
        self.send_header("Request-Id", "req_0123456789abcdef")
        for k, v in (extra or {}).items(): self.send_header(k, v)
        self.end_headers()
        self.wfile.write(b)

    def err(self, status, code, msg, **kw):
        t = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 410: "gone_error"}.get(status, "api_error")
        e = {"type": t, "code": code, "message": msg}
        e.update(kw)
        e["request_id"] = "req_0123456789abcdef"
        extra = {}
        if status == 401:
            e["resource_metadata"] = "http://%s/.well-known/oauth-protected-resource" % self.headers.get("Host")
            extra["WWW-Authenticate"] = 'Bearer resource_metadata="%s"' % e["resource_metadata"]
        self.send_json(status, {"error": e}, extra)

    def fin(self, body, path, rawq):
        body["links"] = {"self": path + ("?" + rawq if rawq else "")}
        if "has_more" in body: body["links"]["next"] = None
        body.setdefault("meta", {})
        body["meta"].setdefault("count", {"kind": "none"})
        body["meta"].setdefault("warnings", [])
        self.send_json(200, body)

    def do_GET(self):
        try: self.route()
        except Exception as ex:
            import traceback; traceback.print_exc()
            self.err(500, "internal", str(ex))

    def route(self):
        u = urlparse(self.path)
        path, rawq = u.path, u.query
        STATE["calls"].append(path + ("?" + rawq if rawq else ""))
        q = {}
        for k, v in parse_qsl(rawq, keep_blank_values=True): q.setdefault(k, []).append(v)
        one = lambda k: q.get(k, [None])[0]
        if path == "/_calls": return self.send_json(200, {"calls": STATE["calls"][-50:]})
        if path == "/_admin/expand":
            STATE["expand_messages"] = one("on") == "1"; return self.send_json(200, {"ok": True})
        if path.startswith("/.well-known/oauth-protected-resource"):
            return self.send_json(200, {"resource": "http://" + self.headers.get("Host"), "authorization_servers": ["http://127.0.0.1:1/as"],
                "bearer_methods_supported": ["header"], "capabilities": {"lexical_retrieval": {"supported": True, "endpoint": "/v1/search"}}})
        pv = self.headers.get("PDPP-Version")
        if pv and pv != VERSION: return self.err(400, "unsupported_version", "bad version")
        a = self.headers.get("Authorization", "")
        if not a.startswith("Bearer "): return self.err(401, "authentication_error", "Missing Bearer token")
        g = GRANTS.get(a[7:])
        if not g: return self.err(401, "authentication_error", "Invalid or expired token")
        if g["kind"] == "revoked": return self.err(403, "grant_revoked", "Grant has been revoked")
        owner = g["kind"] == "owner"
        streams = {s: ["cin_a", "cin_b"] if s == "messages" else ["cin_a"] for s in RECORDS} if owner else g["streams"]
        if not owner:
            for k in q:
                base = k.split("[")[0]
                if base in ("filter", "expand", "expand_limit") and not (base != "filter" and path.startswith("/v1/streams/messages") and STATE["expand_messages"]):
                    return self.err(400, "invalid_request", base + "[...] is not supported for client-token reads in PDPP v0.1", param=base)
        if path == "/v1/schema": return self.schema(g, owner, streams, q, one, path, rawq)
        if path in ("/v1/search", "/v1/search/semantic", "/v1/search/hybrid"):
            if path != "/v1/search": return self.send_json(404, {"message": "Route GET:%s not found" % path, "error": "Not Found", "statusCode": 404})
            return self.search(streams, q, one, path, rawq)
        m = re.match(r"^/v1/streams/([^/]+)(/.*)?$", path)
        if m:
            from urllib.parse import unquote
            s = unquote(m.group(1)); rest = m.group(2) or ""
            if s not in streams: return self.err(401, "context.stream_not_allowed", "Token introspection failed closed")
            cands = streams[s]
            cid = one("connection_id")
            if cid and cid not in cands: return self.err(401, "context.instance_mismatch", "Token introspection failed closed")
            conns = [cid] if cid else cands
            if rest == "/records": return self.records(s, conns, q, one, path, rawq)
            if rest == "/aggregate": return self.aggregate(s, conns, q, one, path, rawq)
            mm = re.match(r"^/records/([^/]+)(/field-window)?$", rest)
            if mm:
                rid = unquote(mm.group(1))
                hits = [r for r in RECORDS[s] if r["id"] == rid and r["connection_id"] in conns]
                if not hits: return self.err(404, "not_found", "Record not found")
                if len(hits) > 1:
                    return self.err(409, "ambiguous_connection", "Record '%s' is present under more than one connection. Retry with `connection_id`." % rid,
                        retry_with="connection_id", available_connections=[dict({"connection_id": h["connection_id"]}, **({"display_name": NAMES[h["connection_id"]]} if h["connection_id"] in NAMES else {})) for h in hits])
                r = hits[0]
                if mm.group(2): return self.window(s, r, q, one, path, rawq)
                data = self.project(r["data"], q, owner)
                body = {"connector_key": "gmail", "connection_id": r["connection_id"], "object": "record", "id": rid, "stream": s, "data": data,
                        "emitted_at": r["emitted_at"], "connector_instance_id": r["connection_id"]}
                if r["connection_id"] in NAMES: body["display_name"] = NAMES[r["connection_id"]]
                return self.fin(body, path, rawq)
            if rest == "": return self.fin({"object": "stream_metadata", "name": s}, path, rawq)
        if path.startswith("/v1/blobs/"):
            bid = path.split("/")[-1]
            if bid != "blob_9" or "messages" not in streams: return self.err(404, "blob_not_found", "Blob not found")
            self.send_response(200); self.send_header("Content-Type", "image/png"); self.send_header("Content-Length", str(len(BLOB))); self.end_headers(); self.wfile.write(BLOB); return
        return self.err(404, "not_found", "no route")

    def project(self, data, q, owner):
        f = []
        for v in q.get("fields", []): f += [x for x in v.split(",") if x]
        out = dict(data)
        if f: out = {k: v for k, v in data.items() if k in f}
        if "attachment" in out: out["attachment"] = dict(out["attachment"], fetch_url="/v1/blobs/" + out["attachment"]["blob_id"])
        return out

    def schema(self, g, owner, streams, q, one, path, rawq):
        stream, cid, detail, view = one("stream"), one("connection_id"), one("detail"), (one("view") or "").strip().lower()
        if detail == "full" and view != "compact":
            if not stream: return self.err(400, "invalid_request", "detail=full requires stream", param="detail")
            if stream in streams and len(streams[stream]) > 1 and not cid:
                return self.err(409, "ambiguous_schema_detail", "ambiguous", param="connection_id", retry_with="connection_id",
                    available_connections=[{"connection_id": c, "stream": stream} for c in streams[stream]])
        rows = []
        for s, conns in streams.items():
            if stream and s != stream: continue
            if cid and cid not in conns: continue
            gc = [dict({"connection_id": c}, **({"display_name": NAMES[c]} if c in NAMES else {})) for c in conns if not cid or c == cid]
            caps = {}
            for f in FIELDS[s]:
                if view == "compact": caps[f] = "t=string,lex" if f in ("subject", "body") else ("t=string,eq,a=group_by" if f == "label" else "declared")
                else: caps[f] = {"granted": True, "schema": {}, "lexical_search": {"declared": f in ("subject", "body"), "usable": f in ("subject", "body")}}
            ec = []
            if s == "messages" and STATE["expand_messages"]:
                ec = [{"name": "labels", "stream": "labels", "target_stream": "labels", "cardinality": "has_many", "granted": True, "usable": True, "max_limit": 50}]
            row = {"name": s, "record_count": len([r for r in RECORDS[s] if r["connection_id"] in conns]), "granted_connections": gc,
                   "field_capabilities": caps, "expand_capabilities": ec, "cursor_field": "sent_at" if s == "messages" else None, "primary_key": ["id"]}
            if view != "compact": row["schema"] = {"type": "object", "properties": {f: {"type": "string"} for f in FIELDS[s]}}
            rows.append(row)
        body = {"object": "schema", "bearer": {"token_kind": "owner", "scope": "owner"} if owner else {"token_kind": "client", "scope": "grant", "grant_id": g["grant_id"], "client_id": "test"},
                "connectors": [{"object": "connector", "source": {"id": "gmail", "kind": "connector"}, "connector_key": "gmail", "connector_id": "gmail", "stream_count": len(rows), "streams": rows}] if rows or not cid else []}
        if view == "compact": body["detail"] = "compact"
        return self.fin(body, path, rawq)

    def records(self, s, conns, q, one, path, rawq):
        allowed = {"changes_since", "connection_id", "connector_id", "count", "cursor", "expand", "expand_limit", "fields", "filter", "limit", "order", "sort", "view", "window"}
        bad = [k for k in q if k.split("[")[0] not in allowed]
        if bad: return self.err(400, "invalid_request", "Unsupported query parameter: " + ", ".join(bad))
        for v in q.get("fields", []):
            for f in v.split(","):
                if f and f not in FIELDS[s]: return self.err(400, "unknown_field", "Unknown field: " + f)
        if one("changes_since") and len(conns) > 1:
            return self.err(400, "invalid_argument", "changes_since needs one connection", param="changes_since", retry_with="connection_id",
                            available_connections=[{"connection_id": c} for c in conns])
        try: limit = int(one("limit") or 25)
        except ValueError: limit = 25
        warnings = []
        if limit > 100: limit = 100; warnings.append({"code": "limit_clamped", "param": "limit", "message": "clamped"})
        rs = sorted([r for r in RECORDS[s] if r["connection_id"] in conns], key=lambda r: r["data"].get("sent_at") or r["id"], reverse=(one("order") != "asc"))
        off = 0
        if one("cursor"):
            try: off = json.loads(base64.b64decode(one("cursor")))["off"]
            except Exception: return self.err(400, "invalid_cursor", "Malformed cursor")
        page = rs[off:off + limit]
        body = {"object": "list", "url": path, "has_more": off + limit < len(rs)}
        if body["has_more"]:
            if len(conns) > 1: warnings.append({"code": "partial_results", "param": "connection_id", "message": "has_more=true and next_cursor is not emitted under multi-connection fan-in."})
            else: body["next_cursor"] = base64.b64encode(json.dumps({"off": off + limit}).encode()).decode()
        if one("changes_since"): body["next_changes_since"] = base64.b64encode(b'{"kind":"changes_since","version":7}').decode()
        data = []
        for r in page:
            o = {"object": "record", "id": r["id"], "stream": s, "data": self.project(r["data"], q, False), "emitted_at": r["emitted_at"],
                 "connection_id": r["connection_id"], "connector_instance_id": r["connection_id"]}
            if r["connection_id"] in NAMES: o["display_name"] = NAMES[r["connection_id"]]
            if one("expand"): o["expanded"] = {"labels": {"object": "list", "data": [], "has_more": False}}
            data.append(o)
        body["data"] = data
        body["meta"] = {"warnings": warnings}
        if one("count") == "exact": body["meta"]["count"] = {"kind": "exact", "value": len(rs)}
        return self.fin(body, path, rawq)

    def window(self, s, r, q, one, path, rawq):
        f = one("field")
        if not f: return self.err(400, "invalid_field_path", "field required", param="field")
        if f not in r["data"]: return self.err(404, "field_not_found", "Field not found")
        v = r["data"][f]
        if not isinstance(v, str): return self.err(422, "field_not_text", "Field is not text")
        total = len(v)
        lim = int(one("limit_chars") or 4096); lim = min(lim, 16384)
        qq = one("q"); ms = me = None
        if qq:
            i = v.lower().find(qq.lower())
            if i < 0: return self.err(404, "query_not_found", "q not found")
            b = int(one("before_chars") or 0); a2 = int(one("after_chars") or 0)
            start = max(0, i - b)
            if not one("limit_chars") and (one("before_chars") or one("after_chars")): lim = b + len(qq) + a2
            ms, me = i, i + len(qq)
        else:
            start = min(int(one("offset_chars") or 0), total)
        text = v[start:start + lim]; end = min(start + len(text), total)
        w = {"text": text, "total_chars": total, "start_chars": start, "end_chars": end, "limit_chars": lim, "complete": start == 0 and end >= total,
             "has_more": end < total, "match_start_chars": ms, "match_end_chars": me, "next_offset_chars": end if end < total else None,
             "previous_offset_chars": max(0, start - lim) if start > 0 else None}
        return self.fin({"object": "field_window", "stream": s, "record_id": r["id"], "field": {"path": f, "type": "string"}, "url": path, "window": w}, path, rawq)

    def aggregate(self, s, conns, q, one, path, rawq):
        metric = one("metric")
        if metric not in ("count", "sum", "min", "max", "count_distinct"): return self.err(400, "invalid_request", "metric required")
        rs = [r for r in RECORDS[s] if r["connection_id"] in conns]
        body = {"object": "aggregation", "stream": s, "metric": metric, "field": one("field"), "group_by": one("group_by"), "group_by_time": None,
                "granularity": None, "time_zone": None, "approximate": False, "filtered_record_count": len(rs)}
        if one("group_by"):
            gb = one("group_by"); counts = {}
            for r in rs: counts[r["data"].get(gb)] = counts.get(r["data"].get(gb), 0) + 1
            lim = int(one("limit") or 10)
            items = sorted(counts.items(), key=lambda kv: (-kv[1], json.dumps(kv[0])))
            body["limit"] = lim; body["groups"] = [{"key": k, "count": c} for k, c in items[:lim]]
            if len(conns) == 1: body["other_count"] = sum(c for _, c in items[lim:])
        else:
            body["value"] = len(rs) if metric == "count" else max((r["data"].get(one("field")) for r in rs), default=None)
        return self.fin(body, path, rawq)

    def search(self, streams, q, one, path, rawq):
        qq = one("q")
        if not qq: return self.err(400, "invalid_request", "q required", param="q")
        ss = q.get("streams", []) + q.get("streams[]", [])
        for s in ss:
            if s not in streams: return self.err(403, "grant_stream_not_allowed", "stream not granted")
        cid = one("connection_id")
        if cid and not any(cid in c for c in streams.values()): return self.err(404, "connection_not_found", "not addressable", param="connection_id")
        try: limit = min(int(one("limit") or 25), 100)
        except ValueError: limit = 25
        hits = []
        for s, conns in streams.items():
            if ss and s not in ss: continue
            for r in RECORDS[s]:
                if r["connection_id"] not in conns or (cid and r["connection_id"] != cid): continue
                for f in ("subject", "body"):
                    v = r["data"].get(f)
                    if isinstance(v, str) and qq.lower() in v.lower():
                        i = v.lower().find(qq.lower())
                        snip = "…" + v[max(0, i - 40):i] + "<mark>" + v[i:i + len(qq)] + "</mark>" + v[i + len(qq):i + len(qq) + 40] + "…"
                        h = {"object": "search_result", "stream": s, "record_key": r["id"], "connector_id": "gmail", "connection_id": r["connection_id"],
                             "connector_instance_id": r["connection_id"], "emitted_at": r["emitted_at"], "authored_at": r["data"].get("sent_at"),
                             "matched_fields": [f], "record_url": "/v1/streams/%s/records/%s" % (s, r["id"]), "snippet": {"field": f, "text": snip},
                             "evidence_excerpts": [{"object": "evidence_excerpt", "field_path": f, "provenance": "lexical_match", "preview_text": snip, "truncated": True,
                                                    "read": {"object": "field_window_read", "stream": s, "record_id": r["id"], "field": f, "connection_id": r["connection_id"]}}],
                             "score": {"kind": "bm25", "value": -1.0, "order": "lower_is_better"}}
                        if r["connection_id"] in NAMES: h["display_name"] = NAMES[r["connection_id"]]
                        hits.append(h); break
        off = 0
        if one("cursor"):
            try: off = json.loads(base64.urlsafe_b64decode(one("cursor")))["off"]
            except Exception: return self.err(400, "invalid_cursor", "bad cursor")
        page = hits[off:off + limit]
        body = {"object": "list", "url": path, "has_more": off + limit < len(hits), "data": page,
                "meta": {"count": len(hits), "count_accuracy": "exact", "warnings": []}}
        if body["has_more"]: body["next_cursor"] = base64.urlsafe_b64encode(json.dumps({"off": off + limit}).encode()).decode()
        return self.fin(body, path, rawq)

if __name__ == "__main__":
    srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), H)
    print("rs_url=http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever()
