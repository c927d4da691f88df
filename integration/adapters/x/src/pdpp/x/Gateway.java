package pdpp.x;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Shared state: RS client, short-lived per-token caches, token classification (owner detection). */
public final class Gateway {
    public enum Kind { CLIENT, OWNER, UNAUTHENTICATED, UNKNOWN }

    public static final long SCHEMA_TTL_MS = 30_000;
    public final RsClient rs;
    private final Map<String, Object[]> schemaCache = new ConcurrentHashMap<>(); // tokenHash -> {time, SchemaIndex}
    private volatile Object[] rsMeta; // {time, Map}

    public Gateway(RsClient rs) { this.rs = rs; }

    public static String hash(String token) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] h = d.digest((token == null ? "" : token).getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 12; i++) b.append(String.format("%02x", h[i]));
            return b.toString();
        } catch (Exception e) { throw new IllegalStateException(e); }
    }

    /** Compact, grant-wide schema index (cached briefly). Throws ToolError on RS failure. */
    public SchemaIndex index(String token) {
        String h = hash(token);
        Object[] c = schemaCache.get(h);
        if (c != null && System.currentTimeMillis() - (Long) c[0] < SCHEMA_TTL_MS) return (SchemaIndex) c[1];
        Map<String, Object> doc = fetchSchema(token, null, null, false);
        SchemaIndex idx = new SchemaIndex(doc);
        schemaCache.put(h, new Object[]{System.currentTimeMillis(), idx});
        if (schemaCache.size() > 1000) schemaCache.clear();
        return idx;
    }

    /** Index or null if the schema cannot be read (used where the adapter must fail open). */
    public SchemaIndex indexOrNull(String token) {
        try { return index(token); } catch (ToolError e) { return null; }
    }

    /** Live schema fetch: compact view first, retrying without view if the RS rejects it. */
    public Map<String, Object> fetchSchema(String token, String stream, String connectionId, boolean full) {
        RsClient.Query q = new RsClient.Query();
        if (full) q.add("detail", "full"); else q.add("view", "compact");
        q.add("stream", stream).add("connection_id", connectionId);
        try {
            return rs.getJson(token, "/v1/schema", q);
        } catch (ToolError e) {
            String code = Json.str(e.error, "code");
            if (!full && e.status == 400 && ("invalid_request".equals(code) || "bad_request".equals(code) || "unsupported_query".equals(code))) {
                RsClient.Query q2 = new RsClient.Query().add("stream", stream).add("connection_id", connectionId);
                return rs.getJson(token, "/v1/schema", q2);
            }
            throw e;
        }
    }

    /** Classify a bearer by asking the RS who it is (GET /v1/schema -> bearer.token_kind). */
    public Kind classify(String token) {
        if (token == null || token.isBlank()) return Kind.UNAUTHENTICATED;
        try {
            SchemaIndex idx = index(token);
            if ("owner".equals(idx.tokenKind)) return Kind.OWNER;
            Map<String, Object> bearer = Json.obj(idx.doc, "bearer");
            if (bearer != null && "owner".equals(Json.str(bearer, "scope"))) return Kind.OWNER;
            return Kind.CLIENT;
        } catch (ToolError e) {
            if (e.status == 401) return Kind.UNAUTHENTICATED;
            if (e.status == 403) {
                String code = Json.str(e.error, "code");
                // An owner-only or control-plane credential refused by a grant-scoped read.
                if (code != null && code.startsWith("grant_")) return Kind.UNAUTHENTICATED;
            }
            return Kind.UNKNOWN;
        }
    }

    /** RS protected-resource metadata (for authorization_servers and search capability discovery). */
    public Map<String, Object> rsMetadata() {
        Object[] m = rsMeta;
        if (m != null && System.currentTimeMillis() - (Long) m[0] < 300_000) return Json.asObj(m[1]);
        Map<String, Object> doc;
        try { doc = rs.getJson(null, "/.well-known/oauth-protected-resource", null); } catch (ToolError e) { doc = null; }
        rsMeta = new Object[]{System.currentTimeMillis(), doc};
        return doc;
    }
}
