package pdpp.x;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Thin client for the PDPP RS read API. Always uses the caller's grant-scoped bearer. */
public final class RsClient {
    public static final String PDPP_VERSION = "2026-04-06";
    private final String base;
    private final HttpClient http;

    public RsClient(String base) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    public String base() { return base; }

    /** Ordered query parameters; repeated keys allowed. */
    public static final class Query {
        final List<String[]> params = new ArrayList<>();
        public Query add(String k, Object v) {
            if (v == null) return this;
            if (v instanceof List) { for (Object o : (List<?>) v) add(k, o); return this; }
            String s = v instanceof String ? (String) v : Json.scalarText(v);
            params.add(new String[]{k, s});
            return this;
        }
        public String encode() {
            StringBuilder b = new StringBuilder();
            for (String[] p : params) {
                b.append(b.length() == 0 ? '?' : '&');
                b.append(enc(p[0])).append('=').append(enc(p[1]));
            }
            return b.toString();
        }
        public boolean isEmpty() { return params.isEmpty(); }
    }

    public static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20"); }

    public static String seg(String s) { return enc(s); }

    public static final class Resp {
        public final int status;
        public final Map<String, Object> body;
        public final byte[] raw;
        public final String contentType;
        Resp(int status, Map<String, Object> body, byte[] raw, String ct) { this.status = status; this.body = body; this.raw = raw; this.contentType = ct; }
    }

    /** GET a JSON document; throws ToolError carrying the RS error envelope on non-2xx. */
    public Map<String, Object> getJson(String token, String path, Query q) {
        Resp r = get(token, path, q);
        if (r.body == null) throw ToolError.of("rs_error", "Resource server returned a non-JSON body for " + path).with("status", r.status);
        return r.body;
    }

    public Resp get(String token, String path, Query q) {
        String url = base + path + (q == null ? "" : q.encode());
        HttpRequest.Builder rb;
        try {
            rb = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET()
                    .header("Accept", "application/json").header("PDPP-Version", PDPP_VERSION);
        } catch (IllegalArgumentException e) {
            throw ToolError.invalidArg("stream", "Cannot build resource-server URL: " + e.getMessage());
        }
        if (token != null && !token.isEmpty()) rb.header("Authorization", "Bearer " + token);
        HttpResponse<byte[]> resp;
        try {
            resp = http.send(rb.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.io.IOException e) {
            throw ToolError.of("rs_unavailable", "Resource server unreachable: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ToolError.of("rs_unavailable", "Interrupted while calling the resource server");
        }
        String ct = resp.headers().firstValue("content-type").orElse("");
        byte[] raw = resp.body();
        Map<String, Object> body = null;
        if (ct.contains("json") || (raw.length > 0 && raw[0] == '{')) {
            try { body = Json.asObj(Json.parse(new String(raw, StandardCharsets.UTF_8))); } catch (RuntimeException ignore) { body = null; }
        }
        int st = resp.statusCode();
        if (st >= 200 && st < 300) return new Resp(st, body, raw, ct);
        throw new ToolError(st, normalizeError(st, body, raw, resp.headers().firstValue("request-id").orElse(null)));
    }

    /** Normalise the RS error envelope (or a non-PDPP body) into one error object. */
    static Map<String, Object> normalizeError(int status, Map<String, Object> body, byte[] raw, String requestId) {
        Map<String, Object> e;
        if (body != null && body.get("error") instanceof Map) {
            e = new LinkedHashMap<>(Json.asObj(body.get("error")));
        } else if (body != null && body.get("error") instanceof String) {
            e = new LinkedHashMap<>();
            String code = (String) body.get("error");
            e.put("type", code); e.put("code", code);
            Object msg = body.get("error_description") != null ? body.get("error_description") : body.get("message");
            e.put("message", msg == null ? code : Json.scalarText(msg));
        } else {
            e = new LinkedHashMap<>();
            e.put("type", "rs_error");
            e.put("code", "http_" + status);
            String txt = raw == null ? "" : new String(raw, StandardCharsets.UTF_8);
            if (txt.length() > 300) txt = txt.substring(0, 300) + "…";
            e.put("message", "Resource server returned HTTP " + status + (txt.isBlank() ? "" : ": " + txt));
        }
        e.put("status", status);
        if (!e.containsKey("request_id") && requestId != null) e.put("request_id", requestId);
        e.putIfAbsent("source", "resource_server");
        return e;
    }
}
