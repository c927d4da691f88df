package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Tool surface: names, descriptions, input schemas, annotations, and server instructions. */
public final class Tools {
    private Tools() {}

    public static final String INSTRUCTIONS =
        "PDPP personal-data reads, scoped to the grant behind this connection (read-only; never use owner tokens). "
        + "1) Call schema() first: it lists every granted stream by connector. Then schema(stream) for fields, filters, sort, aggregations. "
        + "2) If a stream exists under several connections, pass connection_id (from schema or a prior result). "
        + "3) filter is a typed object: {\"field\": value} or {\"field\": {\"gte\": x, \"lt\": y}}. "
        + "4) Keep results small: limit, fields projection, cursor paging; prefer aggregate/search over wide reads.\n"
        + "\n"
        + "Details:\n"
        + "- Record handles look like <connection_id>/<stream>/<record_id>; search results and query_records return them. "
        + "Pass a handle as `id` to fetch (document view) or read_record_field (bounded text window of one field).\n"
        + "- Every result shows its continuation handles in text: next_cursor (pass as cursor), next_changes_since (pass as changes_since), "
        + "count, and read_record_field arguments for truncated fields. Long text and binary fields are never inlined in full.\n"
        + "- structuredContent carries the same result as structured output; it is not hidden from you, so narrow with fields/limit first.\n"
        + "- ambiguous_connection errors list available_connections; retry with one connection_id. "
        + "schema(stream, connection_id, detail:\"full\") returns raw JSON Schema for one stream only.\n"
        + "- expand is available only on streams whose schema lists expand relations; otherwise the call fails with invalid_expand.\n"
        + "- Errors are typed (error.code, retry_with, param). Access is limited to the grant; the adapter never widens it.";

