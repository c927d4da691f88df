package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Record handles, payload bounding (large text / binary), and text helpers. */
public final class Render {
    private Render() {}

    public static final int TEXT_BUDGET = 12_000;      // max chars of content[] text for list-shaped results
    public static final int STRUCT_STR_MAX = 2_000;    // strings longer than this are previewed in structured records
    public static final int LINE_MAX = 400;            // per-record line in content[] text
    private static final Pattern B64 = Pattern.compile("^[A-Za-z0-9+/=_\\-\\s]+$");

    // ---------- handles: "<connection_id>/<stream>/<record_id>" with '%' and '/' percent-encoded ----------
    public static String esc(String s) { return s == null ? "" : s.replace("%", "%25").replace("/", "%2F"); }
    public static String unesc(String s) { return s.replace("%2F", "/").replace("%2f", "/").replace("%25", "%"); }

    public static String handle(String connectionId, String stream, String recordId) {
        return esc(connectionId) + "/" + esc(stream) + "/" + esc(recordId);
    }

    /** Parse a handle (or pdpp://record/... URI). Returns {connection_id|null, stream, record_id} or null. */
    public static String[] parseHandle(String h) {
        if (h == null) return null;
        String s = h.trim();
        if (s.startsWith("pdpp://record/")) s = s.substring("pdpp://record/".length());
        String[] p = s.split("/", -1);
        if (p.length == 3 && !p[1].isEmpty() && !p[2].isEmpty()) return new String[]{p[0].isEmpty() ? null : unesc(p[0]), unesc(p[1]), unesc(p[2])};
        if (p.length == 2 && !p[0].isEmpty() && !p[1].isEmpty()) return new String[]{null, unesc(p[0]), unesc(p[1])};
        return null;
    }

    // ---------- bounding ----------
    public static boolean isBlobRef(Object v) {
        Map<String, Object> m = Json.asObj(v);
        return m != null && m.get("blob_id") instanceof String;
    }

    public static boolean looksBase64(String s) {
        if (s.length() < 512) return false;
        String head = s.length() > 4096 ? s.substring(0, 4096) : s;
        if (head.startsWith("data:") && head.contains(";base64,")) return true;
        return B64.matcher(head).matches() && head.indexOf(' ') < 0 && !head.contains("\n\n");
    }

