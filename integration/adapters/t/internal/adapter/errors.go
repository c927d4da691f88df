package adapter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

// toolError is the adapter's typed error. It is returned to the model as a
// tool result with isError=true, a readable text block and
// structuredContent {"error": {...}}.
type toolError struct {
	Code      string // e.g. invalid_argument, ambiguous_connection, invalid_expand
	Type      string // error family, e.g. invalid_request_error
	Message   string
	Status    int    // RS HTTP status when the error came from the RS
	Param     string // offending argument
	RetryWith string // argument to add on retry (e.g. connection_id)
	Hint      string // model-facing next step
	Source    string // "adapter" or "resource_server"
	RequestID string
	// Extra members (available_connections, totals, example retry, ...).
	Extra *ojson.Object
}

func (e *toolError) Error() string { return e.Code + ": " + e.Message }

func newErr(code, typ, msg string) *toolError {
	return &toolError{Code: code, Type: typ, Message: msg, Source: "adapter"}
}

func argErr(param, msg string) *toolError {
	e := newErr("invalid_argument", "invalid_request_error", msg)
	e.Param = param
	return e
}

func (e *toolError) with(k string, v any) *toolError {
	if e.Extra == nil {
		e.Extra = ojson.NewObject()
	}
	e.Extra.Set(k, v)
	return e
}

func (e *toolError) object() *ojson.Object {
	o := ojson.NewObject()
	o.Set("code", e.Code)
	if e.Type != "" {
		o.Set("type", e.Type)
	}
	o.Set("message", e.Message)
	if e.Status != 0 {
		o.Set("status", e.Status)
	}
	if e.Param != "" {
		o.Set("param", e.Param)
	}
	if e.RetryWith != "" {
		o.Set("retry_with", e.RetryWith)
	}
	if e.Hint != "" {
		o.Set("hint", e.Hint)
	}
	if e.Source != "" {
		o.Set("source", e.Source)
	}
	if e.RequestID != "" {
		o.Set("request_id", e.RequestID)
	}
	if e.Extra != nil {
		for _, k := range e.Extra.Keys {
			o.Set(k, e.Extra.M[k])
		}
	}
	return o
}

// result renders the error as an MCP tool result.
func (e *toolError) result() *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Error %s: %s\n", e.Code, e.Message)
	var meta []string
	if e.Status != 0 {
		meta = append(meta, fmt.Sprintf("status %d", e.Status))
	}
	if e.Type != "" {
		meta = append(meta, "type "+e.Type)
	}
	if e.Param != "" {
		meta = append(meta, "param "+e.Param)
	}
	if e.RetryWith != "" {
		meta = append(meta, "retry_with "+e.RetryWith)
	}
	if e.RequestID != "" {
		meta = append(meta, "request_id "+e.RequestID)
	}
	if len(meta) > 0 {
		b.WriteString(strings.Join(meta, " · ") + "\n")
	}
	if e.Extra != nil {
		if v, ok := e.Extra.Get("available_connections"); ok {
			conns, _ := v.([]any)
			total, _ := e.Extra.Int("available_connection_count")
			if total == 0 {
				total = int64(len(conns))
			}
			// Fields shared by every entry are printed once in the header.
			common := map[string]string{"stream": "", "grant_id": ""}
			for k := range common {
				v, same := "", true
				for i, c := range conns {
					co, _ := c.(*ojson.Object)
					s := co.Str(k)
					if i == 0 {
						v = s
					} else if s != v {
						same = false
					}
				}
				if same && v != "" {
					common[k] = v
				}
			}
			fmt.Fprintf(&b, "available_connections (%d of %d)", len(conns), total)
			if s := common["stream"]; s != "" {
				fmt.Fprintf(&b, " · stream %s", s)
			}
			if g := common["grant_id"]; g != "" {
				fmt.Fprintf(&b, " · grant %s", g)
			}
			b.WriteString(":\n")
			for _, c := range conns {
				if co, ok := c.(*ojson.Object); ok {
					b.WriteString("- " + connLine(co, common) + "\n")
				}
			}
			if tr, _ := e.Extra.Bool("available_connections_truncated"); tr {
				om, _ := e.Extra.Int("available_connections_omitted")
				fmt.Fprintf(&b, "… %d more not listed. %s\n", om, e.Extra.Str("discovery_hint"))
			}
		}
		if ex := e.Extra.Str("retry_example"); ex != "" {
			b.WriteString("retry: " + ex + "\n")
		}
		if v, ok := e.Extra.Get("allowed_arguments"); ok {
			names, _ := v.([]string)
			if names == nil {
				names = ojson.Strings(v)
			}
			b.WriteString("allowed arguments: " + strings.Join(names, ", ") + "\n")
		}
	}
	if e.Hint != "" {
		b.WriteString("next: " + e.Hint + "\n")
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}},
		StructuredContent: map[string]any{"error": e.object()},
	}
}

