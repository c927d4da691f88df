package main

// serverInstructions: the first 512 characters are self-contained (schema-first,
// connection_id, typed filters, bounded paging/narrowing). Cross-tool guidance lives
// here, not in every tool description.
const serverInstructions = `Read-only, grant-scoped access to one person's PDPP data.
1. Discover first: schema() lists all streams; schema(stream) shows fields, filters, sort, aggregations.
2. A stream under several connections needs connection_id (listed by schema).
3. Filters are typed objects: {"f": value} or {"f": {"gte": x, "lt": y}} on fields schema marks filterable.
4. Keep results small: set limit, narrow with fields, page with next_cursor; prefer aggregate/search to wide reads.

More guidance:
- Evidence ladder: search (ranked hits with bounded previews) -> read_record_field (bounded character window of one text field) -> fetch (one record as a document) -> query_records (canonical structured records, paged).
- Handles shown in text are callable: a search/fetch id "connection_id/stream/record_id" goes to fetch or read_record_field (as id); next_cursor goes back to the same tool as cursor; next_changes_since goes to query_records as changes_since (page a changes feed with cursor alone).
- Error ambiguous_connection or ambiguous_schema_detail: retry the same call with one connection_id from available_connections (schema() has the full index).
- Long text is cut in visible output with an explicit marker and a read_record_field continuation; binary/blob fields are shown as metadata only (size, media type, pdpp://blob resource URI and REST route).
- Results carry text content plus structuredContent with the same data in structured form; both may be visible to you, neither is hidden. Only grant-scoped client tokens are accepted by this server.`

func strProp(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}
func intProp(desc string, min, max int) map[string]any {
	return map[string]any{"type": "integer", "description": desc, "minimum": min, "maximum": max}
}
func strArr(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

var connProp = strProp("Optional source connection (from schema) when a stream has several connections.")

func readOnly(title string) map[string]any {
	return map[string]any{"title": title, "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
}

func tool(name, title, desc string, props map[string]any, required ...string) map[string]any {
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	return map[string]any{"name": name, "title": title, "description": desc, "inputSchema": schema, "annotations": readOnly(title)}
}

func toolNames() []string {
	return []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}
}

func isTool(n string) bool {
	for _, t := range toolNames() {
		if t == n {
			return true
		}
	}
	return false
}

func filterProp() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": true,
		"description": `Typed filter: {"field": value} for equality, {"field": {"gte"|"gt"|"lte"|"lt": value}} for ranges. Use fields schema(stream) marks filterable.`}
}

