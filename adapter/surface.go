package adapter

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// Instructions are the server instructions sent in initialize. The first 512
// characters carry the whole usage pattern (seed 000): schema-first discovery,
// connection_id, typed filters, and bounded paging/narrowing.
const Instructions = "PDPP read-only access to personal data, limited to this connection's grant. " +
	"Start with `schema` (compact index of granted streams), then `schema(stream, connection_id?)` for fields, filters, sort, expand and aggregations. " +
	"When a stream exists under several sources, pass `connection_id` (listed by schema and by errors). " +
	"Filters are typed objects: {field: value} or {field: {gte|gt|lte|lt: value}}. " +
	"Results are bounded pages: narrow with `fields`, page with `next_cursor`, or answer with `aggregate`/`search` instead of wide reads. " +
	"Search ids are self-contained: pass them to `fetch` as-is. " +
	"Read long text with `read_record_field` windows (offset, cursor or q). " +
	"content[] text carries every handle needed to continue; structuredContent is the same result as structured output."

var (
	closedWorld = false
	notDestruct = false
	readOnly    = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &notDestruct, OpenWorldHint: &closedWorld}
)

// connectionIDProp is deliberately short: the recovery guidance lives in the
// instructions and in ambiguity errors, not on every tool (seed 000).
const connectionIDProp = `"connection_id":{"type":"string","description":"Source connection; see schema."}`

// bareConnectionIDProp is for the schema tool itself (the pointer would be
// circular) and for tools whose ids already carry the connection.
const bareConnectionIDProp = `"connection_id":{"type":"string"}`

const filterProp = `"filter":{"type":"object","description":"Typed object, not a query string: {field: value} or {field: {gte|gt|lte|lt: value}}; sent as filter[field][op]. Capabilities: schema(stream).",` +
	`"additionalProperties":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"object","properties":{"gte":` + bound + `,"gt":` + bound + `,"lte":` + bound + `,"lt":` + bound + `},"additionalProperties":false,"minProperties":1}]}}`

// bound is a range operand: a number or a string (a timestamp). One type
// per branch, and no empty schema: clients that map tool schemas onto a
// single-type dialect reject type arrays and unconstrained values.
const bound = `{"anyOf":[{"type":"string"},{"type":"number"}]}`

// Output schemas say what structuredContent holds on success, and admit
// the {error} object every error result carries: clients that validate
// structured output (the TypeScript SDK) check error results too.
const (
	dataOrError     = `{"type":"object","anyOf":[{"required":["data"]},{"required":["error"]}]}`
	documentOrError = `{"type":"object","anyOf":[{"required":["id","title","text","url","metadata"]},{"required":["error"]}]}`
	windowOrError   = `{"type":"object","anyOf":[{"required":["record","field","window"]},{"required":["error"]}]}`
)

// A toolSpec is one tool's advertised definition.
type toolSpec struct {
	name, description, schema, output string
}

func (t toolSpec) tool() *mcp.Tool {
	ann := *readOnly
	return &mcp.Tool{Name: t.name, Description: t.description, InputSchema: rawSchema(t.schema), OutputSchema: rawSchema(t.output), Annotations: &ann}
}

// Tools is the tool surface as tools/list advertises it: a fresh copy, so
// callers may change it.
func Tools() []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range surface() {
		out = append(out, t.tool())
	}
	return out
}

