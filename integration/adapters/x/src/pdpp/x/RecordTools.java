package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** query_records, fetch and read_record_field. */
public final class RecordTools {
    private RecordTools() {}
    static final int FETCH_FIELD_MAX = 4000;
    static final int FETCH_TEXT_MAX = 16000;

    public static Map<String, Object> query(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("stream", "connection_id", "fields", "filter", "sort", "order", "limit", "cursor", "changes_since", "count", "expand", "expand_limit"));
        String stream = a.reqStr("stream"), conn = a.str("connection_id");
        List<String> fields = a.strList("fields");
        RsClient.Query q = new RsClient.Query();
        q.add("limit", a.intArg("limit", 1, 100)).add("cursor", a.str("cursor")).add("order", a.oneOf("order", "asc", "desc"))
         .add("sort", a.str("sort")).add("count", a.oneOf("count", "none", "exact")).add("fields", fields)
         .add("changes_since", a.str("changes_since")).add("connection_id", conn);
        Args.addFilter(q, a.objArg("filter"));
        if (a.has("expand") || a.has("expand_limit")) {
            Common.gateExpand(gw, token, stream, conn);
            Common.addExpand(q, a);
        }
        Map<String, Object> body;
        try { body = gw.rs.getJson(token, "/v1/streams/" + RsClient.seg(stream) + "/records", q); }
        catch (ToolError e) { throw Common.enrich(e, gw, token, stream); }

        List<Object> data = Json.list(body, "data");
        if (data == null) data = new ArrayList<>();
        List<Object> records = new ArrayList<>();
        String rsBase = gw.rs.base();
        for (Object o : data) {
            Map<String, Object> rec = Json.asObj(o);
            if (rec == null) continue;
            String rid = Json.scalarText(rec.get("id"));
            String cid = SchemaIndex.firstStr(rec, "connection_id", "connector_instance_id");
            if (cid == null) cid = conn;
            String rs = Json.str(rec, "stream") != null ? Json.str(rec, "stream") : stream;
            String handle = Render.handle(cid, rs, rid);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("handle", handle);
            out.put("id", rid);
            out.put("stream", rs);
            Json.putIf(out, "connection_id", cid);
            Json.putIf(out, "display_name", rec.get("display_name"));
            Json.putIf(out, "emitted_at", rec.get("emitted_at"));
            if (Boolean.TRUE.equals(rec.get("deleted"))) { out.put("deleted", true); Json.putIf(out, "deleted_at", rec.get("deleted_at")); }
            Map<String, Object> d = Json.obj(rec, "data");
            if (d != null) {
                if (fields != null) { Map<String, Object> p = new LinkedHashMap<>(); for (String f : fields) if (d.containsKey(f)) p.put(f, d.get(f)); d = p; }
                Render.Bounded b = Render.bound(d, handle, rsBase, cid, Render.STRUCT_STR_MAX);
                out.put("data", b.data);
                if (!b.truncated.isEmpty()) out.put("truncated_fields", b.truncated);
                if (!b.blobs.isEmpty()) out.put("blobs", b.blobs);
            }
            Json.putIf(out, "expanded", rec.get("expanded"));
            records.add(out);
        }
        Map<String, Object> meta = Json.obj(body, "meta");
        List<Object> warnings = Common.warnings(body);
        Map<String, Object> sc = new LinkedHashMap<>();
        sc.put("stream", stream);
        Json.putIf(sc, "connection_id", conn);
        sc.put("records", records);
        sc.put("has_more", Boolean.TRUE.equals(body.get("has_more")));
        Json.putIf(sc, "next_cursor", body.get("next_cursor"));
        Json.putIf(sc, "next_changes_since", body.get("next_changes_since"));
        if (meta != null && meta.get("count") != null && !"none".equals(Json.str(Json.asObj(meta.get("count")), "kind"))) sc.put("count", meta.get("count"));
        if (meta != null && meta.get("window") != null) sc.put("window", meta.get("window"));
        if (!warnings.isEmpty()) sc.put("warnings", warnings);

