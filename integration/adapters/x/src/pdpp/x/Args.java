package pdpp.x;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Validated access to tool arguments; every failure is a typed invalid_argument ToolError. */
public final class Args {
    private final Map<String, Object> m;

    public Args(Map<String, Object> m, Set<String> allowed) {
        this.m = m;
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                if (k.equals("connector_instance_id"))
                    throw ToolError.invalidArg(k, "connector_instance_id is not accepted; use connection_id.");
                throw ToolError.invalidArg(k, "Unknown argument '" + k + "'. Allowed: " + String.join(", ", allowed));
            }
        }
    }

    public boolean has(String k) { return m.get(k) != null; }

    public String str(String k) {
        Object v = m.get(k);
        if (v == null) return null;
        if (!(v instanceof String)) throw ToolError.invalidArg(k, k + " must be a string");
        String s = ((String) v).trim();
        return s.isEmpty() ? null : s;
    }

    public String reqStr(String k) {
        String s = str(k);
        if (s == null) throw ToolError.invalidArg(k, k + " is required");
        return s;
    }

    public String oneOf(String k, String... vals) {
        String s = str(k);
        if (s == null) return null;
        for (String v : vals) if (v.equalsIgnoreCase(s)) return v;
        throw ToolError.invalidArg(k, k + " must be one of " + String.join(", ", vals));
    }

    public Integer intArg(String k, int min, int max) {
        Object v = m.get(k);
        if (v == null) return null;
        long n;
        if (v instanceof Long) n = (Long) v;
        else if (v instanceof Double && ((Double) v) == Math.rint((Double) v)) n = ((Double) v).longValue();
        else if (v instanceof String && ((String) v).trim().matches("-?\\d{1,12}")) n = Long.parseLong(((String) v).trim());
        else throw ToolError.invalidArg(k, k + " must be an integer");
        if (n < min || n > max) throw ToolError.invalidArg(k, k + " must be between " + min + " and " + max);
        return (int) n;
    }

    /** Array of strings; a single string or comma list is accepted too. */
    public List<String> strList(String k) {
        Object v = m.get(k);
        if (v == null) return null;
        List<String> out = new ArrayList<>();
        if (v instanceof String) {
            for (String p : ((String) v).split(",")) if (!p.trim().isEmpty()) out.add(p.trim());
        } else if (v instanceof List) {
            for (Object o : (List<?>) v) {
                if (!(o instanceof String)) throw ToolError.invalidArg(k, k + " must be an array of strings");
                if (!((String) o).trim().isEmpty()) out.add(((String) o).trim());
            }
        } else throw ToolError.invalidArg(k, k + " must be an array of strings");
        if (out.isEmpty()) throw ToolError.invalidArg(k, k + " must not be empty");
        return out;
    }

    public Map<String, Object> objArg(String k) {
        Object v = m.get(k);
        if (v == null) return null;
        Map<String, Object> o = Json.asObj(v);
        if (o == null) throw ToolError.invalidArg(k, k + " must be an object");
        return o;
    }

    /** filter: {field: scalar} (exact) or {field: {gte|gt|lte|lt: value}} (range) -> filter[f] / filter[f][op]. */
    public static void addFilter(RsClient.Query q, Map<String, Object> filter) {
        if (filter == null) return;
        for (Map.Entry<String, Object> e : filter.entrySet()) {
            String f = e.getKey(); Object v = e.getValue();
            Map<String, Object> ops = Json.asObj(v);
            if (ops != null) {
                if (ops.isEmpty()) throw ToolError.invalidArg("filter", "filter." + f + " has no operators");
                for (Map.Entry<String, Object> op : ops.entrySet()) {
                    String o = op.getKey();
                    if (!Set.of("gte", "gt", "lte", "lt").contains(o))
                        throw ToolError.invalidArg("filter", "filter." + f + ": unsupported operator '" + o + "' (use gte, gt, lte, lt)");
                    if (!isScalar(op.getValue())) throw ToolError.invalidArg("filter", "filter." + f + "." + o + " must be a scalar");
                    q.add("filter[" + f + "][" + o + "]", op.getValue());
                }
            } else if (isScalar(v)) {
                q.add("filter[" + f + "]", v);
            } else throw ToolError.invalidArg("filter", "filter." + f + " must be a scalar (exact match) or an operator object");
        }
    }

    private static boolean isScalar(Object v) { return v instanceof String || v instanceof Number || v instanceof Boolean; }
}
