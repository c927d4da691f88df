package adapter

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func boolp(b bool) *bool { return &b }

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: boolp(false), OpenWorldHint: boolp(false)}
}

// Tool descriptions are short and action-specific: what the tool does,
// that it is read-only, and the RS endpoint it maps to. Cross-tool guidance
// lives in the server instructions.
func toolDefs() []*mcp.Tool {
	return []*mcp.Tool{
		{
			Name:        "schema",
			Description: `Read-only. Discover what the grant can read (GET /v1/schema). No arguments: compact index of connectors, connections and every stream name. With stream (and optional connection_id): fields, filters, sort, projection, count, expand, search and aggregation support, with a legend and example arguments. detail:"full" (needs stream) adds the raw JSON Schema. Start here; see server instructions.`,
			Annotations: readOnly("Discover granted streams"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"stream":{"type":"string","description":"Stream name for capability detail; omit for the index."},` +
				`"connection_id":{"type":"string","description":"Scope to one connection."},` +
				`"detail":{"type":"string","enum":["compact","full"],"description":"full = raw JSON Schema; requires stream."}` +
				`},"additionalProperties":false}`),
		},
		{
			Name:        "query_records",
			Description: `Read-only. List records of one stream (GET /v1/streams/{stream}/records) with typed filter, sort, fields projection, count, cursor paging and changes_since. Text shows bounded record cards with id handles and next_cursor; structuredContent is the same page as structured output. If you don't need whole records, pass fields, page with limit, or use aggregate/search. Capabilities: schema(stream); conventions: server instructions.`,
			Annotations: readOnly("Query records"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"stream":{"type":"string","description":"Stream name from schema."},` +
				`"connection_id":{"type":"string","description":"Read one connection; needed to page a multi-connection stream."},` +
				`"fields":{"type":"array","items":{"type":"string"},"description":"Projection: return only these data fields."},` +
				`"filter":{"type":"object","description":"{\"field\": value} exact match; {\"field\": {\"gte\"|\"gt\"|\"lte\"|\"lt\": value}} range. Fields AND together."},` +
				`"sort":{"type":"string","description":"\"field\" ascending or \"-field\" descending; sortable field per schema."},` +
				`"order":{"type":"string","enum":["asc","desc"]},` +
				`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size (default 10)."},` +
				`"cursor":{"type":"string","description":"next_cursor of the previous page."},` +
				`"count":{"type":"string","enum":["none","exact"],"description":"exact adds the total match count."},` +
				`"changes_since":{"type":"string","description":"\"beginning\" or a next_changes_since value: changed records only."},` +
				`"expand":{"type":"array","items":{"type":"string"},"description":"Relations to embed (advertised by schema)."},` +
				`"expand_limit":{"type":"object","additionalProperties":{"type":"integer","minimum":1},"description":"Per-relation cap, e.g. {\"attachments\": 5}."}` +
				`},"required":["stream"],"additionalProperties":false}`),
		},
		{
			Name:        "aggregate",
			Description: `Read-only. Count, sum, min, max or count_distinct over one stream, optionally grouped by a field or a time bucket (GET /v1/streams/{stream}/aggregate). Use it instead of paging records to answer totals and distributions; schema(stream) lists the valid metric/field pairs. structuredContent holds the same aggregation as structured output.`,
			Annotations: readOnly("Aggregate a stream"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"stream":{"type":"string","description":"Stream name from schema."},` +
				`"connection_id":{"type":"string","description":"Aggregate one connection only."},` +
				`"metric":{"type":"string","enum":["count","sum","min","max","count_distinct"]},` +
				`"field":{"type":"string","description":"Field for sum/min/max/count_distinct."},` +
				`"group_by":{"type":"string","description":"Field to group counts by."},` +
				`"group_by_time":{"type":"string","description":"Time field to bucket counts by (needs granularity)."},` +
				`"granularity":{"type":"string","enum":["minute","hour","day","week","month","quarter","year"]},` +
				`"time_zone":{"type":"string","description":"IANA zone for time buckets (default UTC)."},` +
				`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Max groups (default 10)."},` +
				`"filter":{"type":"object","description":"Typed filter, same syntax as query_records."}` +
				`},"required":["stream","metric"],"additionalProperties":false}`),
		},
		{
			Name:        "search",
			Description: `Read-only. Ranked text search over granted streams (GET /v1/search; mode semantic or hybrid uses /v1/search/semantic or /v1/search/hybrid). Each hit has an id handle for fetch, its source connection, and highlighted evidence with read_record_field arguments; structuredContent lists the same hits as structured output. limit caps merged hits across all connections; page with cursor, narrow with streams or connection_id. See server instructions.`,
			Annotations: readOnly("Search records"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"q":{"type":"string","description":"Search text."},` +
				`"mode":{"type":"string","enum":["lexical","semantic","hybrid"],"description":"Default lexical."},` +
				`"streams":{"type":"array","items":{"type":"string"},"description":"Only these streams."},` +
				`"connection_id":{"type":"string","description":"Search only this connection."},` +
				`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Max merged hits (default 10)."},` +
				`"cursor":{"type":"string","description":"next_cursor of the previous page (same q and scope)."},` +
				`"filter":{"type":"object","description":"Typed filter; needs exactly one stream."}` +
				`},"required":["q"],"additionalProperties":false}`),
		},
		{
			Name:        "fetch",
			Description: `Read-only. Fetch one record as a document {id, title, text, url, metadata} (GET /v1/streams/{stream}/records/{id}); content[] mirrors the same JSON. id is a handle from search or query_records. Long or binary fields are bounded and point to read_record_field; pass fields to narrow. See server instructions.`,
			Annotations: readOnly("Fetch a record"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"id":{"type":"string","description":"Record handle pdpp://record/… (or a bare record id plus stream)."},` +
				`"stream":{"type":"string","description":"Stream, for a bare record id."},` +
				`"connection_id":{"type":"string","description":"Connection, for a bare record id."},` +
				`"fields":{"type":"array","items":{"type":"string"},"description":"Render only these fields."},` +
				`"expand":{"type":"array","items":{"type":"string"},"description":"Relations to include."},` +
				`"expand_limit":{"type":"object","additionalProperties":{"type":"integer","minimum":1}}` +
				`},"required":["id"],"additionalProperties":false}`),
		},
		{
			Name:        "read_record_field",
			Description: `Read-only. Read a bounded character window of one record field (GET /v1/streams/{stream}/records/{id}/field-window): inline text, offsets, total size, completion state and next/previous arguments. Page with offset_chars or jump to text with q. Binary-looking values return metadata unless raw:true; structuredContent carries the window as structured output.`,
			Annotations: readOnly("Read a record field"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"id":{"type":"string","description":"Record handle (or a bare record id plus stream)."},` +
				`"stream":{"type":"string","description":"Stream of a bare record id."},` +
				`"connection_id":{"type":"string","description":"Connection of a bare record id."},` +
				`"field":{"type":"string","description":"Top-level field name."},` +
				`"offset_chars":{"type":"integer","minimum":0,"description":"Start character (default 0)."},` +
				`"limit_chars":{"type":"integer","minimum":1,"maximum":16384,"description":"Window size (default 4000)."},` +
				`"q":{"type":"string","description":"Center the window on the first occurrence of this text (not with offset_chars)."},` +
				`"before_chars":{"type":"integer","minimum":0,"maximum":8192,"description":"Context before the q match."},` +
				`"after_chars":{"type":"integer","minimum":0,"maximum":8192,"description":"Context after the q match."},` +
				`"raw":{"type":"boolean","description":"Return encoded/binary content as raw chunks instead of metadata."}` +
				`},"required":["id","field"],"additionalProperties":false}`),
		},
	}
}
