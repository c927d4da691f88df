package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The schema tool: compact global index, stream-scoped capability summaries, and scoped full detail. */
public final class SchemaTool {
    private SchemaTool() {}
    static final int DETAILED_ROWS = 40;
    static final int FULL_MAX_CHARS = 200_000;

    public static final String LEGEND =
        "Field flags (from GET /v1/schema): t=<type>; role=<declared display role>; eq = exact filter {field: value}; "
        + "r=<ops> = range filter {field: {op: value}} with ops gte|gt|lte|lt; lex / sem = searchable by lexical / semantic search; "
        + "a=<ops> = aggregate support (count_distinct, group_by, group_by_time, max, min, sum); g=false = not granted; "
        + "<flag>=unusable[:reason] = declared but not usable; declared = readable/projectable, no other capability advertised.";

    public static Map<String, Object> call(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("stream", "connection_id", "detail"));
        String stream = a.str("stream"), conn = a.str("connection_id");
        String detail = a.oneOf("detail", "compact", "full");
        if ("full".equals(detail)) {
            if (stream == null) {
                ToolError t = ToolError.of("full_detail_requires_stream",
                    "detail:\"full\" is only available for one stream. Call schema() for the compact index, then schema(stream, connection_id, detail: \"full\").");
                t.error.put("param", "detail"); t.error.put("retry_with", "stream");
                throw t;
            }
            return full(gw, token, stream, conn);
        }
        if (stream == null) return global(gw, token, conn);
        return scoped(gw, token, stream, conn);
    }

    private static Map<String, Object> stripEnvelope(Map<String, Object> doc, String conn) {
        Map<String, Object> d = new LinkedHashMap<>(doc);
        d.remove("links"); d.remove("meta");
        if (d.get("connectors") instanceof List) d.remove("streams"); // never duplicate stream rows
        if (conn != null && d.get("connectors") instanceof List) {
            // defensive: keep only the requested connection even if the RS returned more
            List<Object> cs = new ArrayList<>();
            for (Object co : Json.asList(d.get("connectors"))) {
                Map<String, Object> c = Json.asObj(co);
                if (c == null) continue;
                c = new LinkedHashMap<>(c);
                onlyConn(c, conn);
                List<Object> ss = new ArrayList<>();
                List<Object> orig = Json.list(c, "streams");
                if (orig != null) for (Object so : orig) {
                    Map<String, Object> s = Json.asObj(so);
                    if (s == null) continue;
                    s = new LinkedHashMap<>(s);
                    boolean had = s.get("granted_connections") instanceof List;
                    onlyConn(s, conn);
                    if (had && Json.list(s, "granted_connections").isEmpty()) continue;
                    ss.add(s);
                }
                if (orig != null) c.put("streams", ss);
                if (orig == null || !ss.isEmpty()) cs.add(c);
            }
            d.put("connectors", cs);
        }
        return d;
    }

    private static void onlyConn(Map<String, Object> m, String conn) {
        List<Object> gc = Json.list(m, "granted_connections");
        if (gc == null) return;
        List<Object> keep = new ArrayList<>();
        for (Object o : gc) {
            String id = o instanceof String ? (String) o : Json.str(Json.asObj(o), "connection_id");
            if (conn.equals(id)) keep.add(o);
        }
        m.put("granted_connections", keep);
    }

    static Map<String, Object> global(Gateway gw, String token, String conn) {
        SchemaIndex idx = new SchemaIndex(gw.fetchSchema(token, null, conn, false));
        Map<String, Map<String, Object>> byConnector = new LinkedHashMap<>();
        int n = 0;
        StringBuilder t = new StringBuilder();
        Set<String> allNames = new LinkedHashSet<>();
        for (SchemaIndex.Row r : idx.rows) allNames.add(r.stream);
        t.append("Granted data index: ").append(idx.rows.size()).append(" stream rows, ").append(allNames.size()).append(" distinct stream names");
        if (idx.grantId != null) t.append(", grant ").append(idx.grantId);
        t.append(".\nNext: schema(stream) for fields, filters, sort and aggregations; add connection_id when a stream lists several connections.\n");
        for (SchemaIndex.Row r : idx.rows) {
            String key = r.connectorKey == null ? "(unknown connector)" : r.connectorKey;
            Map<String, Object> c = byConnector.computeIfAbsent(key, k -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("connector_key", k);
                m.put("connections", new ArrayList<Object>());
                m.put("streams", new ArrayList<Object>());
                return m;
            });
            Json.putIf(c, "display_name", r.connectorDisplayName);
            List<Object> cc = Json.asList(c.get("connections"));
            List<String> rowConns = new ArrayList<>();
            for (SchemaIndex.Conn x : r.connections) {
                rowConns.add(x.connectionId);
                boolean seen = false;
                for (Object o : cc) if (x.connectionId.equals(Json.str(Json.asObj(o), "connection_id"))) seen = true;
                if (!seen) { Map<String, Object> m = new LinkedHashMap<>(); m.put("connection_id", x.connectionId); Json.putIf(m, "display_name", x.displayName); cc.add(m); }
            }
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", r.stream);
            if (n++ < DETAILED_ROWS) {
                Json.putIf(s, "record_count", r.recordCount);
                s.put("connection_ids", rowConns);
                s.put("field_count", r.fieldCaps.size());
                if (!r.expandCaps.isEmpty()) s.put("expand", true);
            }
            Json.asList(c.get("streams")).add(s);
        }
        for (Map<String, Object> c : byConnector.values()) {
            t.append("\nconnector ").append(c.get("connector_key"));
            if (c.get("display_name") != null) t.append(" (").append(c.get("display_name")).append(")");
            t.append("\n  connections: ");
            List<String> cs = new ArrayList<>();
            for (Object o : Json.asList(c.get("connections"))) {
                Map<String, Object> m = Json.asObj(o);
                cs.add(Json.str(m, "connection_id") + (m.get("display_name") != null ? " (" + m.get("display_name") + ")" : ""));
            }
            t.append(cs.isEmpty() ? "(none listed)" : String.join(", ", cs)).append("\n  streams: ");
            List<String> names = new ArrayList<>();
            for (Object o : Json.asList(c.get("streams"))) {
                Map<String, Object> m = Json.asObj(o);
                String nm = Json.str(m, "name");
                if (m.get("record_count") != null) nm += " [" + Json.scalarText(m.get("record_count")) + " records]";
                List<Object> ids = Json.asList(m.get("connection_ids"));
                if (ids != null && ids.size() > 1) nm += " {" + ids.size() + " connections}";
                names.add(nm);
            }
            t.append(String.join(", ", names)).append('\n');
        }
        if (n > DETAILED_ROWS) t.append("\n(detailed rows capped at ").append(DETAILED_ROWS).append("; every stream name is still listed above)\n");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("object", "schema_index");
        Json.putIf(data, "grant_id", idx.grantId);
        Json.putIf(data, "token_kind", idx.tokenKind);
        data.put("connector_count", byConnector.size());
        data.put("stream_count", idx.rows.size());
        data.put("detailed_rows_capped", n > DETAILED_ROWS);
        data.put("connectors", new ArrayList<Object>(byConnector.values()));
        data.put("next", "schema(stream[, connection_id]) for field capabilities");
        return Render.toolResult(t.toString().trim(), Json.obj("data", data), false);
    }

    static Map<String, Object> scoped(Gateway gw, String token, String stream, String conn) {
        Map<String, Object> doc = gw.fetchSchema(token, stream, conn, false);
        SchemaIndex idx = new SchemaIndex(doc);
        List<SchemaIndex.Row> rows = idx.rowsFor(stream);
        if (rows.isEmpty()) throw notFound(gw, token, stream, conn);
        StringBuilder t = new StringBuilder();
        t.append("Stream '").append(stream).append("': ").append(rows.size()).append(rows.size() == 1 ? " matching source" : " matching sources (pass connection_id to pick one)").append(".\n");
        for (SchemaIndex.Row r : rows) {
            t.append('\n');
            describeRow(t, r, conn);
            if (t.length() > Render.TEXT_BUDGET * 2) { t.append("\n(further rows omitted; pass connection_id to narrow)\n"); break; }
        }
        List<String> modes = searchModes(gw);
        t.append("\nsearch modes available on this server: ").append(String.join(", ", modes)).append('\n');
        t.append(LEGEND).append('\n');
        Map<String, Object> sc = new LinkedHashMap<>();
        sc.put("data", stripEnvelope(doc, conn));
        sc.put("legend", LEGEND);
        sc.put("search_modes", modes);
        return Render.toolResult(t.toString().trim(), sc, false);
    }

    static List<String> searchModes(Gateway gw) {
        List<String> modes = new ArrayList<>();
        Map<String, Object> caps = Json.obj(gw.rsMetadata(), "capabilities");
        for (String m : new String[]{"lexical", "semantic", "hybrid"}) {
            Map<String, Object> c = Json.obj(caps, m + "_retrieval");
            if (c != null && Boolean.TRUE.equals(c.get("supported"))) modes.add(m);
        }
        if (modes.isEmpty()) modes.add("lexical");
        return modes;
    }

    private static ToolError notFound(Gateway gw, String token, String stream, String conn) {
        SchemaIndex all = gw.indexOrNull(token);
        Set<String> names = new LinkedHashSet<>();
        if (all != null) for (SchemaIndex.Row r : all.rows) names.add(r.stream);
        List<String> shown = new ArrayList<>(names);
        if (shown.size() > 50) shown = shown.subList(0, 50);
        ToolError t = ToolError.of("stream_not_found", "No granted stream named '" + stream + "'" + (conn != null ? " under connection " + conn : "")
            + ". Granted streams: " + (shown.isEmpty() ? "(call schema() to list)" : String.join(", ", shown)) + (names.size() > 50 ? ", …" : ""));
        t.error.put("param", "stream");
        return t;
    }

    /** Parse a field capability (compact flag string or full capability object) into readable words. */
    static String describeField(Object cap) {
        List<String> out = new ArrayList<>();
        if (cap instanceof String) {
            for (String tok : ((String) cap).split(",")) {
                tok = tok.trim();
                if (tok.isEmpty() || tok.equals("declared")) continue;
                if (tok.startsWith("t=")) out.add(0, tok.substring(2));
                else if (tok.startsWith("role=")) out.add("role " + tok.substring(5));
                else if (tok.equals("g=false")) out.add("NOT granted");
                else if (tok.equals("eq")) out.add("filter: exact");
                else if (tok.equals("r")) out.add("filter: range");
                else if (tok.startsWith("r=")) out.add("filter: range " + tok.substring(2));
                else if (tok.equals("lex")) out.add("search: lexical");
                else if (tok.equals("sem")) out.add("search: semantic");
                else if (tok.startsWith("a=")) out.add("aggregate: " + tok.substring(2).replace("|", ", "));
                else out.add(tok);
            }
        } else if (cap instanceof Map) {
            Map<String, Object> m = Json.asObj(cap);
            String type = Json.str(m, "type");
            if (type == null) type = Json.str(Json.obj(m, "schema"), "type");
            if (type != null) out.add(type);
            if (Json.str(m, "role") != null) out.add("role " + Json.str(m, "role"));
            if (Boolean.FALSE.equals(m.get("granted"))) out.add("NOT granted");
            if (usable(m.get("exact_filter"))) out.add("filter: exact");
            if (usable(m.get("range_filter"))) {
                List<Object> ops = Json.list(Json.obj(m, "range_filter"), "operators");
                out.add("filter: range" + (ops == null ? "" : " " + joinStr(ops, "|")));
            }
            if (usable(m.get("lexical_search"))) out.add("search: lexical");
            if (usable(m.get("semantic_search"))) out.add("search: semantic");
            Map<String, Object> ag = Json.obj(m, "aggregation");
            if (ag != null) {
                List<String> ops = new ArrayList<>();
                for (Map.Entry<String, Object> e : ag.entrySet()) if (usable(e.getValue())) ops.add(e.getKey());
                if (!ops.isEmpty()) out.add("aggregate: " + String.join(", ", ops));
            }
        }
        return out.isEmpty() ? "readable" : String.join("; ", out);
    }

    private static boolean usable(Object o) {
        Map<String, Object> m = Json.asObj(o);
        return m != null && Boolean.TRUE.equals(m.get("usable"));
    }

    private static String joinStr(List<Object> l, String sep) {
        List<String> s = new ArrayList<>();
        for (Object o : l) s.add(Json.scalarText(o));
        return String.join(sep, s);
    }

    static void describeRow(StringBuilder t, SchemaIndex.Row r, String onlyConn) {
        t.append("stream ").append(r.stream).append(" — connector_key ").append(r.connectorKey == null ? "?" : r.connectorKey);
        if (r.connectorDisplayName != null) t.append(" (").append(r.connectorDisplayName).append(")");
        t.append('\n');
        List<String> cs = new ArrayList<>();
        for (SchemaIndex.Conn c : r.connections) {
            if (onlyConn != null && !onlyConn.equals(c.connectionId)) continue;
            cs.add("connection_id=" + c.connectionId + (c.displayName != null ? " (" + c.displayName + ")" : ""));
        }
        if (onlyConn != null && cs.isEmpty()) cs.add("connection_id=" + onlyConn);
        t.append("  connections: ").append(cs.isEmpty() ? "(not listed)" : String.join(", ", cs)).append('\n');
        if (r.displayName != null) t.append("  display label: ").append(r.displayName).append('\n');
        if (r.recordCount != null) t.append("  records: ").append(Json.scalarText(r.recordCount)).append('\n');
        if (r.primaryKey != null) t.append("  primary_key: ").append(Json.scalarText(r.primaryKey)).append('\n');
        t.append("  fields (").append(r.fieldCaps.size()).append("):\n");
        int shown = 0;
        for (Map.Entry<String, Object> e : r.fieldCaps.entrySet()) {
            if (shown++ >= 120) { t.append("    … ").append(r.fieldCaps.size() - 120).append(" more (see structuredContent.data)\n"); break; }
            t.append("    ").append(e.getKey()).append(": ").append(describeField(e.getValue())).append('\n');
        }
        Map<String, List<String>> aggs = new LinkedHashMap<>();
        List<String> lex = new ArrayList<>(), sem = new ArrayList<>(), eq = new ArrayList<>(), range = new ArrayList<>();
        for (Map.Entry<String, Object> e : r.fieldCaps.entrySet()) {
            for (String part : describeField(e.getValue()).split("; ")) {
                if (part.equals("search: lexical")) lex.add(e.getKey());
                else if (part.equals("search: semantic")) sem.add(e.getKey());
                else if (part.equals("filter: exact")) eq.add(e.getKey());
                else if (part.startsWith("filter: range")) range.add(e.getKey() + part.substring("filter: range".length()));
                else if (part.startsWith("aggregate: "))
                    for (String op : part.substring(11).split(", ")) aggs.computeIfAbsent(op.trim(), k -> new ArrayList<>()).add(e.getKey());
            }
        }
        t.append("  filters: ").append(eq.isEmpty() && range.isEmpty() ? "none advertised for this token" : ("exact " + eq + (range.isEmpty() ? "" : "; range " + range))).append('\n');
        t.append("  search fields: ").append(lex.isEmpty() && sem.isEmpty() ? "none advertised" : ("lexical " + lex + (sem.isEmpty() ? "" : "; semantic " + sem))).append('\n');
        StringBuilder ag = new StringBuilder("metric=count");
        for (Map.Entry<String, List<String>> e : aggs.entrySet()) ag.append("; ").append(e.getKey()).append(" on ").append(e.getValue());
        t.append("  aggregate: ").append(ag).append(aggs.isEmpty() ? " (no field-level aggregations advertised)" : "").append('\n');
        t.append("  projection: query_records/fetch fields=[any field above]\n");
        t.append("  sort: ").append(r.cursorField != null ? "sort=\"" + r.cursorField + "\" or \"-" + r.cursorField + "\" (cursor field), or order=asc|desc" : "order=asc|desc along the stream cursor (no sort field advertised)").append('\n');
        t.append("  count: query_records count=\"exact\"; aggregate metric=count\n");
        if (r.expandCaps.isEmpty()) t.append("  expand: none advertised (expand is rejected)\n");
        else {
            List<String> ex = new ArrayList<>();
            for (Object o : r.expandCaps) {
                Map<String, Object> m = Json.asObj(o);
                if (m == null) continue;
                String d = Json.scalarText(m.get("name"));
                List<String> bits = new ArrayList<>();
                if (m.get("cardinality") != null) bits.add(Json.scalarText(m.get("cardinality")));
                if (m.get("target_stream") != null) bits.add("-> " + Json.scalarText(m.get("target_stream")));
                if (m.get("max_limit") != null) bits.add("max " + Json.scalarText(m.get("max_limit")));
                if (Boolean.FALSE.equals(m.get("usable"))) bits.add("unusable" + (m.get("reason") != null ? ": " + m.get("reason") : ""));
                ex.add(d + (bits.isEmpty() ? "" : " (" + String.join(", ", bits) + ")"));
            }
            t.append("  expand: ").append(String.join("; ", ex)).append('\n');
        }
    }

    static Map<String, Object> full(Gateway gw, String token, String stream, String conn) {
        if (conn == null) {
            SchemaIndex idx = gw.indexOrNull(token);
            if (idx != null) {
                List<SchemaIndex.Row> rows = idx.rowsFor(stream);
                List<Map<String, Object>> conns = idx.connectionsFor(stream);
                if (conns.size() > 1 || rows.size() > 1) {
                    ToolError t = Common.ambiguous("Stream '" + stream + "'", conns);
                    t.error.put("message", "Stream '" + stream + "' resolves to more than one source. Retry schema(stream, connection_id, detail: \"full\") with one connection_id.");
                    throw t;
                }
            }
        }
        Map<String, Object> doc;
        try { doc = gw.fetchSchema(token, stream, conn, true); }
        catch (ToolError e) { throw Common.enrich(e, gw, token, stream); }
        Map<String, Object> data = stripEnvelope(doc, conn);
        String ser = Json.write(data);
        if (ser.length() > FULL_MAX_CHARS) {
            throw ToolError.of("result_too_large", "Full schema for '" + stream + "' is " + ser.length()
                + " characters, above this adapter's single-result budget. Use schema(stream) compact summaries instead.");
        }
        SchemaIndex idx = new SchemaIndex(doc);
        List<SchemaIndex.Row> rows = idx.rowsFor(stream);
        if (rows.isEmpty()) throw notFound(gw, token, stream, conn);
        StringBuilder t = new StringBuilder();
        t.append("Full schema for stream '").append(stream).append("' (").append(rows.size()).append(" source row(s)); the raw document is in structuredContent.data.\n");
        for (SchemaIndex.Row r : rows) {
            t.append('\n');
            describeRow(t, r, conn);
            Map<String, Object> props = Json.obj(Json.obj(r.raw, "schema"), "properties");
            if (props != null) {
                t.append("  JSON Schema properties:\n");
                for (Map.Entry<String, Object> e : props.entrySet())
                    if (!Render.append(t, "    " + e.getKey() + ": " + Render.clip(Json.write(e.getValue()), 300), Render.TEXT_BUDGET)) break;
            }
        }
        Map<String, Object> sc = new LinkedHashMap<>();
        sc.put("data", data);
        sc.put("legend", LEGEND);
        return Render.toolResult(Render.clip(t.toString().trim(), Render.TEXT_BUDGET + 2000), sc, false);
    }
}