    public static Map<String, Object> readArgs(String handle, String field, int offset, int limit) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("id", handle); a.put("field", field); a.put("offset_chars", offset); a.put("limit_chars", limit);
        return a;
    }

    /** Result of bounding one record's data object. */
    public static final class Bounded {
        public Map<String, Object> data = new LinkedHashMap<>();
        public List<Object> truncated = new ArrayList<>();
        public List<Object> blobs = new ArrayList<>();
    }

    /**
     * Keep ordinary values; preview long strings (with an explicit truncation descriptor and read_record_field
     * continuation); replace base64-like strings with a metadata marker; keep blob_refs metadata-only.
     */
    public static Bounded bound(Map<String, Object> data, String handle, String rsBase, String connectionId, int maxStr) {
        Bounded b = new Bounded();
        if (data == null) return b;
        for (Map.Entry<String, Object> e : data.entrySet()) {
            String k = e.getKey(); Object v = e.getValue();
            if (isBlobRef(v)) {
                Map<String, Object> ref = Json.asObj(v);
                Map<String, Object> meta = new LinkedHashMap<>();
                for (String kk : new String[]{"blob_id", "mime_type", "size_bytes", "sha256", "fetch_url"}) Json.putIf(meta, kk, ref.get(kk));
                b.data.put(k, meta);
                Map<String, Object> bl = new LinkedHashMap<>(meta);
                bl.put("field", k);
                String fu = Json.str(ref, "fetch_url");
                if (fu == null) fu = "/v1/blobs/" + RsClient.seg(Json.str(ref, "blob_id"));
                bl.put("rs_url", (fu.startsWith("http") ? fu : rsBase + fu) + (connectionId != null && !fu.contains("connection_id") ? (fu.contains("?") ? "&" : "?") + "connection_id=" + RsClient.enc(connectionId) : ""));
                bl.put("resource_uri", "pdpp://blob/" + RsClient.seg(Json.str(ref, "blob_id")) + (connectionId != null ? "?connection_id=" + RsClient.enc(connectionId) : ""));
                bl.put("note", "binary content is not inlined; read it via MCP resources/read on resource_uri or GET rs_url with the same grant-scoped bearer");
                b.blobs.add(bl);
            } else if (v instanceof String && (((String) v).length() > maxStr || looksBase64((String) v))) {
                String s = (String) v;
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("field", k); d.put("total_chars", s.length());
                if (looksBase64(s)) {
                    b.data.put(k, "[base64-like data omitted: " + s.length() + " chars]");
                    d.put("kind", "base64_like"); d.put("shown_chars", 0);
                    d.put("note", "binary-like text is metadata-only; read_record_field can page it if really needed");
                    d.put("read_record_field", readArgs(handle, k, 0, 4096));
                } else {
                    b.data.put(k, s.substring(0, maxStr) + "…");
                    d.put("kind", "text"); d.put("shown_chars", maxStr);
                    d.put("read_record_field", readArgs(handle, k, maxStr, 8000));
                }
                b.truncated.add(d);
            } else {
                b.data.put(k, v);
            }
        }
        return b;
    }

    public static String clip(String s, int max) {
        if (s == null) return "";
        return s.length() <= max ? s : s.substring(0, Math.max(0, max - 1)) + "…";
    }

    public static String oneLine(String s) { return s == null ? "" : s.replaceAll("\\s+", " ").trim(); }

    /** Appends while the budget allows; returns false once the budget would be exceeded. */
    public static boolean append(StringBuilder b, String line, int budget) {
        if (b.length() + line.length() + 1 > budget) return false;
        b.append(line).append('\n');
        return true;
    }

    /** First present authored/event timestamp (preferred over ingestion time for titles). */
    public static String authoredTime(Map<String, Object> data) {
        if (data == null) return null;
        for (String k : new String[]{"sent_at", "authored_at", "created_at", "occurred_at", "date", "timestamp", "updated_at"}) {
            Object v = data.get(k);
            if (v instanceof String && !((String) v).isEmpty()) return (String) v;
        }
        return null;
    }

    public static Map<String, Object> toolResult(String text, Map<String, Object> structured, boolean isError) {
        Map<String, Object> r = new LinkedHashMap<>();
        List<Object> content = new ArrayList<>();
        content.add(Json.obj("type", "text", "text", text));
        r.put("content", content);
        if (structured != null) r.put("structuredContent", structured);
        if (isError) r.put("isError", true);
        return r;
    }

    /** Render a typed error (adapter- or RS-originated) as an MCP tool error result. */
    public static Map<String, Object> errorResult(ToolError e) {
        Map<String, Object> err = e.error;
        StringBuilder t = new StringBuilder();
        t.append("Error ").append(Json.scalarText(err.get("code")));
        if (err.get("status") != null) t.append(" (HTTP ").append(Json.scalarText(err.get("status"))).append(")");
        t.append(": ").append(Json.scalarText(err.get("message"))).append('\n');
        if (err.get("param") != null) t.append("param: ").append(Json.scalarText(err.get("param"))).append('\n');
        if (err.get("retry_with") != null) t.append("retry_with: ").append(Json.scalarText(err.get("retry_with"))).append('\n');
        List<Object> ac = Json.asList(err.get("available_connections"));
        if (ac != null) {
            t.append("available_connections:\n");
            for (Object o : ac) {
                Map<String, Object> c = Json.asObj(o);
                if (c == null) continue;
                t.append("- connection_id=").append(Json.scalarText(c.get("connection_id")));
                if (c.get("connector_key") != null) t.append(" connector_key=").append(Json.scalarText(c.get("connector_key")));
                if (c.get("grant_id") != null) t.append(" grant_id=").append(Json.scalarText(c.get("grant_id")));
                if (c.get("display_name") != null) t.append(" (").append(Json.scalarText(c.get("display_name"))).append(")");
                t.append('\n');
            }
            if (Boolean.TRUE.equals(err.get("available_connections_truncated")))
                t.append("(showing ").append(ac.size()).append(" of ").append(Json.scalarText(err.get("available_connection_count"))).append(" connections)\n");
        }
        if (err.get("discovery_hint") != null) t.append("hint: ").append(Json.scalarText(err.get("discovery_hint"))).append('\n');
        if (err.get("next_step") != null) t.append("next_step: ").append(Json.scalarText(err.get("next_step"))).append('\n');
        if (err.get("request_id") != null) t.append("request_id: ").append(Json.scalarText(err.get("request_id"))).append('\n');
        return toolResult(t.toString().trim(), Json.obj("error", err), true);
    }
}