func toolDefinitions() []any {
	return []any{
		tool("schema", "Discover streams and fields",
			"Read-only. Maps to GET /v1/schema. Without stream: compact index of every granted stream grouped by connector and connection. With stream (and optional connection_id): fields, filter/sort/projection/aggregate/search/expand capabilities with a legend. detail \"full\" (requires stream) returns the raw JSON Schema for that one stream. Cross-tool rules: server instructions.",
			map[string]any{
				"stream":        strProp("Stream name to inspect in detail."),
				"connection_id": connProp,
				"detail":        map[string]any{"type": "string", "enum": []string{"compact", "full"}, "description": "compact (default) or full (raw JSON Schema; stream required)."},
			}),
		tool("query_records", "Query records of a stream",
			"Read-only. Maps to GET /v1/streams/{stream}/records. Returns one page of canonical records (visible summary plus structuredContent records). Narrow with fields, filter and limit; page with cursor; resume a changes feed with changes_since. structuredContent holds the same page as structured output. If you only need counts or matches, use aggregate or search instead.",
			map[string]any{
				"stream":        strProp("Stream name (see schema)."),
				"connection_id": connProp,
				"fields":        strArr("Project record data to these fields (id/connection identity is always kept)."),
				"filter":        filterProp(),
				"sort":          strProp("Sort field, '-' prefix for descending (only fields schema marks sortable)."),
				"order":         map[string]any{"type": "string", "enum": []string{"asc", "desc"}, "description": "Order on the stream's default sort key."},
				"limit":         intProp("Page size (default 25).", 1, 100),
				"cursor":        strProp("next_cursor from a previous page."),
				"changes_since": strProp("'beginning' or a next_changes_since value: return only records changed since then."),
				"count":         map[string]any{"type": "boolean", "description": "Also return the exact total matching count."},
				"expand":        strArr("Related records to embed; only relations schema lists under expand."),
				"expand_limit":  map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}, "description": "Per-relation cap, e.g. {\"attachments\": 5}."},
			}, "stream"),
		tool("aggregate", "Aggregate a stream",
			"Read-only. Maps to GET /v1/streams/{stream}/aggregate. Computes count, sum, min, max or count_distinct, optionally grouped by a field or a time bucket. Cheaper than reading records when you need totals or distributions. Cross-tool rules: server instructions.",
			map[string]any{
				"stream":        strProp("Stream name."),
				"connection_id": connProp,
				"metric":        map[string]any{"type": "string", "enum": []string{"count", "sum", "min", "max", "count_distinct"}, "description": "Aggregate to compute."},
				"field":         strProp("Field for sum/min/max/count_distinct (omit for count)."),
				"group_by":      strProp("Group count by this field."),
				"group_by_time": strProp("Group count by this date-time field (needs granularity)."),
				"granularity":   map[string]any{"type": "string", "enum": []string{"minute", "hour", "day", "week", "month", "quarter", "year"}, "description": "Time bucket size for group_by_time."},
				"time_zone":     strProp("IANA zone for time buckets (default UTC)."),
				"limit":         intProp("Max groups (default 10).", 1, 100),
				"filter":        filterProp(),
			}, "stream", "metric"),
		tool("search", "Search records",
			"Read-only. Maps to GET /v1/search (lexical; semantic/hybrid when the RS offers them). Returns ranked hits across granted streams and connections with source identity, a bounded evidence preview and an id for fetch/read_record_field. limit caps the merged hits; page with cursor. structuredContent holds the same hits as structured output.",
			map[string]any{
				"query":         strProp("Search text."),
				"streams":       strArr("Restrict to these streams."),
				"connection_id": connProp,
				"limit":         intProp("Max merged hits (default 10).", 1, 100),
				"cursor":        strProp("next_cursor from a previous search page."),
				"mode":          map[string]any{"type": "string", "enum": []string{"lexical", "semantic", "hybrid"}, "description": "Retrieval mode (default lexical)."},
			}, "query"),
		tool("fetch", "Fetch one record as a document",
			"Read-only. Maps to GET /v1/streams/{stream}/records/{id}. Returns one document {id, title, text, url, metadata} for an id from search (or stream + record_id). The document is both structuredContent and its JSON text mirror. Use fields to keep it small; query_records gives canonical structured records.",
			map[string]any{
				"id":            strProp("Document id from search: connection_id/stream/record_id."),
				"stream":        strProp("Stream name (instead of id)."),
				"record_id":     strProp("Record id (instead of id)."),
				"connection_id": connProp,
				"fields":        strArr("Only include these record fields."),
				"expand":        strArr("Related records to embed (only relations schema lists)."),
				"expand_limit":  map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}, "description": "Per-relation cap."},
			}),
		tool("read_record_field", "Read a window of a text field",
			"Read-only. Maps to GET /v1/streams/{stream}/records/{id}/field-window. Returns a bounded character window of one top-level text field, with offsets, completion state and next/previous arguments; or the window around the first match of query. Use it to continue any cut text.",
			map[string]any{
				"id":            strProp("Record id handle from search/fetch (connection_id/stream/record_id)."),
				"stream":        strProp("Stream name (instead of id)."),
				"record_id":     strProp("Record id (instead of id)."),
				"connection_id": connProp,
				"field":         strProp("Top-level text field name."),
				"offset":        intProp("Start character offset (default 0).", 0, 1<<31-1),
				"max_chars":     intProp("Window size in characters (default 4000).", 1, 16384),
				"query":         strProp("Center the window on the first case-insensitive match of this text."),
				"context_chars": intProp("With query: characters of context before and after the match.", 0, 8192),
			}, "field"),
	}
}
