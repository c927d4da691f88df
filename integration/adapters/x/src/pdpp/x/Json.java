package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Minimal JSON parser/serializer. Objects are LinkedHashMap, arrays ArrayList, numbers Long/Double. */
public final class Json {
    private Json() {}

    public static final class ParseException extends RuntimeException {
        public ParseException(String m) { super(m); }
    }

    public static Object parse(String s) {
        Parser p = new Parser(s);
        p.ws();
        Object v = p.value(0);
        p.ws();
        if (p.i != s.length()) throw new ParseException("trailing characters at " + p.i);
        return v;
    }

    private static final class Parser {
        final String s; int i;
        Parser(String s) { this.s = s; }
        void ws() { while (i < s.length()) { char c = s.charAt(i); if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++; else break; } }
        Object value(int depth) {
            if (depth > 200) throw new ParseException("nesting too deep");
            if (i >= s.length()) throw new ParseException("unexpected end");
            char c = s.charAt(i);
            switch (c) {
                case '{': return obj(depth);
                case '[': return arr(depth);
                case '"': return str();
                case 't': lit("true"); return Boolean.TRUE;
                case 'f': lit("false"); return Boolean.FALSE;
                case 'n': lit("null"); return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return num();
                    throw new ParseException("unexpected character '" + c + "' at " + i);
            }
        }
        void lit(String w) { if (!s.startsWith(w, i)) throw new ParseException("bad literal at " + i); i += w.length(); }
        Map<String, Object> obj(int depth) {
            Map<String, Object> m = new LinkedHashMap<>();
            i++; ws();
            if (i < s.length() && s.charAt(i) == '}') { i++; return m; }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') throw new ParseException("expected key at " + i);
                String k = str(); ws();
                if (i >= s.length() || s.charAt(i) != ':') throw new ParseException("expected ':' at " + i);
                i++; ws();
                m.put(k, value(depth + 1)); ws();
                if (i >= s.length()) throw new ParseException("unexpected end in object");
                char c = s.charAt(i++);
                if (c == '}') return m;
                if (c != ',') throw new ParseException("expected ',' or '}' at " + (i - 1));
            }
        }
        List<Object> arr(int depth) {
            List<Object> a = new ArrayList<>();
            i++; ws();
            if (i < s.length() && s.charAt(i) == ']') { i++; return a; }
            while (true) {
                ws(); a.add(value(depth + 1)); ws();
                if (i >= s.length()) throw new ParseException("unexpected end in array");
                char c = s.charAt(i++);
                if (c == ']') return a;
                if (c != ',') throw new ParseException("expected ',' or ']' at " + (i - 1));
            }
        }
        String str() {
            i++;
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw new ParseException("unterminated string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c == '\\') {
                    if (i >= s.length()) throw new ParseException("bad escape");
                    char e = s.charAt(i++);
                    switch (e) {
                        case '"': b.append('"'); break;
                        case '\\': b.append('\\'); break;
                        case '/': b.append('/'); break;
                        case 'b': b.append('\b'); break;
                        case 'f': b.append('\f'); break;
                        case 'n': b.append('\n'); break;
                        case 'r': b.append('\r'); break;
                        case 't': b.append('\t'); break;
                        case 'u':
                            if (i + 4 > s.length()) throw new ParseException("bad unicode escape");
                            try { b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); }
                            catch (NumberFormatException ex) { throw new ParseException("bad unicode escape"); }
                            i += 4; break;
                        default: throw new ParseException("bad escape \\" + e);
                    }
                } else if (c < 0x20) {
                    throw new ParseException("control character in string");
                } else b.append(c);
            }
        }
        Object num() {
            int st = i;
            if (s.charAt(i) == '-') i++;
            boolean isInt = true;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c >= '0' && c <= '9') i++;
                else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') { isInt = false; i++; }
                else break;
            }
            String t = s.substring(st, i);
            try {
                if (isInt) { try { return Long.parseLong(t); } catch (NumberFormatException e) { return Double.parseDouble(t); } }
                return Double.parseDouble(t);
            } catch (NumberFormatException e) { throw new ParseException("bad number " + t); }
        }
    }

    public static String write(Object v) { StringBuilder b = new StringBuilder(); write(b, v); return b.toString(); }

    @SuppressWarnings("unchecked")
    public static void write(StringBuilder b, Object v) {
        if (v == null) b.append("null");
        else if (v instanceof String) quote(b, (String) v);
        else if (v instanceof Boolean) b.append(v.toString());
        else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) b.append("null");
            else if (d == Math.rint(d) && Math.abs(d) < 1e15) b.append((long) d);
            else b.append(d);
        } else if (v instanceof Number) b.append(v.toString());
        else if (v instanceof Map) {
            b.append('{'); boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) b.append(','); first = false;
                quote(b, e.getKey()); b.append(':'); write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof List) {
            b.append('['); boolean first = true;
            for (Object o : (List<Object>) v) { if (!first) b.append(','); first = false; write(b, o); }
            b.append(']');
        } else quote(b, v.toString());
    }

    public static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        b.append('"');
    }

    // ---- small helpers for working with parsed trees ----
    public static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int k = 0; k + 1 < kv.length; k += 2) m.put((String) kv[k], kv[k + 1]);
        return m;
    }

    /** Put only when value is non-null. */
    public static void putIf(Map<String, Object> m, String k, Object v) { if (v != null) m.put(k, v); }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> asObj(Object o) { return o instanceof Map ? (Map<String, Object>) o : null; }

    @SuppressWarnings("unchecked")
    public static List<Object> asList(Object o) { return o instanceof List ? (List<Object>) o : null; }

    public static String str(Object o) { return o instanceof String ? (String) o : null; }

    public static String str(Map<String, Object> m, String k) { return m == null ? null : str(m.get(k)); }

    public static Map<String, Object> obj(Map<String, Object> m, String k) { return m == null ? null : asObj(m.get(k)); }

    public static List<Object> list(Map<String, Object> m, String k) { return m == null ? null : asList(m.get(k)); }

    public static String scalarText(Object o) {
        if (o == null) return "null";
        if (o instanceof String) return (String) o;
        return write(o);
    }
}