        StringBuilder t = new StringBuilder();
        t.append(stream).append(": ").append(records.size()).append(" record(s)");
        if (conn != null) t.append(" from connection_id=").append(conn);
        t.append(" | has_more=").append(sc.get("has_more")).append('\n');
        if (sc.get("next_cursor") != null) t.append("next_cursor: ").append(Json.scalarText(sc.get("next_cursor"))).append("  (pass as cursor for the next page)\n");
        if (sc.get("next_changes_since") != null) t.append("next_changes_since: ").append(Json.scalarText(sc.get("next_changes_since"))).append("  (pass as changes_since later to get only changes)\n");
        if (sc.get("count") != null) {
            Map<String, Object> c = Json.asObj(sc.get("count"));
            t.append("count: ").append(c != null ? Json.scalarText(c.get("value")) + " (" + Json.scalarText(c.get("kind")) + ")" : Json.scalarText(sc.get("count"))).append('\n');
        }
        if (sc.get("window") != null) t.append("window: ").append(Json.write(sc.get("window"))).append('\n');
        Common.appendWarnings(t, warnings);
        int shown = 0;
        for (Object ro : records) {
            Map<String, Object> r = Json.asObj(ro);
            StringBuilder line = new StringBuilder("- ").append(r.get("handle"));
            if (r.get("emitted_at") != null) line.append(" @").append(r.get("emitted_at"));
            if (Boolean.TRUE.equals(r.get("deleted"))) line.append(" [deleted]");
            if (r.get("data") != null) line.append(" ").append(Render.clip(Json.write(r.get("data")), Render.LINE_MAX));
            List<Object> tr = Json.asList(r.get("truncated_fields"));
            if (tr != null) for (Object to : tr) {
                Map<String, Object> d = Json.asObj(to);
                line.append("\n    [").append(d.get("field")).append(": ").append(d.get("total_chars")).append(" chars, ").append(d.get("kind"))
                    .append(" truncated; read_record_field ").append(Json.write(d.get("read_record_field"))).append("]");
            }
            List<Object> bl = Json.asList(r.get("blobs"));
            if (bl != null) for (Object bo : bl) {
                Map<String, Object> d = Json.asObj(bo);
                line.append("\n    [").append(d.get("field")).append(": binary ").append(Json.scalarText(d.get("mime_type"))).append(", ")
                    .append(Json.scalarText(d.get("size_bytes"))).append(" bytes, metadata only; resource ").append(d.get("resource_uri")).append("]");
            }
            if (r.get("expanded") != null) line.append("\n    expanded: ").append(Render.clip(Json.write(r.get("expanded")), Render.LINE_MAX));
            if (!Render.append(t, line.toString(), Render.TEXT_BUDGET)) {
                t.append("… ").append(records.size() - shown).append(" more record(s) not shown in text (they are in structuredContent.records); use fields or a smaller limit.\n");
                break;
            }
            shown++;
        }
        if (records.size() > 0) t.append("Use a handle as fetch {\"id\": ...} for a document view, or read_record_field for long text.");
        return Render.toolResult(t.toString().trim(), sc, false);
    }

    public static Map<String, Object> fetch(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("id", "fields", "expand", "expand_limit", "connection_id"));
        String id = a.reqStr("id");
        String[] h = Render.parseHandle(id);
        if (h == null) throw ToolError.invalidArg("id", "id must be a record handle '<connection_id>/<stream>/<record_id>' as returned by search or query_records");
        String stream = h[1], rid = h[2];
        String conn = a.str("connection_id") != null ? a.str("connection_id") : h[0];
        List<String> fields = a.strList("fields");
        conn = Common.resolveConnection(gw, token, stream, rid, conn);
        RsClient.Query q = new RsClient.Query().add("fields", fields).add("connection_id", conn);
        if (a.has("expand") || a.has("expand_limit")) {
            Common.gateExpand(gw, token, stream, conn);
            Common.addExpand(q, a);
        }
        Map<String, Object> rec;
        try { rec = gw.rs.getJson(token, Common.recordPath(stream, rid), q); }
        catch (ToolError e) { throw Common.enrich(e, gw, token, stream); }
        String cid = SchemaIndex.firstStr(rec, "connection_id", "connector_instance_id");
        if (cid == null) cid = conn;
        String handle = Render.handle(cid, stream, rid);
        Map<String, Object> data = Json.obj(rec, "data");
        if (data == null) data = new LinkedHashMap<>();
        if (fields != null) { Map<String, Object> p = new LinkedHashMap<>(); for (String f : fields) if (data.containsKey(f)) p.put(f, data.get(f)); data = p; }
        String ck = Json.str(rec, "connector_key");
        SchemaIndex idx = gw.indexOrNull(token);
        if (ck == null && idx != null && cid != null) ck = idx.connectorKeyFor(cid);
        String dn = Json.str(rec, "display_name");

        // title: a field with a declared title role, else identity + authored time
        String title = null;
        if (idx != null) for (SchemaIndex.Row r : idx.rowsFor(stream)) for (Map.Entry<String, Object> e : r.fieldCaps.entrySet()) {
            String cap = e.getValue() instanceof String ? (String) e.getValue() : Json.str(Json.asObj(e.getValue()), "role");
            if (title == null && cap != null && (cap.contains("primary-title") || cap.equals("title") || cap.contains("role=title")) && data.get(e.getKey()) instanceof String)
                title = Render.clip(Render.oneLine((String) data.get(e.getKey())), 200);
        }
        String authored = Render.authoredTime(data);
        if (title == null) {
            title = stream + " " + rid + (dn != null ? " · " + dn : "");
            if (authored != null) title += " · " + authored;
            else if (Json.str(rec, "emitted_at") != null) title += " · ingested " + Json.str(rec, "emitted_at");
        }

        Render.Bounded b = Render.bound(data, handle, gw.rs.base(), cid, FETCH_FIELD_MAX);
        StringBuilder text = new StringBuilder();
        List<String> omitted = new ArrayList<>();
        for (Map.Entry<String, Object> e : b.data.entrySet()) {
            Object v = e.getValue();
            if (Render.isBlobRef(v)) {
                Map<String, Object> br = Json.asObj(v);
                text.append(e.getKey()).append(": [binary ").append(Json.scalarText(br.get("mime_type"))).append(", ").append(Json.scalarText(br.get("size_bytes")))
                    .append(" bytes, blob_id ").append(Json.scalarText(br.get("blob_id"))).append("; metadata only, see metadata.blobs]\n");
                continue;
            }
            String line = e.getKey() + ": " + (v instanceof String ? (String) v : Render.clip(Json.write(v), FETCH_FIELD_MAX));
            if (text.length() + line.length() > FETCH_TEXT_MAX) { omitted.add(e.getKey()); continue; }
            text.append(line).append('\n');
        }
        for (Object to : b.truncated) {
            Map<String, Object> d = Json.asObj(to);
            text.append("[").append(d.get("field")).append(" truncated: ").append(d.get("total_chars")).append(" chars total; continue with read_record_field ")
                .append(Json.write(d.get("read_record_field"))).append("]\n");
        }
        if (!omitted.isEmpty()) text.append("[fields omitted for size: ").append(String.join(", ", omitted)).append("; fetch again with fields=[...] or use read_record_field]\n");
        if (rec.get("expanded") != null) text.append("expanded: ").append(Render.clip(Json.write(rec.get("expanded")), 4000)).append('\n');

        Map<String, Object> md = new LinkedHashMap<>();
        md.put("handle", handle);
        Json.putIf(md, "connection_id", cid);
        Json.putIf(md, "connector_key", ck);
        md.put("stream", stream);
        md.put("record_id", rid);
        Json.putIf(md, "display_name", dn);
        Json.putIf(md, "emitted_at", rec.get("emitted_at"));
        if (fields != null) md.put("fields", fields);
        if (!b.truncated.isEmpty()) md.put("truncated_fields", b.truncated);
        if (!omitted.isEmpty()) md.put("omitted_fields", omitted);
        if (!b.blobs.isEmpty()) md.put("blobs", b.blobs);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("id", handle);
        doc.put("title", title);
        doc.put("text", text.toString().trim());
        doc.put("url", gw.rs.base() + Common.recordPath(stream, rid) + (cid != null ? "?connection_id=" + RsClient.enc(cid) : ""));
        doc.put("metadata", md);
        Map<String, Object> r = new LinkedHashMap<>();
        List<Object> content = new ArrayList<>();
        content.add(Json.obj("type", "text", "text", Json.write(doc)));
        r.put("content", content);
        r.put("structuredContent", doc);
        return r;
    }

    public static Map<String, Object> readField(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("id", "stream", "record_id", "connection_id", "field", "offset_chars", "limit_chars", "q", "before_chars", "after_chars", "cursor"));
        String stream, rid, conn = null;
        if (a.str("id") != null) {
            String[] h = Render.parseHandle(a.str("id"));
            if (h == null) throw ToolError.invalidArg("id", "id must be a record handle '<connection_id>/<stream>/<record_id>'");
            conn = h[0]; stream = h[1]; rid = h[2];
        } else {
            stream = a.str("stream"); rid = a.str("record_id");
            if (stream == null || rid == null) throw ToolError.invalidArg("id", "Pass id (a record handle) or both stream and record_id");
        }
        if (a.str("connection_id") != null) conn = a.str("connection_id");
        String field = a.reqStr("field");
        Integer offset = a.intArg("offset_chars", 0, Integer.MAX_VALUE);
        if (offset == null && a.str("cursor") != null) {
            try { offset = Integer.parseInt(a.str("cursor")); } catch (NumberFormatException e) { throw ToolError.invalidArg("cursor", "cursor must be a next_offset_chars value"); }
        }
        Integer limit = a.intArg("limit_chars", 1, 16384);
        String q = a.str("q");
        Integer before = a.intArg("before_chars", 0, 8192), after = a.intArg("after_chars", 0, 8192);
        if (q != null && offset != null) throw ToolError.invalidArg("q", "q and offset_chars are exclusive; use one");
        if (q == null && (before != null || after != null)) throw ToolError.invalidArg("before_chars", "before_chars/after_chars require q");
        conn = Common.resolveConnection(gw, token, stream, rid, conn);
        RsClient.Query rq = new RsClient.Query().add("field", field).add("offset_chars", offset).add("limit_chars", limit)
                .add("q", q).add("before_chars", before).add("after_chars", after).add("connection_id", conn);
        Map<String, Object> body;
        try { body = gw.rs.getJson(token, Common.recordPath(stream, rid) + "/field-window", rq); }
        catch (ToolError e) { throw Common.enrich(e, gw, token, stream); }
        Map<String, Object> w = Json.obj(body, "window");
        if (w == null) w = new LinkedHashMap<>();
        String handle = Render.handle(conn, stream, rid);
        String text = Json.str(w, "text");
        int lim = w.get("limit_chars") instanceof Number ? ((Number) w.get("limit_chars")).intValue() : (limit == null ? 4096 : limit);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", handle);
        Json.putIf(out, "connection_id", conn);
        out.put("stream", stream);
        out.put("record_id", rid);
        out.put("field", field);
        Map<String, Object> f = Json.obj(body, "field");
        if (f != null && f.get("type") != null) out.put("field_type", f.get("type"));
        out.put("text", text == null ? "" : text);
        for (String k : new String[]{"total_chars", "start_chars", "end_chars", "limit_chars", "complete", "has_more", "match_start_chars", "match_end_chars"})
            if (w.containsKey(k)) out.put(k, w.get(k));
        Object nx = w.get("next_offset_chars"), pv = w.get("previous_offset_chars");
        out.put("next", nx instanceof Number ? Render.readArgs(handle, field, ((Number) nx).intValue(), lim) : null);
        out.put("previous", pv instanceof Number ? Render.readArgs(handle, field, ((Number) pv).intValue(), lim) : null);
        List<Object> warnings = Common.warnings(body);
        if (!warnings.isEmpty()) out.put("warnings", warnings);
        StringBuilder t = new StringBuilder();
        t.append(handle).append(" field ").append(field).append(": chars ").append(Json.scalarText(w.get("start_chars"))).append("–")
         .append(Json.scalarText(w.get("end_chars"))).append(" of ").append(Json.scalarText(w.get("total_chars")))
         .append(Boolean.TRUE.equals(w.get("complete")) ? " (complete field)" : Boolean.TRUE.equals(w.get("has_more")) ? " (more follows)" : " (end of field)").append('\n');
        if (w.get("match_start_chars") instanceof Number) t.append("match at chars ").append(w.get("match_start_chars")).append("–").append(w.get("match_end_chars")).append('\n');
        Common.appendWarnings(t, warnings);
        t.append("-----\n").append(text == null ? "" : text).append("\n-----\n");
        if (out.get("next") != null) t.append("next: read_record_field ").append(Json.write(out.get("next"))).append('\n');
        if (out.get("previous") != null) t.append("previous: read_record_field ").append(Json.write(out.get("previous"))).append('\n');
        return Render.toolResult(t.toString().trim(), out, false);
    }
}
