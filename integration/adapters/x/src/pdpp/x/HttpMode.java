package pdpp.x;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/** Hosted MCP over Streamable HTTP (JSON responses, no SSE) at /mcp on 127.0.0.1. */
public final class HttpMode {
    private HttpMode() {}
    static final int MAX_BODY = 4 * 1024 * 1024;

    private static final Map<String, String> sessions = new ConcurrentHashMap<>(); // session id -> token hash
    private static final SecureRandom RNG = new SecureRandom();
    private static String base;

    public static void start(McpServer server, Gateway gw, int port) throws IOException {
        HttpServer hs = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
        hs.setExecutor(Executors.newFixedThreadPool(32));
        int actual = hs.getAddress().getPort();
        base = "http://127.0.0.1:" + actual;
        hs.createContext("/mcp", ex -> safe(ex, () -> mcp(ex, server, gw)));
        hs.createContext("/.well-known/oauth-protected-resource", ex -> safe(ex, () -> metadata(ex, gw)));
        hs.createContext("/", ex -> safe(ex, () -> send(ex, 404, jsonErr("not_found_error", "not_found", "Not found; the MCP endpoint is /mcp"), null)));
        hs.start();
        System.out.println("mcp_url=" + base + "/mcp");
        System.out.flush();
        System.setOut(System.err);
        Main.log("hosted MCP listening on " + base + "/mcp (resource server " + gw.rs.base() + ")");
    }

    interface Body { void run() throws IOException; }

    private static void safe(HttpExchange ex, Body b) {
        try { b.run(); }
        catch (Throwable t) {
            Main.log("http handler error: " + t);
            try { send(ex, 500, jsonErr("api_error", "internal_error", "Internal error"), null); } catch (Throwable ignore) { }
        } finally { ex.close(); }
    }

    static String metadataUrl() { return base + "/.well-known/oauth-protected-resource/mcp"; }

    static Map<String, Object> jsonErr(String type, String code, String msg) {
        return Json.obj("error", Json.obj("type", type, "code", code, "message", msg));
    }

