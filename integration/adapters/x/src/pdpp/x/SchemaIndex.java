package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Flattened view of a /v1/schema document (compact or full): one row per (connector, stream). */
public final class SchemaIndex {
    public static final class Conn {
        public final String connectionId, displayName;
        Conn(String id, String dn) { connectionId = id; displayName = dn; }
    }

    public static final class Row {
        public String connectorKey, connectorDisplayName, stream, displayName, cursorField;
        public Object recordCount, primaryKey;
        public List<Conn> connections = new ArrayList<>();
        public Map<String, Object> fieldCaps = new LinkedHashMap<>();
        public List<Object> expandCaps = new ArrayList<>();
        public Map<String, Object> raw;
    }

    public final String grantId, tokenKind;
    public final List<Row> rows = new ArrayList<>();
    public final Map<String, Object> doc;

    public SchemaIndex(Map<String, Object> doc) {
        this.doc = doc;
        Map<String, Object> bearer = Json.obj(doc, "bearer");
        grantId = Json.str(bearer, "grant_id");
        tokenKind = Json.str(bearer, "token_kind");
        List<Object> connectors = Json.list(doc, "connectors");
        if (connectors != null) {
            for (Object co : connectors) {
                Map<String, Object> c = Json.asObj(co);
                if (c == null) continue;
                String key = firstStr(c, "connector_key", "connector_id");
                if (key == null) key = Json.str(Json.obj(c, "source"), "id");
                List<Conn> connConns = conns(Json.list(c, "granted_connections"));
                List<Object> streams = Json.list(c, "streams");
                if (streams == null) continue;
                for (Object so : streams) addRow(Json.asObj(so), key, Json.str(c, "display_name"), connConns);
            }
        }
        // Some deployments may return a flat top-level streams[] (e.g. package fan-out); accept it too.
        List<Object> flat = Json.list(doc, "streams");
        if (rows.isEmpty() && flat != null) {
            for (Object so : flat) {
                Map<String, Object> s = Json.asObj(so);
                if (s == null) continue;
                Map<String, Object> src = Json.obj(s, "source");
                String key = firstStr(s, "connector_key", "connector_id");
                if (key == null) key = firstStr(src, "connector_key", "connector_id");
                addRow(s, key, null, new ArrayList<>());
            }
        }
    }

    private void addRow(Map<String, Object> s, String key, String connectorDn, List<Conn> inherited) {
        if (s == null || Json.str(s, "name") == null) return;
        Row r = new Row();
        r.raw = s;
        r.connectorKey = key != null ? key : firstStr(s, "connector_key", "connector_id");
        r.connectorDisplayName = connectorDn != null ? connectorDn : Json.str(s, "connector_display_name");
        r.stream = Json.str(s, "name");
        r.displayName = firstStr(s, "display_name", "connection_display_name");
        r.cursorField = Json.str(s, "cursor_field");
        r.recordCount = s.get("record_count");
        r.primaryKey = s.get("primary_key");
        List<Conn> own = conns(Json.list(s, "granted_connections"));
        if (own.isEmpty()) {
            List<Object> ids = Json.list(s, "instance_ids");
            if (ids != null) for (Object o : ids) if (o instanceof String) own.add(new Conn((String) o, null));
        }
        if (own.isEmpty() && Json.str(s, "connection_id") != null) own.add(new Conn(Json.str(s, "connection_id"), r.displayName));
        if (own.isEmpty()) {
            Map<String, Object> src = Json.obj(s, "source");
            if (Json.str(src, "connection_id") != null) own.add(new Conn(Json.str(src, "connection_id"), Json.str(src, "display_name")));
        }
        r.connections = own.isEmpty() ? inherited : own;
        Map<String, Object> fc = Json.obj(s, "field_capabilities");
        if (fc != null) r.fieldCaps = fc;
        else {
            Map<String, Object> props = Json.obj(Json.obj(s, "schema"), "properties");
            if (props != null) for (String k : props.keySet()) r.fieldCaps.put(k, "declared");
        }
        List<Object> ec = Json.list(s, "expand_capabilities");
        if (ec != null) r.expandCaps = ec;
        rows.add(r);
    }

    private static List<Conn> conns(List<Object> l) {
        List<Conn> out = new ArrayList<>();
        if (l == null) return out;
        for (Object o : l) {
            if (o instanceof String) out.add(new Conn((String) o, null));
            Map<String, Object> m = Json.asObj(o);
            if (m != null && Json.str(m, "connection_id") != null) out.add(new Conn(Json.str(m, "connection_id"), Json.str(m, "display_name")));
        }
        return out;
    }

    static String firstStr(Map<String, Object> m, String... keys) {
        if (m == null) return null;
        for (String k : keys) { String v = Json.str(m, k); if (v != null && !v.isEmpty()) return v; }
        return null;
    }

    public List<Row> rowsFor(String stream) {
        List<Row> out = new ArrayList<>();
        for (Row r : rows) if (r.stream.equals(stream)) out.add(r);
        return out;
    }

    /** Distinct (connection, connector) pairs a stream is readable through. */
    public List<Map<String, Object>> connectionsFor(String stream) {
        List<Map<String, Object>> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Row r : rows) {
            if (stream != null && !r.stream.equals(stream)) continue;
            for (Conn c : r.connections) {
                if (!seen.add(c.connectionId)) continue;
                Map<String, Object> m = new LinkedHashMap<>();
                Json.putIf(m, "grant_id", grantId);
                Json.putIf(m, "connector_key", r.connectorKey);
                m.put("connection_id", c.connectionId);
                Json.putIf(m, "display_name", c.displayName);
                out.add(m);
            }
        }
        return out;
    }

    public String connectorKeyFor(String connectionId) {
        for (Row r : rows) for (Conn c : r.connections) if (c.connectionId.equals(connectionId)) return r.connectorKey;
        return null;
    }

    public String displayNameFor(String connectionId) {
        for (Row r : rows) for (Conn c : r.connections) if (c.connectionId.equals(connectionId) && c.displayName != null) return c.displayName;
        return null;
    }
}