    private static Map<String, Object> prop(String type, String desc) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", type);
        if (desc != null) p.put("description", desc);
        return p;
    }

    private static Map<String, Object> strArray(String desc) {
        Map<String, Object> p = prop("array", desc);
        p.put("items", Json.obj("type", "string"));
        return p;
    }

    private static Map<String, Object> intRange(String desc, int min, int max) {
        Map<String, Object> p = prop("integer", desc);
        p.put("minimum", min); p.put("maximum", max);
        return p;
    }

    private static Map<String, Object> enumStr(String desc, String... vals) {
        Map<String, Object> p = prop("string", desc);
        p.put("enum", List.of((Object[]) vals));
        return p;
    }

    private static final String CONN = "Connection to read from (see schema). Needed when the stream has several connections.";

    private static Map<String, Object> filterProp() {
        Map<String, Object> p = prop("object", "Typed filter: {field: value} exact, or {field: {gte|gt|lte|lt: value}} range. Fields and operators per schema(stream).");
        p.put("additionalProperties", true);
        return p;
    }

    private static Map<String, Object> tool(String name, String title, String desc, Map<String, Object> props, List<String> required) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", name);
        t.put("title", title);
        t.put("description", desc);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", props);
        if (!required.isEmpty()) schema.put("required", required);
        schema.put("additionalProperties", false);
        t.put("inputSchema", schema);
        t.put("annotations", Json.obj("title", title, "readOnlyHint", true, "destructiveHint", false,
                "idempotentHint", true, "openWorldHint", false));
        return t;
    }

    public static List<Object> list() {
        List<Object> tools = new ArrayList<>();
        Map<String, Object> p;

        p = new LinkedHashMap<>();
        p.put("stream", prop("string", "Stream name for field/filter/sort/aggregate details. Omit for the compact index of all granted streams."));
        p.put("connection_id", prop("string", "Limit the stream details to one connection."));
        p.put("detail", enumStr("compact (default) or full (raw JSON Schema; requires stream).", "compact", "full"));
        tools.add(tool("schema", "Discover granted data",
            "Read-only. Maps to GET /v1/schema. Without stream: compact index of every granted stream grouped by connector. "
            + "With stream: fields, filter/sort/projection/aggregate support and connections for that stream. Start here.",
            p, List.of()));

        p = new LinkedHashMap<>();
        p.put("stream", prop("string", "Stream name (from schema)."));
        p.put("connection_id", prop("string", CONN));
        p.put("fields", strArray("Project records to these fields."));
        p.put("filter", filterProp());
        p.put("sort", prop("string", "Sort field, '-' prefix for descending, e.g. -received_at."));
        p.put("order", enumStr("Order along the stream cursor.", "asc", "desc"));
        p.put("limit", intRange("Page size (default 25).", 1, 100));
        p.put("cursor", prop("string", "next_cursor from a previous page."));
        p.put("changes_since", prop("string", "'beginning' or a next_changes_since value: returns only changed records."));
        p.put("count", enumStr("exact: include the total matching count.", "none", "exact"));
        p.put("expand", strArray("Related relations to embed (only if schema lists expand relations)."));
        Map<String, Object> el = prop("object", "Per-relation cap, e.g. {\"attachments\": 5}.");
        el.put("additionalProperties", Json.obj("type", "integer", "minimum", 1));
        p.put("expand_limit", el);
        tools.add(tool("query_records", "Query records",
            "Read-only. Maps to GET /v1/streams/{stream}/records. Returns canonical records (structured output) plus a bounded text summary "
            + "with handles and paging tokens. Use fields and a small limit; use aggregate or search when you do not need full records. "
            + "Filters/sort per schema(stream); cross-tool rules in server instructions.",
            p, List.of("stream")));

        p = new LinkedHashMap<>();
        p.put("stream", prop("string", "Stream name."));
        p.put("metric", enumStr("Aggregate function.", "count", "sum", "min", "max", "count_distinct"));
        p.put("field", prop("string", "Field for sum/min/max/count_distinct."));
        p.put("group_by", prop("string", "Group count by this field."));
        p.put("group_by_time", prop("string", "Group count by time buckets of this date field."));
        p.put("granularity", enumStr("Bucket size for group_by_time.", "minute", "hour", "day", "week", "month", "quarter", "year"));
        p.put("time_zone", prop("string", "IANA zone for time buckets (default UTC)."));
        p.put("limit", intRange("Max groups (default 10).", 1, 100));
        p.put("filter", filterProp());
        p.put("connection_id", prop("string", CONN));
        tools.add(tool("aggregate", "Aggregate records",
            "Read-only. Maps to GET /v1/streams/{stream}/aggregate. Counts, sums, min/max, distinct counts and grouped counts "
            + "without reading records. Supported fields per schema(stream).",
            p, List.of("stream", "metric")));

        p = new LinkedHashMap<>();
        p.put("query", prop("string", "Search text."));
        p.put("streams", strArray("Only search these streams."));
        p.put("connection_id", prop("string", "Only search this connection."));
        p.put("limit", intRange("Max hits in total across connections (default 10).", 1, 100));
        p.put("cursor", prop("string", "next_cursor from a previous search page."));
        p.put("mode", enumStr("Retrieval mode (default lexical).", "lexical", "semantic", "hybrid"));
        p.put("filter", filterProp());
        tools.add(tool("search", "Search records",
            "Read-only. Maps to GET /v1/search. Full-text search across granted streams; each hit has an id for fetch, source identity, "
            + "a highlighted evidence preview and read_record_field arguments for the matched field. Page with cursor; see server instructions.",
            p, List.of("query")));

        p = new LinkedHashMap<>();
        p.put("id", prop("string", "Record handle from search or query_records (<connection_id>/<stream>/<record_id>)."));
        p.put("fields", strArray("Project the record to these fields before rendering."));
        p.put("expand", strArray("Relations to embed (only if schema lists expand relations)."));
        Map<String, Object> el2 = prop("object", "Per-relation cap.");
        el2.put("additionalProperties", Json.obj("type", "integer", "minimum", 1));
        p.put("expand_limit", el2);
        p.put("connection_id", prop("string", "Overrides the connection in id."));
        tools.add(tool("fetch", "Fetch a record document",
            "Read-only. Maps to GET /v1/streams/{stream}/records/{id}. Returns one document {id, title, text, url, metadata}. "
            + "Long fields are cut with read_record_field continuations; for structured records use query_records. See server instructions.",
            p, List.of("id")));

        p = new LinkedHashMap<>();
        p.put("id", prop("string", "Record handle (<connection_id>/<stream>/<record_id>)."));
        p.put("stream", prop("string", "Stream, if not using id."));
        p.put("record_id", prop("string", "Record id, if not using id."));
        p.put("connection_id", prop("string", "Connection, if not using id or to override it."));
        p.put("field", prop("string", "Top-level text field to read."));
        p.put("offset_chars", intRange("Start offset in characters (default 0).", 0, Integer.MAX_VALUE));
        p.put("limit_chars", intRange("Window size (default 4096, max 16384).", 1, 16384));
        p.put("q", prop("string", "Center the window on the first case-insensitive match of this text (not with offset_chars)."));
        p.put("before_chars", intRange("Context before the match (with q).", 0, 8192));
        p.put("after_chars", intRange("Context after the match (with q).", 0, 8192));
        tools.add(tool("read_record_field", "Read a field window",
            "Read-only. Maps to GET /v1/streams/{stream}/records/{id}/field-window. Returns a bounded inline window of one text field "
            + "with total size, offsets, completion state and next/previous arguments. Use for text cut short elsewhere.",
            p, List.of("field")));
        return tools;
    }
}
