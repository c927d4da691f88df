#!/usr/bin/env python3
"""Small stub PDPP resource server (stdlib only), written from rs-read-contract.md.
Usage: stub_rs.py PORT   (0 = free port; prints 'rs_url=http://127.0.0.1:PORT')."""
import base64, json, re, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlsplit, parse_qsl, unquote

LONG_BODY = ("Lorem ipsum dolor sit amet. " * 180) + "The bank charged an OVERDRAFT fee of 35 dollars. " + ("Consectetur adipiscing elit. " * 220)
B64 = base64.b64encode(bytes(range(256)) * 8).decode()

RECORDS = {  # (stream, connection) -> list of records
    ("messages", "cin_a"): [
        {"id": "msg_1", "data": {"id": "msg_1", "subject": "Overdraft fee notice", "body": LONG_BODY, "sent_at": "2026-03-01T09:00:00Z", "label": "bank"}, "emitted_at": "2026-03-02T10:00:05Z"},
        {"id": "msg_2", "data": {"id": "msg_2", "subject": "Photo from trip", "body": "See attached picture.", "sent_at": "2026-03-03T09:00:00Z", "label": "personal",
                                 "attachment": {"blob_id": "blob_9", "mime_type": "image/png", "size_bytes": 10, "sha256": "abc"}, "raw_b64": B64}, "emitted_at": "2026-03-04T10:00:05Z"},
        {"id": "shared_1", "data": {"id": "shared_1", "subject": "Shared thread", "body": "Same id in two accounts.", "sent_at": "2026-03-05T09:00:00Z", "label": "bank"}, "emitted_at": "2026-03-06T10:00:05Z"},
    ],
    ("messages", "cin_b"): [
        {"id": "msg_b1", "data": {"id": "msg_b1", "subject": "Lunch? overdraft jokes", "body": "An overdraft joke walks into a bar.", "sent_at": "2026-02-01T12:00:00Z", "label": "personal"}, "emitted_at": "2026-02-02T10:00:05Z"},
        {"id": "shared_1", "data": {"id": "shared_1", "subject": "Shared thread (b)", "body": "Same id in two accounts.", "sent_at": "2026-03-05T09:00:00Z", "label": "work"}, "emitted_at": "2026-03-06T10:00:05Z"},
    ],
    ("notes", "cin_a"): [
        {"id": f"note_{i}", "data": {"id": f"note_{i}", "title": f"Note number {i}", "text": f"note text {i} about groceries", "created_at": f"2026-01-0{i}T08:00:00Z"}, "emitted_at": f"2026-01-0{i}T09:00:00Z"}
        for i in range(1, 6)
    ],
}
DISPLAY = {"cin_a": "Work Gmail"}
GRANT_STREAMS = {"messages": ["cin_a", "cin_b"], "notes": ["cin_a"]}
FIELDS = {"messages": ["id", "subject", "body", "sent_at", "label", "attachment", "raw_b64"], "notes": ["id", "title", "text", "created_at"]}
TOKENS = {"tok_client": "client", "tok_owner": "owner", "tok_revoked": "revoked"}
STATE = {"records_calls": 0, "expand_caps_notes": True}
LOCK = threading.Lock()

def cap(declared=True, usable=None):
    return {"declared": declared, "usable": declared if usable is None else usable}

def field_caps(stream):
    out = {}
    for f in FIELDS[stream]:
        c = {"granted": True, "schema": {"type": "string"}, "type": "string",
             "lexical_search": cap(f in ("subject", "body", "text", "title")), "semantic_search": cap(False, False),
             "aggregation": {op: cap(False, False) for op in ("sum", "min", "max", "group_by", "group_by_time", "count_distinct")}}
        if f == "label":
            c["aggregation"]["group_by"] = cap(); c["exact_filter"] = cap()
        if f in ("sent_at", "created_at"):
            c["schema"] = {"type": "string", "format": "date-time"}
            c["range_filter"] = {"declared": True, "usable": True, "operators": ["gte", "lt"]}
            c["aggregation"]["group_by_time"] = cap(); c["aggregation"]["min"] = cap(); c["aggregation"]["max"] = cap()
        if f == "title":
            c["role"] = "primary-title"
        if f == "attachment":
            c["schema"] = {"type": "object"}; c["type"] = "blob_ref"
        out[f] = c
    return out

