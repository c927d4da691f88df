package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Cross-tool helpers: ambiguity errors, expand gating, RS error enrichment. */
public final class Common {
    private Common() {}
    public static final int MAX_CANDIDATES = 10;

    /** Typed ambiguous_connection error built from grant membership only (no probes). */
    public static ToolError ambiguous(String what, List<Map<String, Object>> conns) {
        ToolError t = ToolError.of("ambiguous_connection",
            what + " is available under " + conns.size() + " connections. Retry with connection_id set to one of available_connections.");
        t.error.put("type", "ambiguous_connection");
        t.error.put("retry_with", "connection_id");
        capCandidates(t.error, conns);
        return t;
    }

    static void capCandidates(Map<String, Object> err, List<Map<String, Object>> conns) {
        List<Object> shown = new ArrayList<>(conns.subList(0, Math.min(MAX_CANDIDATES, conns.size())));
        err.put("available_connections", shown);
        err.put("available_connection_count", conns.size());
        if (conns.size() > MAX_CANDIDATES) {
            err.put("available_connections_truncated", true);
            err.put("available_connections_omitted", conns.size() - MAX_CANDIDATES);
            err.put("discovery_hint", "Call schema (no arguments) for the full connection index, then retry with connection_id.");
        } else {
            err.put("available_connections_truncated", false);
        }
    }

    /** Enrich RS-originated errors: ambiguity candidates get grant_id/connector_key from the cached index and are capped. */
    public static ToolError enrich(ToolError e, Gateway gw, String token, String stream) {
        List<Object> ac = Json.asList(e.error.get("available_connections"));
        if (ac == null) return e;
        SchemaIndex idx = gw.indexOrNull(token);
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : ac) {
            Map<String, Object> c = Json.asObj(o);
            if (c == null) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            String cid = Json.str(c, "connection_id");
            Object gid = c.get("grant_id") != null ? c.get("grant_id") : (idx == null ? null : idx.grantId);
            Json.putIf(m, "grant_id", gid);
            Object ck = c.get("connector_key") != null ? c.get("connector_key") : (idx == null || cid == null ? null : idx.connectorKeyFor(cid));
            Json.putIf(m, "connector_key", ck);
            Json.putIf(m, "connection_id", cid);
            Json.putIf(m, "display_name", c.get("display_name"));
            out.add(m);
        }
        e.error.put("retry_with", e.error.get("retry_with") == null ? "connection_id" : e.error.get("retry_with"));
        capCandidates(e.error, out);
        return e;
    }

    /**
     * Adapter-layer expand gate: reject expand/expand_limit when the live, stream-scoped schema advertises no
     * expand_capabilities. Fails open (returns normally) when the schema cannot be fetched or the stream is unknown.
     */
    public static void gateExpand(Gateway gw, String token, String stream, String connectionId) {
        SchemaIndex idx;
        try {
            idx = new SchemaIndex(gw.fetchSchema(token, stream, connectionId, false));
        } catch (ToolError e) {
            return; // fail open: the RS decides
        }
        List<SchemaIndex.Row> rows = idx.rowsFor(stream);
        if (rows.isEmpty()) return; // unknown stream: defer to the RS
        for (SchemaIndex.Row r : rows) if (r.expandCaps != null && !r.expandCaps.isEmpty()) return;
        ToolError t = ToolError.of("invalid_expand",
            "Stream '" + stream + "' does not advertise any expand_capabilities in GET /v1/schema, so expand/expand_limit cannot be used on it. "
            + "Check schema(stream) (expand relations, sourced from GET /v1/schema expand_capabilities) and retry without expand.");
        t.error.put("type", "invalid_request_error");
        t.error.put("param", "expand");
        t.error.put("stream", stream);
        throw t;
    }

    /** Resolve a missing connection for single-record reads: one candidate -> use it; several -> ambiguity error. */
    public static String resolveConnection(Gateway gw, String token, String stream, String recordId, String connectionId) {
        if (connectionId != null) return connectionId;
        SchemaIndex idx = gw.indexOrNull(token);
        if (idx == null) return null;
        List<Map<String, Object>> conns = idx.connectionsFor(stream);
        if (conns.size() == 1) return Json.str(conns.get(0), "connection_id");
        if (conns.size() > 1) throw ambiguous("Record '" + recordId + "' in stream '" + stream + "'", conns);
        return null;
    }

    public static void addExpand(RsClient.Query q, Args a) {
        q.add("expand", a.strList("expand"));
        Map<String, Object> el = a.objArg("expand_limit");
        if (el != null) for (Map.Entry<String, Object> e : el.entrySet()) {
            Object v = e.getValue();
            if (!(v instanceof Long) || (Long) v < 1) throw ToolError.invalidArg("expand_limit", "expand_limit." + e.getKey() + " must be a positive integer");
            q.add("expand_limit[" + e.getKey() + "]", v);
        }
    }

    public static String recordPath(String stream, String recordId) {
        return "/v1/streams/" + RsClient.seg(stream) + "/records/" + RsClient.seg(recordId);
    }

    public static List<Object> warnings(Map<String, Object> body) {
        List<Object> w = Json.list(Json.obj(body, "meta"), "warnings");
        return w == null ? new ArrayList<>() : w;
    }

    public static void appendWarnings(StringBuilder t, List<Object> warnings) {
        for (Object o : warnings) {
            Map<String, Object> w = Json.asObj(o);
            if (w == null) continue;
            t.append("warning ").append(Json.scalarText(w.get("code"))).append(": ").append(Render.clip(Json.scalarText(w.get("message")), 300)).append('\n');
        }
    }
}