// surface is the normal six-tool read surface.
func surface() []toolSpec {
	return []toolSpec{
		{
			name: "schema",
			description: "Discover granted streams. No arguments: compact index of every stream by connector. With stream (and connection_id): fields, filter, sort, projection, count, expand, search and aggregation support. " +
				`detail="full" (raw JSON Schema) needs stream. Read-only; GET /v1/schema.`,
			schema: `{"type":"object","properties":{"stream":{"type":"string"},` + bareConnectionIDProp + `,"detail":{"enum":["compact","full"]}},"additionalProperties":false}`,
			output: dataOrError,
		},
		{
			name: "query_records",
			description: "List records of one stream in bounded pages (default 25, max 100). Narrow with fields, filter with typed objects, page with cursor, resume with changes_since. " +
				"Text previews records and every paging handle; the full page is structured output in structuredContent.data. Prefer aggregate or search when full records are not needed; fields and filters: schema(stream). Read-only; GET /v1/streams/{stream}/records.",
			schema: `{"type":"object","properties":{"stream":{"type":"string"},` + connectionIDProp +
				`,"fields":{"type":"array","items":{"type":"string"},"description":"Projection: each record keeps only these fields under data, plus id, stream and connection_id."},` + filterProp +
				`,"limit":{"type":"integer","minimum":1,"maximum":100},"cursor":{"type":"string","description":"next_cursor of the previous page."},"order":{"enum":["asc","desc"]},"sort":{"type":"string","description":"field, or -field for descending."},"count":{"enum":["none","estimated","exact"]},` +
				`"changes_since":{"type":"string","description":"\"beginning\" or next_changes_since."},"expand":{"type":"array","items":{"type":"string"}},"expand_limit":{"type":"object","additionalProperties":{"type":"integer","minimum":1}}},"required":["stream"],"additionalProperties":false}`,
			output: dataOrError,
		},
		{
			name: "aggregate",
			description: "Count, sum, min, max or count_distinct over one stream, grouped by a field (group_by) or a time bucket (group_by_time, granularity). " +
				"Returns numbers, never record bodies; other_count counts records in groups past limit. Fields: schema(stream). Read-only; GET /v1/streams/{stream}/aggregate.",
			schema: `{"type":"object","properties":{"stream":{"type":"string"},` + connectionIDProp +
				`,"metric":{"enum":["count","sum","min","max","count_distinct"]},"field":{"type":"string"},"group_by":{"type":"string"},"group_by_time":{"type":"string"},` +
				`"granularity":{"enum":["minute","hour","day","week","month","quarter","year"]},"time_zone":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},` + filterProp +
				`},"required":["stream","metric"],"additionalProperties":false}`,
			output: dataOrError,
		},
		{
			name: "search",
			description: "Search granted text. Returns ranked hits with self-contained ids for fetch, balanced <mark> snippets and bounded evidence; limit caps merged hits across all connections. Searchable fields: schema(stream). " +
				"Read-only; GET /v1/search.",
			schema: `{"type":"object","properties":{"q":{"type":"string","minLength":1},"streams":{"type":"array","items":{"type":"string"}},` + connectionIDProp +
				`,"limit":{"type":"integer","minimum":1,"maximum":100},"cursor":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
			output: dataOrError,
		},
		{
			name: "fetch",
			description: "Fetch one record as a document {id,title,text,url,metadata}. id is a search id (connection_id/stream:record_id), stream:record_id or a pdpp://record/ URI; fields projects the record first; see the server instructions. " +
				"Read-only; GET /v1/streams/{stream}/records/{id}.",
			schema: `{"type":"object","properties":{"id":{"type":"string","minLength":1},` + bareConnectionIDProp +
				`,"fields":{"type":"array","items":{"type":"string"}},"expand":{"type":"array","items":{"type":"string"}}},"required":["id"],"additionalProperties":false}`,
			output: documentOrError,
		},
		{
			name: "read_record_field",
			description: "Read a bounded window of one text field of a record: from offset_chars, from a cursor, or around q with context. " +
				"Returns inline text, offsets, total size, completeness and next/previous arguments. Text fields: schema(stream). Read-only; GET /v1/streams/{stream}/records/{id}/field-window.",
			schema: `{"type":"object","properties":{"id":{"type":"string","minLength":1,"description":"Record id as shown by search or fetch, a pdpp://record/ URI, or a pdpp://field-window/ URI (with its field_path)."},"field_path":{"type":"string","minLength":1},` + bareConnectionIDProp +
				`,"offset_chars":{"type":"integer","minimum":0},"limit_chars":{"type":"integer","minimum":1,"maximum":16384},"cursor":{"type":"string","pattern":"^[0-9]+$"},"q":{"type":"string","minLength":1},` +
				`"before_chars":{"type":"integer","minimum":0,"maximum":8192},"after_chars":{"type":"integer","minimum":0,"maximum":8192}},"required":["id","field_path"],"additionalProperties":false}`,
			output: windowOrError,
		},
	}
}

func rawSchema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("adapter: invalid tool schema: " + s)
	}
	return json.RawMessage(s)
}