def stream_entry(stream, conns, compact):
    e = {"object": "stream_metadata", "name": stream, "primary_key": ["id"], "cursor_field": "sent_at" if stream == "messages" else "created_at",
         "record_count": sum(len(RECORDS.get((stream, c), [])) for c in conns),
         "granted_connections": [dict({"connection_id": c}, **({"display_name": DISPLAY[c]} if c in DISPLAY else {})) for c in conns],
         "field_capabilities": field_caps(stream),
         "schema": {"type": "object", "properties": {f: {"type": "string"} for f in FIELDS[stream]}},
         "query": {"aggregations": {"count": True, "group_by": ["label"] if stream == "messages" else []}},
         "expand_capabilities": ([{"name": "related", "stream": "notes", "target_stream": "notes", "cardinality": "has_many", "default_limit": 10, "max_limit": 50, "granted": True, "usable": True}]
                                 if stream == "notes" and STATE["expand_caps_notes"] else [])}
    if compact:
        for k in ("schema", "query", "object"):
            e.pop(k, None)
        e["field_capabilities"] = {f: "t=string" + (",lex" if f in ("subject", "body", "text", "title") else "") + (",a=group_by" if f == "label" else "") for f in FIELDS[stream]}
    return e

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass

    def send(self, status, body, ctype="application/json", extra=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("PDPP-Version", "2026-04-06")
        self.send_header("Request-Id", "req_0123456789abcdef")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def err(self, status, code, msg, **kw):
        typ = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 410: "gone_error"}.get(status, "api_error")
        e = {"type": typ, "code": code, "message": msg, "request_id": "req_0123456789abcdef"}
        e.update(kw)
        extra = {}
        if status == 401:
            md = f"http://{self.headers.get('Host')}/.well-known/oauth-protected-resource"
            e["resource_metadata"] = md
            extra["WWW-Authenticate"] = f'Bearer resource_metadata="{md}"'
        self.send(status, {"error": e}, extra=extra)

    def finalize(self, body):
        body.setdefault("links", {"self": self.path})
        body.setdefault("meta", {})
        body["meta"].setdefault("count", {"kind": "none"})
        body["meta"].setdefault("warnings", [])
        self.send(200, body)

    def do_GET(self):
        try:
            self.route()
        except Exception as ex:  # keep the stub alive
            self.err(500, "internal", repr(ex))

    def route(self):
        u = urlsplit(self.path)
        path = u.path
        pairs = parse_qsl(u.query, keep_blank_values=True)
        q = {}
        for k, v in pairs:
            q.setdefault(k, []).append(v)
        one = lambda k, d=None: q.get(k, [d])[0]
        if path.startswith("/.well-known/oauth-protected-resource"):
            return self.send(200, {"resource": f"http://{self.headers.get('Host')}", "authorization_servers": ["http://127.0.0.1:9/as"], "bearer_methods_supported": ["header"]})
        if path == "/_stub/state":
            return self.send(200, STATE)
        if path == "/_stub/toggle_expand":
            STATE["expand_caps_notes"] = not STATE["expand_caps_notes"]
            return self.send(200, STATE)
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return self.err(401, "authentication_error", "Missing Bearer token")
        kind = TOKENS.get(auth[7:])
        if kind is None:
            return self.err(401, "authentication_error", "Invalid or expired token")
        if kind == "revoked":
            return self.err(403, "grant_revoked", "Grant has been revoked")
        conn = one("connection_id")
        if path == "/v1/schema":
            bearer = {"token_kind": "owner", "scope": "owner"} if kind == "owner" else {"token_kind": "client", "scope": "grant", "grant_id": "grt_123", "client_id": "longview"}
            stream = one("stream"); compact = (one("view", "") or "").lower() == "compact"
            if one("detail") == "full" and not compact and not stream:
                return self.err(400, "invalid_request", "detail=full requires stream", param="detail")
            streams = []
            for s, conns in GRANT_STREAMS.items():
                if stream and s != stream:
                    continue
                if conn:
                    if conn not in conns:
                        continue
                    conns = [conn]
                streams.append(stream_entry(s, conns, compact))
            if one("detail") == "full" and not compact and stream and not conn and streams and len(streams[0]["granted_connections"]) > 1:
                return self.err(409, "ambiguous_schema_detail", "Stream matches more than one source", param="connection_id", retry_with="connection_id",
                                available_connections=[{"connection_id": c["connection_id"], "connector_key": "gmail", "stream": stream} for c in streams[0]["granted_connections"]])
            body = {"object": "schema", "bearer": bearer, "connectors": [{"object": "connector", "source": {"id": "https://registry.pdpp.dev/connectors/gmail", "kind": "connector"}, "connector_key": "gmail", "connector_id": "gmail", "stream_count": len(streams), "streams": streams}] if streams else []}
            if compact:
                body["detail"] = "compact"
            return self.finalize(body)
        m = re.match(r"^/v1/streams/([^/]+)(/records(?:/([^/]+)(/field-window)?)?|/aggregate)?$", path)
        if m:
            stream = unquote(m.group(1))
            if stream not in GRANT_STREAMS:
                return self.err(401, "context.stream_not_allowed", "Token introspection failed closed")
            conns = GRANT_STREAMS[stream]
            if conn and conn not in conns:
                return self.err(401, "context.instance_mismatch", "Token introspection failed closed")
            use = [conn] if conn else conns
            if m.group(2) == "/aggregate":
                return self.aggregate(stream, use, q, one)
            if m.group(3):
                rid = unquote(m.group(3))
                hits = [(c, r) for c in use for r in RECORDS.get((stream, c), []) if r["id"] == rid]
                if not hits:
                    return self.err(404, "not_found", "Record not found")
                if len(hits) > 1:
                    return self.err(409, "ambiguous_connection", f"Record '{rid}' is present under more than one connection. Retry with `connection_id`.", retry_with="connection_id",
                                    available_connections=[dict({"connection_id": c}, **({"display_name": DISPLAY[c]} if c in DISPLAY else {})) for c, _ in hits])
                c, r = hits[0]
                if m.group(4):
                    return self.field_window(stream, c, r, q, one)
                rec = self.record(stream, c, r, q.get("fields"))
                rec.update({"connector_key": "https://registry.pdpp.dev/connectors/gmail", "connection_id": c})
                return self.finalize(rec)
            return self.records(stream, use, q, one, kind)
        if path == "/v1/search":
            return self.search(q, one)
        mb = re.match(r"^/v1/blobs/([^/]+)$", path)
        if mb:
            if unquote(mb.group(1)) == "blob_9":
                return self.send(200, b"\x89PNG\r\n\x1a\n\x00\x00", ctype="image/png")
            return self.err(404, "blob_not_found", "Blob not found")
        return self.send(404, {"message": f"Route GET:{path} not found", "error": "Not Found", "statusCode": 404})

    def record(self, stream, c, r, fields):
        data = dict(r["data"])
        if isinstance(data.get("attachment"), dict):
            data["attachment"] = dict(data["attachment"], fetch_url="/v1/blobs/" + data["attachment"]["blob_id"])
        if fields:
            fl = [x for f in fields for x in f.split(",")]
            data = {k: v for k, v in data.items() if k in fl}
        rec = {"object": "record", "id": r["id"], "stream": stream, "data": data, "emitted_at": r["emitted_at"], "connection_id": c, "connector_instance_id": c}
        if c in DISPLAY:
            rec["display_name"] = DISPLAY[c]
        return rec

    def records(self, stream, use, q, one, kind):
        with LOCK:
            STATE["records_calls"] += 1
        if any(k.startswith("filter") for k in q) and kind == "client":
            return self.err(400, "invalid_request", "filter[...] is not supported for client-token reads in PDPP v0.1", param="filter")
        allowed = {"changes_since", "connection_id", "count", "cursor", "expand", "expand_limit", "fields", "filter", "limit", "order", "sort"}
        bad = [k for k in q if k.split("[")[0] not in allowed]
        if bad:
            return self.err(400, "invalid_request", "Unsupported query parameter: " + ", ".join(bad))
        for f in [x for f in q.get("fields", []) for x in f.split(",")]:
            if f not in FIELDS[stream]:
                return self.err(400, "unknown_field", f"Unknown field: {f}", param="fields")
        try:
            limit = int(one("limit", "25"))
        except ValueError:
            limit = 25
        warnings = []
        if limit > 100:
            warnings.append({"code": "limit_clamped", "param": "limit", "message": "clamped"}); limit = 100
        if limit < 1:
            limit = 25
        cs = one("changes_since")
        if cs and len(use) > 1:
            return self.err(400, "invalid_argument", "changes_since needs one connection", param="changes_since", retry_with="connection_id", available_connections=[{"connection_id": c} for c in use])
        out = []; has_more = False; next_cursor = None
        off = 0
        if one("cursor"):
            try:
                off = json.loads(base64.b64decode(one("cursor")))["off"]
            except Exception:
                return self.err(400, "invalid_cursor", "Malformed cursor")
        for c in use:
            rs = sorted(RECORDS.get((stream, c), []), key=lambda r: r["emitted_at"], reverse=(one("order", "desc") == "desc"))
            page = rs[off:off + limit]
            more = off + limit < len(rs)
            has_more = has_more or more
            if more and len(use) == 1:
                next_cursor = base64.b64encode(json.dumps({"off": off + limit}).encode()).decode()
            out += [self.record(stream, c, r, q.get("fields")) for r in page]
            if "expand" in q:
                for rec in out:
                    rec["expanded"] = {"related": {"object": "list", "data": [], "has_more": False}}
        if len(use) > 1 and has_more:
            warnings.append({"code": "partial_results", "param": "connection_id", "message": "has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."})
        body = {"object": "list", "url": f"/v1/streams/{stream}/records", "has_more": has_more, "data": out, "meta": {"warnings": warnings}}
        if next_cursor:
            body["next_cursor"] = next_cursor
        if cs:
            body["next_changes_since"] = base64.b64encode(b'{"kind":"changes_since","version":7}').decode()
        if one("count") in ("exact", "estimated"):
            body["meta"]["count"] = {"kind": "exact", "value": sum(len(RECORDS.get((stream, c), [])) for c in use)}
        return self.finalize(body)

    def field_window(self, stream, c, r, q, one):
        field = one("field")
        if not field:
            return self.err(400, "invalid_field_path", "field is required", param="field")
        if field not in FIELDS[stream]:
            return self.err(403, "field_not_granted", "Fields not in grant: " + field)
        if field not in r["data"]:
            return self.err(404, "field_not_found", "Field not found")
        text = r["data"][field]
        if not isinstance(text, str):
            return self.err(422, "field_not_text", "Field is not text")
        limit = int(one("limit_chars") or 4096)
        warnings = []
        if limit > 16384:
            limit = 16384; warnings.append({"code": "limit_clamped", "message": "limit_chars clamped to 16384", "param": "limit_chars"})
        ms = me = None
        qq = one("q")
        if qq:
            i = text.lower().find(qq.lower())
            if i < 0:
                return self.err(404, "query_not_found", "query not found in field")
            before = int(one("before_chars") or 0); after = int(one("after_chars") or 0)
            start = max(0, i - before)
            if not one("limit_chars"):
                limit = before + len(qq) + after if (one("before_chars") or one("after_chars")) else 4096
            ms, me = i, i + len(qq)
        else:
            start = int(one("offset_chars") or 0)
        total = len(text); start = min(start, total)
        chunk = text[start:start + limit]; end = min(start + len(chunk), total)
        w = {"text": chunk, "total_chars": total, "start_chars": start, "end_chars": end, "limit_chars": limit,
             "complete": start == 0 and end >= total, "has_more": end < total, "match_start_chars": ms, "match_end_chars": me,
             "next_offset_chars": end if end < total else None, "previous_offset_chars": max(0, start - limit) if start > 0 else None}
        return self.finalize({"object": "field_window", "stream": stream, "record_id": r["id"], "field": {"path": field, "type": "string"}, "window": w, "meta": {"warnings": warnings}})

    def aggregate(self, stream, use, q, one):
        metric = one("metric")
        if metric not in ("count", "sum", "min", "max", "count_distinct"):
            return self.err(400, "invalid_request", "metric must be one of count, sum, min, max, count_distinct", param="metric")
        rows = [r for c in use for r in RECORDS.get((stream, c), [])]
        body = {"object": "aggregation", "stream": stream, "metric": metric, "field": one("field"), "group_by": one("group_by"), "group_by_time": None,
                "granularity": None, "time_zone": None, "approximate": False, "filtered_record_count": len(rows)}
        if one("group_by"):
            gb = one("group_by")
            if stream != "messages" or gb != "label":
                return self.err(400, "invalid_request", f"group_by field '{gb}' is not declared")
            counts = {}
            for r in rows:
                counts[r["data"].get(gb)] = counts.get(r["data"].get(gb), 0) + 1
            groups = sorted(({"key": k, "count": v} for k, v in counts.items()), key=lambda g: (-g["count"], str(g["key"])))
            lim = int(one("limit", "10"))
            body.update({"limit": lim, "groups": groups[:lim]})
            if len(use) == 1:
                body["other_count"] = sum(g["count"] for g in groups[lim:])
        elif metric == "count":
            body["value"] = len(rows)
        else:
            vals = [r["data"].get(one("field")) for r in rows if r["data"].get(one("field")) is not None]
            body["value"] = (min(vals) if metric == "min" else max(vals)) if vals and metric in ("min", "max") else len(set(vals))
        return self.finalize(body)

    def search(self, q, one):
        term = one("q")
        if not term:
            return self.err(400, "invalid_request", "q is required", param="q")
        limit = min(int(one("limit", "25")), 100)
        streams = q.get("streams") or list(GRANT_STREAMS)
        for s in streams:
            if s not in GRANT_STREAMS:
                return self.err(403, "grant_stream_not_allowed", f"Stream {s} not in grant", param="streams")
        conn = one("connection_id")
        hits = []
        for s in streams:
            for c in GRANT_STREAMS[s]:
                if conn and c != conn:
                    continue
                for r in RECORDS.get((s, c), []):
                    matched = [f for f in ("subject", "body", "title", "text") if isinstance(r["data"].get(f), str) and term.lower() in r["data"][f].lower()]
                    if not matched:
                        continue
                    f = matched[-1]
                    t = r["data"][f]; i = t.lower().find(term.lower())
                    pre = t[max(0, i - 60):i]; hit_txt = t[i:i + len(term)]; post = t[i + len(term):i + len(term) + 60]
                    snip = "…" + pre + "<mark>" + hit_txt + "</mark>" + post + "…"
                    h = {"object": "search_result", "stream": s, "record_key": r["id"], "connector_id": "https://registry.pdpp.dev/connectors/gmail",
                         "connection_id": c, "connector_instance_id": c, "emitted_at": r["emitted_at"], "matched_fields": matched,
                         "record_url": f"/v1/streams/{s}/records/{r['id']}", "snippet": {"field": f, "text": snip},
                         "evidence_excerpts": [{"object": "evidence_excerpt", "field_path": f, "provenance": "lexical_match", "preview_text": snip, "truncated": True,
                                                "read": {"object": "field_window_read", "method": "GET", "stream": s, "record_id": r["id"], "field": f, "connection_id": c}}],
                         "score": {"kind": "bm25", "value": -1.5, "order": "lower_is_better"}}
                    if c in DISPLAY:
                        h["display_name"] = DISPLAY[c]
                    if r["data"].get("sent_at"):
                        h["authored_at"] = r["data"]["sent_at"]
                    hits.append(h)
        off = 0
        if one("cursor"):
            try:
                off = json.loads(base64.urlsafe_b64decode(one("cursor")))["off"]
            except Exception:
                return self.err(400, "invalid_cursor", "Malformed cursor")
        page = hits[off:off + limit]
        body = {"object": "list", "url": "/v1/search", "has_more": off + limit < len(hits), "data": page,
                "meta": {"count": len(hits), "count_accuracy": "exact", "warnings": []}}
        if body["has_more"]:
            body["next_cursor"] = base64.urlsafe_b64encode(json.dumps({"off": off + limit}).encode()).decode()
        return self.finalize(body)

if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    srv = ThreadingHTTPServer(("127.0.0.1", port), H)
    print(f"rs_url=http://127.0.0.1:{srv.server_address[1]}", flush=True)
    srv.serve_forever()