    static void send(HttpExchange ex, int status, Object body, Map<String, String> headers) throws IOException {
        if (headers != null) for (Map.Entry<String, String> h : headers.entrySet()) ex.getResponseHeaders().set(h.getKey(), h.getValue());
        if (body == null) { ex.sendResponseHeaders(status, -1); return; }
        byte[] b = (body instanceof String ? (String) body : Json.write(body)).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream os = ex.getResponseBody()) { os.write(b); }
    }

    private static void challenge(HttpExchange ex, String msg) throws IOException {
        Map<String, Object> e = jsonErr("authentication_error", "authentication_error", msg);
        Map<String, Object> inner = Json.asObj(e.get("error"));
        inner.put("resource_metadata", metadataUrl());
        inner.put("next_step", "Fetch resource_metadata and obtain a grant-scoped client token from its authorization server; owner tokens are not accepted.");
        Map<String, String> h = new LinkedHashMap<>();
        h.put("WWW-Authenticate", "Bearer resource_metadata=\"" + metadataUrl() + "\"");
        send(ex, 401, e, h);
    }

    private static void metadata(HttpExchange ex, Gateway gw) throws IOException {
        if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) { send(ex, 405, jsonErr("invalid_request_error", "method_not_allowed", "GET only"), Map.of("Allow", "GET")); return; }
        String p = ex.getRequestURI().getPath();
        if (!p.equals("/.well-known/oauth-protected-resource/mcp") && !p.equals("/.well-known/oauth-protected-resource")) {
            send(ex, 404, jsonErr("not_found_error", "not_found", "Not found"), null); return;
        }
        Map<String, Object> rsMeta = gw.rsMetadata();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("resource", base + "/mcp");
        m.put("resource_name", "PDPP grant-scoped MCP (pdpp-mcp-x)");
        Object as = rsMeta == null ? null : rsMeta.get("authorization_servers");
        m.put("authorization_servers", as instanceof List ? as : List.of());
        m.put("bearer_methods_supported", List.of("header"));
        m.put("pdpp_token_kinds_supported", List.of("client"));
        m.put("pdpp_owner_tokens_accepted", false);
        m.put("pdpp_resource_server", gw.rs.base());
        send(ex, 200, m, null);
    }

    private static boolean originOk(HttpExchange ex) {
        String origin = ex.getRequestHeaders().getFirst("Origin");
        if (origin == null || origin.equals("null")) return origin == null;
        try {
            String host = URI.create(origin).getHost();
            return host != null && (host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]") || host.equals("::1"));
        } catch (IllegalArgumentException e) { return false; }
    }

    private static void mcp(HttpExchange ex, McpServer server, Gateway gw) throws IOException {
        if (!ex.getRequestURI().getPath().equals("/mcp")) { send(ex, 404, jsonErr("not_found_error", "not_found", "Not found"), null); return; }
        String method = ex.getRequestMethod();
        if (!originOk(ex)) { send(ex, 403, jsonErr("permission_error", "origin_not_allowed", "Origin not allowed"), null); return; }
        if ("GET".equals(method)) { send(ex, 405, jsonErr("invalid_request_error", "method_not_allowed", "This server does not offer an SSE stream; POST JSON-RPC to /mcp."), Map.of("Allow", "POST, DELETE")); return; }
        if (!"POST".equals(method) && !"DELETE".equals(method)) { send(ex, 405, jsonErr("invalid_request_error", "method_not_allowed", "Use POST"), Map.of("Allow", "POST, DELETE")); return; }

        String auth = ex.getRequestHeaders().getFirst("Authorization");
        if (auth == null || !auth.startsWith("Bearer ") || auth.substring(7).trim().isEmpty()) { challenge(ex, "Missing Bearer token"); return; }
        String token = auth.substring(7).trim();
        String th = Gateway.hash(token);

        String sid = ex.getRequestHeaders().getFirst("Mcp-Session-Id");
        if (sid != null) {
            String owner = sessions.get(sid);
            if (owner == null) { send(ex, 404, jsonErr("not_found_error", "session_not_found", "Unknown or expired Mcp-Session-Id; re-initialize"), null); return; }
            if (!owner.equals(th)) { send(ex, 403, jsonErr("permission_error", "session_token_mismatch", "This session belongs to a different bearer"), null); return; }
        }
        if ("DELETE".equals(method)) {
            if (sid == null) { send(ex, 400, jsonErr("invalid_request_error", "invalid_request", "Mcp-Session-Id header required"), null); return; }
            sessions.remove(sid); send(ex, 204, null, null); return;
        }

        Gateway.Kind kind = gw.classify(token);
        if (kind == Gateway.Kind.UNAUTHENTICATED) { challenge(ex, "Invalid or expired token"); return; }
        if (kind == Gateway.Kind.OWNER) {
            send(ex, 403, Json.obj("error", MCPOwnerError()), null); return;
        }
        String pv = ex.getRequestHeaders().getFirst("MCP-Protocol-Version");
        if (pv != null && !McpServer.VERSIONS.contains(pv)) {
            send(ex, 400, jsonErr("invalid_request_error", "unsupported_protocol_version", "Unsupported MCP-Protocol-Version " + pv + "; supported: " + McpServer.VERSIONS), null); return;
        }
        byte[] raw = readBody(ex.getRequestBody());
        if (raw == null) { send(ex, 413, jsonErr("request_entity_too_large_error", "payload_too_large", "Request body too large"), null); return; }
        String text = new String(raw, StandardCharsets.UTF_8);
        Map<String, String> headers = new LinkedHashMap<>();
        boolean isInit = false;
        try {
            Object p = Json.parse(text);
            Map<String, Object> o = Json.asObj(p);
            isInit = o != null && "initialize".equals(o.get("method"));
        } catch (RuntimeException ignore) { }
        if (isInit) {
            byte[] b = new byte[18]; RNG.nextBytes(b);
            StringBuilder s = new StringBuilder();
            for (byte x : b) s.append(String.format("%02x", x));
            String newSid = s.toString();
            if (sessions.size() > 10000) sessions.clear();
            sessions.put(newSid, th);
            headers.put("Mcp-Session-Id", newSid);
        }
        String resp = server.handleText(text, token);
        if (resp == null) { send(ex, 202, null, headers); return; }
        send(ex, 200, resp, headers);
    }

    private static Map<String, Object> MCPOwnerError() {
        Map<String, Object> e = new LinkedHashMap<>(McpServer.ownerRejected().error);
        e.put("type", "permission_error");
        return e;
    }

    private static byte[] readBody(InputStream in) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        byte[] buf = new byte[16384];
        int n;
        while ((n = in.read(buf)) > 0) {
            bo.write(buf, 0, n);
            if (bo.size() > MAX_BODY) return null;
        }
        return bo.toByteArray();
    }
}
