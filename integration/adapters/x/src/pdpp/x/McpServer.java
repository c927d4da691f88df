package pdpp.x;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Transport-independent MCP JSON-RPC handling. */
public final class McpServer {
    public static final List<String> VERSIONS = List.of("2025-06-18", "2025-03-26", "2024-11-05");
    public static final String NAME = "pdpp-mcp-x";
    public static final String VERSION = "0.1.0";
    private final Gateway gw;

    public McpServer(Gateway gw) { this.gw = gw; }

    static Map<String, Object> rpcError(Object id, int code, String message, Object data) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("code", code); e.put("message", message);
        if (data != null) e.put("data", data);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("jsonrpc", "2.0"); r.put("id", id); r.put("error", e);
        return r;
    }

    static Map<String, Object> rpcResult(Object id, Object result) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("jsonrpc", "2.0"); r.put("id", id); r.put("result", result);
        return r;
    }

    /** Parse one transport payload (single message or batch) and return the response JSON (or null if none). */
    public String handleText(String text, String token) {
        Object parsed;
        try { parsed = Json.parse(text); }
        catch (RuntimeException e) { return Json.write(rpcError(null, -32700, "Parse error: " + e.getMessage(), null)); }
        if (parsed instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object o : (List<?>) parsed) { Map<String, Object> r = handle(o, token); if (r != null) out.add(r); }
            if (((List<?>) parsed).isEmpty()) return Json.write(rpcError(null, -32600, "Invalid Request: empty batch", null));
            return out.isEmpty() ? null : Json.write(out);
        }
        Map<String, Object> r = handle(parsed, token);
        return r == null ? null : Json.write(r);
    }

    public Map<String, Object> handle(Object msgObj, String token) {
        Map<String, Object> msg = Json.asObj(msgObj);
        if (msg == null) return rpcError(null, -32600, "Invalid Request: expected a JSON object", null);
        Object id = msg.get("id");
        boolean isNotification = !msg.containsKey("id");
        if (id != null && !(id instanceof String) && !(id instanceof Number)) return rpcError(null, -32600, "Invalid Request: bad id", null);
        Object m = msg.get("method");
        if (!(m instanceof String)) {
            if (msg.containsKey("result") || msg.containsKey("error")) return null; // a response to us; ignore
            return rpcError(id, -32600, "Invalid Request: missing method", null);
        }
        String method = (String) m;
        Map<String, Object> params = msg.get("params") == null ? new LinkedHashMap<>() : Json.asObj(msg.get("params"));
        if (params == null) return isNotification ? null : rpcError(id, -32602, "Invalid params: params must be an object", null);
        if (isNotification) return null; // notifications/initialized, cancelled, etc.
        try {
            switch (method) {
                case "initialize": return rpcResult(id, initialize(params));
                case "ping": return rpcResult(id, new LinkedHashMap<>());
                case "tools/list": return rpcResult(id, Json.obj("tools", Tools.list()));
                case "tools/call": return rpcResult(id, callTool(params, token));
                case "resources/list": return rpcResult(id, Json.obj("resources", new ArrayList<>()));
                case "resources/templates/list": return rpcResult(id, Json.obj("resourceTemplates", List.of(Json.obj(
                        "uriTemplate", "pdpp://blob/{blob_id}", "name", "pdpp-blob",
                        "description", "Grant-scoped blob bytes (GET /v1/blobs/{blob_id}); add ?connection_id=... when needed."))));
                case "resources/read": return rpcResult(id, readResource(params, token));
                case "prompts/list": return rpcResult(id, Json.obj("prompts", new ArrayList<>()));
                case "logging/setLevel": return rpcResult(id, new LinkedHashMap<>());
                default: return rpcError(id, -32601, "Method not found: " + method, null);
            }
        } catch (ToolError e) {
            return rpcError(id, e.status == 401 ? -32001 : -32602, String.valueOf(e.error.get("message")), e.error);
        } catch (RuntimeException e) {
            Main.log("internal error in " + method + ": " + e);
            return rpcError(id, -32603, "Internal error: " + e.getClass().getSimpleName(), null);
        }
    }

    private Map<String, Object> initialize(Map<String, Object> params) {
        String requested = Json.str(params, "protocolVersion");
        String version = requested != null && VERSIONS.contains(requested) ? requested : VERSIONS.get(0);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("protocolVersion", version);
        r.put("capabilities", Json.obj("tools", Json.obj("listChanged", false), "resources", Json.obj("listChanged", false, "subscribe", false)));
        r.put("serverInfo", Json.obj("name", NAME, "title", "PDPP grant-scoped data", "version", VERSION));
        r.put("instructions", Tools.INSTRUCTIONS);
        return r;
    }

    private Map<String, Object> callTool(Map<String, Object> params, String token) {
        String name = Json.str(params, "name");
        if (name == null) throw new ToolError(0, Json.obj("code", "invalid_params", "message", "tools/call requires a tool name"));
        Object rawArgs = params.get("arguments");
        Map<String, Object> args = rawArgs == null ? new LinkedHashMap<>() : Json.asObj(rawArgs);
        if (!List.of("schema", "query_records", "aggregate", "search", "fetch", "read_record_field").contains(name))
            throw new ToolError(0, Json.obj("code", "unknown_tool", "message", "Unknown tool: " + name));
        try {
            if (args == null) throw ToolError.invalidArg("arguments", "arguments must be an object");
            Gateway.Kind kind = gw.classify(token);
            if (kind == Gateway.Kind.OWNER) throw ownerRejected();
            if (kind == Gateway.Kind.UNKNOWN)
                throw ToolError.of("rs_unavailable", "Could not verify the bearer with the resource server (GET /v1/schema failed); refusing to read. Retry later.");
            switch (name) {
                case "schema": return SchemaTool.call(gw, token, args);
                case "query_records": return RecordTools.query(gw, token, args);
                case "aggregate": return SearchAggTools.aggregate(gw, token, args);
                case "search": return SearchAggTools.search(gw, token, args);
                case "fetch": return RecordTools.fetch(gw, token, args);
                default: return RecordTools.readField(gw, token, args);
            }
        } catch (ToolError e) {
            return Render.errorResult(e);
        } catch (RuntimeException e) {
            Main.log("tool " + name + " failed: " + e);
            return Render.errorResult(ToolError.of("internal_error", "The adapter failed while handling this call (" + e.getClass().getSimpleName() + "). Try narrower arguments."));
        }
    }

    public static ToolError ownerRejected() {
        ToolError t = ToolError.of("owner_token_rejected",
            "This MCP server only accepts grant-scoped client tokens. Owner or control-plane bearers are rejected; obtain a scoped client grant instead.");
        t.error.put("type", "permission_error");
        return t;
    }

    private Map<String, Object> readResource(Map<String, Object> params, String token) {
        String uri = Json.str(params, "uri");
        if (uri == null || !uri.startsWith("pdpp://blob/")) throw new ToolError(0, Json.obj("code", "resource_not_found", "message", "Unknown resource URI; only pdpp://blob/{blob_id} is readable"));
        Gateway.Kind kind = gw.classify(token);
        if (kind == Gateway.Kind.OWNER) throw ownerRejected();
        if (kind != Gateway.Kind.CLIENT) throw new ToolError(401, Json.obj("code", "authentication_error", "message", "A valid grant-scoped bearer is required"));
        String rest = uri.substring("pdpp://blob/".length());
        String blobId = rest, query = "";
        int qi = rest.indexOf('?');
        if (qi >= 0) { blobId = rest.substring(0, qi); query = rest.substring(qi + 1); }
        String conn = null;
        for (String p : query.split("&")) if (p.startsWith("connection_id=")) conn = java.net.URLDecoder.decode(p.substring(14), java.nio.charset.StandardCharsets.UTF_8);
        blobId = java.net.URLDecoder.decode(blobId, java.nio.charset.StandardCharsets.UTF_8);
        RsClient.Resp r = gw.rs.get(token, "/v1/blobs/" + RsClient.seg(blobId), new RsClient.Query().add("connection_id", conn));
        String mime = r.contentType.isEmpty() ? "application/octet-stream" : r.contentType.split(";")[0].trim();
        if (r.raw.length > 8 * 1024 * 1024) throw new ToolError(0, Json.obj("code", "blob_too_large", "message", "Blob is " + r.raw.length + " bytes; fetch it directly from the resource server GET /v1/blobs/" + blobId));
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("uri", uri); c.put("mimeType", mime);
        if (mime.startsWith("text/") || mime.contains("json")) c.put("text", new String(r.raw, java.nio.charset.StandardCharsets.UTF_8));
        else c.put("blob", Base64.getEncoder().encodeToString(r.raw));
        return Json.obj("contents", List.of(c));
    }
}
