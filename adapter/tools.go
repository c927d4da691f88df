package adapter

import (
	"context"
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

func (c *call) ctx() context.Context { return c.context }

func (c *call) get(path string, q url.Values) (json.RawMessage, string, error) {
	resp, err := c.a.rs.Get(c.ctx(), c.token, path, q)
	if err != nil {
		return nil, "", err
	}
	return resp.Body, resp.RequestID, nil
}

func streamPath(stream string, rest ...string) (string, error) {
	if err := checkSegment(stream); err != "" || stream == "" {
		return "", &toolError{Code: "invalid_stream", Param: "stream", Message: "stream must be a plain stream name"}
	}
	p := "/v1/streams/" + url.PathEscape(stream)
	for _, r := range rest {
		p += "/" + r
	}
	return p, nil
}

// ---- schema ----

type schemaArgs struct {
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id"`
	Detail       string `json:"detail"`
}

func (c *call) schema(in schemaArgs) (*mcp.CallToolResult, error) {
	q := url.Values{}
	switch {
	case in.Detail == "full" && in.Stream == "":
		// Seed 001 is stricter than the anchor: reject locally, before any
		// grant-wide schema is fetched (catalog C5).
		return nil, &toolError{Code: "invalid_request", Param: "detail",
			Message: `detail "full" requires stream: call schema() for the compact index, then schema(stream, connection_id, detail: "full")`}
	case in.Detail == "full":
		q.Set("detail", "full")
	default:
		q.Set("view", "compact")
	}
	setIf(q, "stream", in.Stream)
	setIf(q, "connection_id", in.ConnectionID)
	body, _, err := c.get("/v1/schema", q)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil || doc == nil { // null decodes to a nil map
		return nil, &toolError{Code: "rs_malformed_body", Message: "schema body is not a JSON object"}
	}
	_, legend := c.t.Grammar.Legend()
	doc = shapeSchemaDoc(doc, in.Stream != "", legend)
	return textResult(renderSchema(doc, in.Stream, in.ConnectionID, c.t), map[string]any{"data": doc}), nil
}

// ---- query_records ----

type queryArgs struct {
	Stream       string          `json:"stream"`
	ConnectionID string          `json:"connection_id,omitempty"`
	Fields       []string        `json:"fields,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
	Limit        int             `json:"limit,omitempty"`
	Cursor       string          `json:"cursor,omitempty"`
	Order        string          `json:"order,omitempty"`
	Sort         string          `json:"sort,omitempty"`
	Count        string          `json:"count,omitempty"`
	ChangesSince string          `json:"changes_since,omitempty"`
	Expand       []string        `json:"expand,omitempty"`
	ExpandLimit  json.RawMessage `json:"expand_limit,omitempty"`
}

func (c *call) queryRecords(in queryArgs) (*mcp.CallToolResult, error) {
	path, err := streamPath(in.Stream, "records")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if err := encodeFilter(q, in.Filter); err != nil {
		return nil, err
	}
	if err := encodeExpand(q, in.Expand, in.ExpandLimit); err != nil {
		return nil, err
	}
	if len(in.Expand) > 0 {
		if err := c.expandGate(in.Stream, in.ConnectionID, in.Expand); err != nil {
			return nil, err
		}
	}
	if err := c.requireSource(in.Stream, in.ConnectionID); err != nil {
		return nil, err
	}
	for _, f := range in.Fields {
		q.Add("fields", f)
	}
	setIf(q, "connection_id", in.ConnectionID)
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	skip, rsCursor, err := parseSkipCursor(in.Cursor)
	if err != nil {
		return nil, err
	}
	setIf(q, "cursor", rsCursor)
	setIf(q, "order", in.Order)
	setIf(q, "sort", in.Sort)
	setIf(q, "count", in.Count)
	setIf(q, "changes_since", in.ChangesSince)
	body, reqID, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	if len(in.Fields) > 0 {
		body = projectEnvelope(body, in.Fields)
	}
	if skip > 0 {
		body = skipEnvelope(body, skip)
	}
	var env recordList
	_ = json.Unmarshal(body, &env)
	resume := func(shown int) string {
		next := in
		next.Cursor = skipCursor(skip+shown, rsCursor)
		return "query_records " + compactJSON(next)
	}
	text, ladder := renderRecords(in.Stream, &env, c.t, c.a.rs.BaseURL(), resume)
	structured := map[string]any{"data": body, "request_id": reqID}
	if len(ladder) > 0 {
		structured["content_ladder"] = map[string]any{"kind": "record_set", "records": ladder}
	}
	return textResult(text, structured), nil
}

// projectedKeys are the operational keys a projected record keeps beside its
// requested fields: identity for fetch, paging and retry (seed 001). The
// fields argument's description declares them.
var projectedKeys = []string{"id", "stream", "connection_id"}

// projectEnvelope narrows every record of a list envelope to its
// operational keys plus data holding only the requested fields, whatever
// else the RS sent along.
func projectEnvelope(body json.RawMessage, fields []string) json.RawMessage {
	var env map[string]json.RawMessage
	var recs []map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env["data"], &recs) != nil {
		return body
	}
	out := make([]map[string]json.RawMessage, len(recs))
	for i, r := range recs {
		p := map[string]json.RawMessage{}
		for _, k := range projectedKeys {
			if v, ok := r[k]; ok {
				p[k] = v
			}
		}
		var data map[string]json.RawMessage
		if json.Unmarshal(r["data"], &data) == nil && data != nil {
			kept := map[string]json.RawMessage{}
			for _, f := range fields {
				if v, ok := data[f]; ok {
					kept[f] = v
				}
			}
			p["data"], _ = json.Marshal(kept)
		}
		out[i] = p
	}
	env["data"], _ = json.Marshal(out)
	b, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return b
}

// skipEnvelope drops the first n records of a list envelope: the ones an
// earlier answer already showed from the same RS page.
func skipEnvelope(body json.RawMessage, n int) json.RawMessage {
	var env map[string]json.RawMessage
	var recs []json.RawMessage
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env["data"], &recs) != nil {
		return body
	}
	env["data"], _ = json.Marshal(recs[min(n, len(recs)):])
	b, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return b
}

// A skip cursor resumes inside an RS page whose visible text showed only
// its first items: the page's own RS cursor plus how many were shown, so
// content[] alone reaches every item of the page.
const skipCursorPrefix = "skip~"

func skipCursor(n int, rsCursor string) string {
	return skipCursorPrefix + strconv.Itoa(n) + "~" + rsCursor
}

func parseSkipCursor(c string) (int, string, error) {
	rest, ok := strings.CutPrefix(c, skipCursorPrefix)
	if !ok {
		return 0, c, nil
	}
	num, rs, ok := strings.Cut(rest, "~")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || n > 100 {
		return 0, "", &toolError{Code: "invalid_arguments", Param: "cursor", Message: "cursor is malformed; pass a cursor exactly as shown"}
	}
	return n, rs, nil
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// encodeFilter turns a typed object filter into filter[f]=v and
// filter[f][op]=v. It never forwards a bare filter=.
func encodeFilter(q url.Values, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	bad := func(msg string) error {
		return &toolError{Code: "invalid_filter", Param: "filter", Message: msg + "; " + argHints["filter"]}
	}
	var filter map[string]json.RawMessage
	if err := json.Unmarshal(raw, &filter); err != nil {
		return bad("filter must be an object")
	}
	if len(filter) == 0 {
		return bad("filter is an empty object")
	}
	for field, raw := range filter {
		if field == "" || strings.ContainsAny(field, "[]&=") {
			return bad("filter key " + strconv.Quote(field) + " must be a plain field name")
		}
		var ops map[string]json.RawMessage
		if json.Unmarshal(raw, &ops) == nil && ops != nil {
			if len(ops) == 0 {
				return bad("range for " + field + " is empty")
			}
			for op, v := range ops {
				switch op {
				case "gte", "gt", "lte", "lt":
				default:
					return bad("unknown range operator " + strconv.Quote(op))
				}
				s, err := scalarString(v)
				if err != nil {
					return bad(field + "." + op + ": " + err.Error())
				}
				q.Set("filter["+field+"]["+op+"]", s)
			}
			continue
		}
		s, err := scalarString(raw)
		if err != nil {
			return bad(field + ": " + err.Error())
		}
		q.Set("filter["+field+"]", s)
	}
	return nil
}

func scalarString(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strings.TrimSpace(string(raw)), nil
	}
	return "", &toolError{Code: "invalid_filter", Message: "value must be a string, number or boolean"}
}

func encodeExpand(q url.Values, expand []string, rawLimits json.RawMessage) error {
	for _, rel := range expand {
		if rel == "" || strings.ContainsAny(rel, "[]&=") {
			return &toolError{Code: "invalid_expand", Param: "expand", Message: "expand relation " + strconv.Quote(rel) + " must be a plain name"}
		}
		q.Add("expand", rel)
	}
	if len(rawLimits) == 0 || string(rawLimits) == "null" {
		return nil
	}
	var limits map[string]float64 // the schema's integers include 1.0
	if err := json.Unmarshal(rawLimits, &limits); err != nil {
		return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit must be an object; " + argHints["expand_limit"]}
	}
	if len(limits) == 0 {
		return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit is an empty object; " + argHints["expand_limit"]}
	}
	for rel, n := range limits {
		if rel == "" || strings.ContainsAny(rel, "[]&=") {
			return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit key " + strconv.Quote(rel) + " must be a plain relation name"}
		}
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt32 {
			return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit[" + rel + "] must be an integer; " + argHints["expand_limit"]}
		}
		q.Set("expand_limit["+rel+"]", strconv.Itoa(int(n)))
	}
	return nil
}

// expandGate rejects expand on a stream whose live compact schema advertises
// no expand_capabilities (seed 000). Unless Tuning.ExpandGate says
// otherwise, it leaves the decision to the RS when the schema is
// unavailable or the stream is not found.
func (c *call) expandGate(stream, connectionID string, rels []string) error {
	if c.t.ExpandGate == ExpandGateOff {
		return nil
	}
	sc := c.scope(stream, connectionID)
	switch {
	case sc.authErr != nil:
		return sc.authErr
	case !sc.ok && c.t.ExpandGate == ExpandGateFailClosed:
		return &toolError{Code: "invalid_expand", Param: "expand", Message: "expand_capabilities of stream '" + stream + "' are unknown (GET /v1/schema failed)"}
	case !sc.ok || !sc.found || sc.expand: // fail open: the RS decides
		return nil
	}
	msg := "Stream '" + stream + "' has no advertised expand_capabilities. Relations requested: " + strings.Join(rels, ",") +
		". Consult GET /v1/schema (expand_capabilities) before passing expand; unadvertised relations are rejected."
	return &toolError{Code: "invalid_expand", Param: "expand", Message: msg}
}

// ---- aggregate ----

type aggregateArgs struct {
	Stream       string          `json:"stream"`
	ConnectionID string          `json:"connection_id"`
	Metric       string          `json:"metric"`
	Field        string          `json:"field"`
	GroupBy      string          `json:"group_by"`
	GroupByTime  string          `json:"group_by_time"`
	Granularity  string          `json:"granularity"`
	TimeZone     string          `json:"time_zone"`
	Limit        int             `json:"limit"`
	Filter       json.RawMessage `json:"filter"`
}

func (c *call) aggregate(in aggregateArgs) (*mcp.CallToolResult, error) {
	path, err := streamPath(in.Stream, "aggregate")
	if err != nil {
		return nil, err
	}
	if in.GroupBy != "" && in.GroupByTime != "" {
		return nil, &toolError{Code: "invalid_request", Param: "group_by", Message: "pass group_by or group_by_time, not both"}
	}
	if (in.GroupByTime != "") != (in.Granularity != "") {
		return nil, &toolError{Code: "invalid_request", Param: "granularity", Message: "group_by_time and granularity go together"}
	}
	q := url.Values{"metric": {in.Metric}}
	if err := encodeFilter(q, in.Filter); err != nil {
		return nil, err
	}
	setIf(q, "connection_id", in.ConnectionID)
	setIf(q, "field", in.Field)
	setIf(q, "group_by", in.GroupBy)
	setIf(q, "group_by_time", in.GroupByTime)
	setIf(q, "granularity", in.Granularity)
	setIf(q, "time_zone", in.TimeZone)
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	body, reqID, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	var agg aggregation
	_ = json.Unmarshal(body, &agg)
	return textResult(renderAggregate(in.Stream, &agg, c.t), map[string]any{"data": body, "request_id": reqID}), nil
}

// ---- search ----

type searchArgs struct {
	Q            string   `json:"q"`
	Streams      []string `json:"streams,omitempty"`
	ConnectionID string   `json:"connection_id,omitempty"`
	Limit        int      `json:"limit,omitempty"`
	Cursor       string   `json:"cursor,omitempty"`
}

const defaultSearchLimit = 25

func (c *call) search(in searchArgs) (*mcp.CallToolResult, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	q := url.Values{"q": {in.Q}, "limit": {strconv.Itoa(limit)}}
	for _, s := range in.Streams {
		q.Add("streams", s)
	}
	setIf(q, "connection_id", in.ConnectionID)
	skip, rsCursor, err := parseSkipCursor(in.Cursor)
	if err != nil {
		return nil, err
	}
	setIf(q, "cursor", rsCursor)
	body, reqID, err := c.get("/v1/search", q)
	if err != nil {
		return nil, err
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil || env == nil { // null decodes to a nil map
		return nil, &toolError{Code: "rs_malformed_body", Message: "search body is not a JSON object"}
	}
	var hits []searchHit
	_ = json.Unmarshal(env["data"], &hits)
	truncated := false
	if len(hits) > limit { // a global limit over merged hits, not per connection
		hits, truncated = hits[:limit], true
	}
	hits = hits[min(skip, len(hits)):]
	results := make([]searchResult, len(hits))
	for i := range hits {
		results[i] = c.resultFor(&hits[i])
	}
	delete(env, "data")
	env["result_count"] = json.RawMessage(strconv.Itoa(len(results)))
	env["results_ref"] = json.RawMessage(`"structuredContent.results"`)
	if truncated {
		env["has_more"] = json.RawMessage("true")
	}
	if reqID != "" {
		env["request_id"], _ = json.Marshal(reqID)
	}
	var meta struct {
		HasMore    bool
		NextCursor string
	}
	_ = json.Unmarshal(env["has_more"], &meta.HasMore) // small members: no second pass over the body
	_ = json.Unmarshal(env["next_cursor"], &meta.NextCursor)
	resume := func(shown int) string {
		next := in
		next.Limit, next.Cursor = limit, skipCursor(skip+shown, rsCursor)
		return "search " + compactJSON(next)
	}
	text := renderSearch(results, meta.HasMore || truncated, meta.NextCursor, c.t, resume)
	return textResult(text, map[string]any{"results": results, "data": env}), nil
}

// ---- fetch ----

type fetchArgs struct {
	ID           string   `json:"id"`
	ConnectionID string   `json:"connection_id"`
	Fields       []string `json:"fields"`
	Expand       []string `json:"expand"`
}

func (c *call) fetch(in fetchArgs) (*mcp.CallToolResult, error) {
	ref, err := c.parseID(in.ID, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID))
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if err := encodeExpand(q, in.Expand, nil); err != nil {
		return nil, err
	}
	if len(in.Expand) > 0 {
		if err := c.expandGate(ref.Stream, ref.ConnectionID, in.Expand); err != nil {
			return nil, err
		}
	}
	if err := c.requireSource(ref.Stream, ref.ConnectionID); err != nil {
		return nil, err
	}
	// The stream's declared roles decide the document's title and text.
	sc := c.scope(ref.Stream, ref.ConnectionID)
	if sc.authErr != nil {
		return nil, sc.authErr
	}
	for _, f := range in.Fields {
		q.Add("fields", f)
	}
	setIf(q, "connection_id", ref.ConnectionID)
	body, _, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, &toolError{Code: "rs_malformed_body", Message: "record body is not a JSON object"}
	}
	if rec.ConnectionID == "" {
		rec.ConnectionID = ref.ConnectionID
	}
	doc := c.documentFor(in.ID, ref, &rec, sc, in.Fields)
	text := compactJSON(doc)
	return textResult(text, json.RawMessage(text)), nil
}

// ---- read_record_field ----

type fieldArgs struct {
	ID           string `json:"id"`
	FieldPath    string `json:"field_path"`
	ConnectionID string `json:"connection_id"`
	OffsetChars  *int   `json:"offset_chars"`
	LimitChars   int    `json:"limit_chars"`
	Cursor       string `json:"cursor"`
	Q            string `json:"q"`
	BeforeChars  *int   `json:"before_chars"`
	AfterChars   *int   `json:"after_chars"`
}

func (c *call) readRecordField(in fieldArgs) (*mcp.CallToolResult, error) {
	sel := func(msg string) error {
		return &toolError{Code: "invalid_field_window_selector", Message: msg}
	}
	switch {
	case in.Cursor != "" && in.OffsetChars != nil:
		return nil, sel("pass cursor or offset_chars, not both")
	case in.Q != "" && (in.Cursor != "" || in.OffsetChars != nil):
		return nil, sel("q places the window itself; do not combine it with cursor or offset_chars")
	case in.Q == "" && (in.BeforeChars != nil || in.AfterChars != nil):
		return nil, sel("before_chars and after_chars need q")
	}
	ref, err := c.parseID(in.ID, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID), "field-window")
	if err != nil {
		return nil, err
	}
	if err := c.requireSource(ref.Stream, ref.ConnectionID); err != nil {
		return nil, err
	}
	q := url.Values{"field": {in.FieldPath}}
	setIf(q, "connection_id", ref.ConnectionID)
	switch {
	case in.Cursor != "":
		q.Set("offset_chars", in.Cursor)
	case in.OffsetChars != nil:
		q.Set("offset_chars", strconv.Itoa(*in.OffsetChars))
	}
	if in.LimitChars > 0 {
		q.Set("limit_chars", strconv.Itoa(in.LimitChars))
	}
	setIf(q, "q", in.Q)
	if in.BeforeChars != nil {
		q.Set("before_chars", strconv.Itoa(*in.BeforeChars))
	}
	if in.AfterChars != nil {
		q.Set("after_chars", strconv.Itoa(*in.AfterChars))
	}
	body, _, err := c.get(path, q)
	var re *rsclient.Error
	if errors.As(err, &re) && re.Code == "field_not_text" && in.Q == "" {
		if res, ok := c.jsonFieldWindow(ref, in); ok {
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	var fw fieldWindow
	if err := json.Unmarshal(body, &fw); err != nil {
		return nil, &toolError{Code: "rs_malformed_body", Message: "field-window body is not a JSON object"}
	}
	return renderFieldWindow(ref, in, &fw, c.t), nil
}

// jsonFieldWindow reads a JSON object or array field, which the RS's field
// window refuses as not text, as windows of its compact JSON text: the
// continuation that makes a large JSON field reachable in full (seed 004).
func (c *call) jsonFieldWindow(ref RecordRef, in fieldArgs) (*mcp.CallToolResult, bool) {
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID))
	if err != nil {
		return nil, false
	}
	q := url.Values{"fields": {in.FieldPath}}
	setIf(q, "connection_id", ref.ConnectionID)
	body, _, err := c.get(path, q)
	if err != nil {
		return nil, false
	}
	var rec record
	if json.Unmarshal(body, &rec) != nil {
		return nil, false
	}
	v := rawObject(rec.Data)[in.FieldPath]
	switch v.(type) {
	case map[string]any, []any:
	default:
		return nil, false
	}
	text := []rune(compactJSON(v))
	offset, limit := 0, c.t.FieldWindow
	if in.OffsetChars != nil {
		offset = *in.OffsetChars
	} else if in.Cursor != "" {
		offset, _ = strconv.Atoi(in.Cursor)
	}
	if in.LimitChars > 0 {
		limit = min(in.LimitChars, 16384)
	}
	offset = min(max(offset, 0), len(text))
	end := min(offset+limit, len(text))
	var fw fieldWindow
	fw.Field.Path, fw.Field.Type = in.FieldPath, "json"
	w := &fw.Window
	w.Text, w.TotalChars, w.StartChars, w.EndChars, w.LimitChars = string(text[offset:end]), len(text), offset, end, limit
	w.Complete = offset == 0 && end == len(text)
	w.HasMore = end < len(text)
	if w.HasMore {
		w.NextOffsetChars = &end
	}
	if offset > 0 {
		prev := max(0, offset-limit)
		w.PreviousOffsetChars = &prev
	}
	return renderFieldWindow(ref, in, &fw, c.t), true
}