func connLine(co *ojson.Object, skip map[string]string) string {
	parts := []string{"connection_id " + co.Str("connection_id")}
	if k := co.Str("connector_key"); k != "" {
		parts = append(parts, "connector_key "+k)
	}
	if d := co.Str("display_name"); d != "" {
		parts = append(parts, jsonStr(d))
	}
	if s := co.Str("stream"); s != "" && skip["stream"] == "" {
		parts = append(parts, "stream "+s)
	}
	if g := co.Str("grant_id"); g != "" && skip["grant_id"] == "" {
		parts = append(parts, "grant "+g)
	}
	return strings.Join(parts, " · ")
}

// fromRS converts an RS error into a typed tool error with a model hint.
func fromRS(err error) *toolError {
	if te, ok := err.(*toolError); ok {
		return te
	}
	re, ok := rs.AsError(err)
	if !ok {
		return newErr("internal_error", "api_error", err.Error())
	}
	e := &toolError{Code: re.Code, Type: re.Type, Message: re.Message, Status: re.Status, Param: re.Param,
		RetryWith: re.RetryWith, RequestID: re.RequestID, Source: "resource_server"}
	if re.Status == 0 {
		e.Source = "adapter"
	}
	if len(re.Extra) > 0 {
		e.Extra = ojson.NewObject()
		keys := make([]string, 0, len(re.Extra))
		for k := range re.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "resource_metadata", "framework_error":
				continue // not useful to the model; token recovery is out of band
			case "next_step":
				continue // RS auth guidance; replaced by the hint below
			}
			e.Extra.Set(k, toOrdered(re.Extra[k]))
		}
	}
	code := re.Code
	switch {
	case code == "context.stream_not_allowed" || code == "grant_stream_not_allowed":
		e.Hint = "That stream is not in this grant. Call schema() to list the granted streams."
	case code == "context.instance_mismatch" || code == "connection_not_found":
		e.Hint = "That connection_id is not granted for this stream. Call schema(stream) to see its connections."
	case strings.HasPrefix(code, "context.") || code == "authentication_error" || re.Status == 401:
		e.Hint = "The grant-scoped token was not accepted. The user must reconnect or re-authorize this app; do not ask for owner or admin credentials."
	case code == "grant_revoked" || code == "grant_expired" || code == "grant_invalid":
		e.Hint = "The grant is no longer valid. The user must grant access again; retrying will not help."
	case code == "field_not_granted":
		e.Hint = "Request only granted fields; schema(stream) lists them."
	case code == "unknown_field":
		e.Hint = "Use field names from schema(stream)."
	case code == "invalid_cursor":
		e.Hint = "The cursor does not belong to this query (or is malformed/expired). Repeat the query without cursor, keeping the other arguments identical when paging."
	case code == "cursor_expired":
		e.Hint = "The changes_since token is too old. Restart with changes_since:\"beginning\"."
	case code == "invalid_sort":
		e.Hint = "Only the stream's cursor field is sortable (see 'sort' in schema(stream)); use \"field\" or \"-field\"."
	case code == "invalid_expand":
		e.Hint = "Use only relations listed under expand in schema(stream), within their max limit."
	case code == "not_found" || code == "blob_not_found":
		e.Hint = "Nothing with that id is visible under this grant. Re-check the id (use handles from search/query_records) and connection_id."
	case code == "query_not_found":
		e.Hint = "The q text does not occur in that field. Read by offset_chars instead, or fetch the record."
	case code == "stream_not_declared":
		e.Hint = "Call schema() to list streams."
	case code == "rs_unreachable" || code == "request_cancelled":
		e.Hint = "The resource server did not answer; try again shortly."
	case re.Status == 404 && e.Extra != nil && e.Extra.Has("framework_error"):
		e.Hint = "This resource server does not offer that endpoint."
	case code == "invalid_request" && re.Param == "filter":
		e.Hint = "This resource server does not accept filters for this token; narrow with fields, limit, search or aggregate instead."
	case code == "invalid_request" && (re.Param == "expand" || re.Param == "expand_limit"):
		e.Hint = "This resource server does not accept expand for this token; read the related stream with query_records instead."
	case strings.Contains(re.Message, "connection_id") && (code == "invalid_request" || code == "invalid_argument"):
		e.Hint = "This needs a single connection: retry with connection_id (schema(stream) lists the stream's connections)."
		if e.RetryWith == "" {
			e.RetryWith = "connection_id"
		}
	case code == "invalid_request" && strings.Contains(re.Message, "not declared"):
		e.Hint = `This stream declares no aggregations; for a total use query_records with count:"exact" and limit:1.`
	case code == "ambiguous_connection" || code == "ambiguous_schema_detail":
		e.Hint = "Retry the same call with connection_id set to one of the listed connections."
		if e.RetryWith == "" {
			e.RetryWith = "connection_id"
		}
	}
	return e
}

// toOrdered converts plain decoded JSON (map[string]any) to *ojson.Object
// with sorted keys, recursively.
func toOrdered(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := ojson.FromPlain(x)
		for _, k := range o.Keys {
			o.M[k] = toOrdered(o.M[k])
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = toOrdered(x[i])
		}
		return out
	}
	return v
}
