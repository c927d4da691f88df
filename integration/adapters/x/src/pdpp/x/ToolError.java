package pdpp.x;

import java.util.LinkedHashMap;
import java.util.Map;

/** A typed error surfaced to the MCP client as an isError tool result (or an HTTP error in hosted auth). */
public final class ToolError extends RuntimeException {
    public final Map<String, Object> error;
    public final int status;

    public ToolError(int status, Map<String, Object> error) {
        super(Json.str(error, "message"));
        this.status = status;
        this.error = error;
    }

    public static ToolError of(String code, String message) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", "adapter_error");
        e.put("code", code);
        e.put("message", message);
        e.put("source", "mcp_adapter");
        return new ToolError(0, e);
    }

    public static ToolError invalidArg(String param, String message) {
        ToolError t = of("invalid_argument", message);
        t.error.put("param", param);
        return t;
    }

    public ToolError with(String k, Object v) { error.put(k, v); return this; }
}
