package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

type schemaArgs struct {
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id"`
	Detail       string `json:"detail"`
}

// Bounds for the global index.
const (
	indexDetailedRowCap = 60  // detailed stream rows before switching to a names-only index
	indexConnListCap    = 100 // connections listed per connector line
	scopedFieldLineCap  = 150 // field lines per stream row in scoped compact output
	fullSchemaTextCap   = 24000
	fullSchemaStructCap = 512 << 10
)

func (a *Adapter) toolSchema(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args schemaArgs
	if e := decodeArgs(raw, []string{"stream", "connection_id", "detail"}, &args); e != nil {
		return nil, e
	}
	args.Stream = strings.TrimSpace(args.Stream)
	args.ConnectionID = strings.TrimSpace(args.ConnectionID)
	switch args.Detail {
	case "", "compact", "full":
	default:
		return nil, argErr("detail", `detail must be "compact" or "full"`)
	}
	if args.Detail == "full" && args.Stream == "" {
		e := newErr("detail_requires_stream", "invalid_request_error",
			`detail:"full" returns exhaustive raw JSON Schema and is only available for one stream; it was not fetched grant-wide.`)
		e.Param = "detail"
		e.Hint = `Call schema() for the compact index first, then schema({"stream": "<name>", "connection_id": "<id>", "detail": "full"}).`
		e.with("retry_example", `schema {"stream":"<name>","connection_id":"<id>","detail":"full"}`)
		return nil, e
	}
	if args.Stream == "" {
		return a.schemaIndex(ctx, tok, args)
	}
	if args.Detail == "full" {
		return a.schemaFull(ctx, tok, args)
	}
	return a.schemaStream(ctx, tok, args)
}

// ---------------------------------------------------------------------------
// Global compact index.

func (a *Adapter) schemaIndex(ctx context.Context, tok string, args schemaArgs) (*mcp.CallToolResult, error) {
	q := url.Values{}
	q.Set("view", "compact")
	if args.ConnectionID != "" {
		q.Set("connection_id", args.ConnectionID)
	}
	doc, err := a.fetchSchema(ctx, tok, q)
	if err != nil {
		// Older servers may not know view=compact; retry with the full view.
		if re, ok := rs.AsError(err); ok && re.Status == 400 && (re.Code == "invalid_request" || re.Code == "unsupported_query") {
			q.Del("view")
			doc, err = a.fetchSchema(ctx, tok, q)
		}
		if err != nil {
			return nil, err
		}
	}
	return renderIndex(doc, args), nil
}

type indexStream struct {
	Name          string   `json:"name"`
	RecordCount   *int64   `json:"record_count,omitempty"`
	ConnectionIDs []string `json:"connection_ids,omitempty"`
	Search        []string `json:"search,omitempty"`
	Aggregate     bool     `json:"aggregate,omitempty"`
	Expand        []string `json:"expand,omitempty"`
}

type indexConn struct {
	ConnectionID string `json:"connection_id"`
	DisplayName  string `json:"display_name,omitempty"`
}

type indexConnector struct {
	ConnectorKey string        `json:"connector_key"`
	DisplayName  string        `json:"display_name,omitempty"`
	Connections  []indexConn   `json:"connections"`
	Streams      []indexStream `json:"streams,omitempty"`
	// StreamNames replaces Streams for large grants (names-only index).
	StreamNames []string `json:"stream_names,omitempty"`
	// NamesOmitted is set only past the hard size bound.
	NamesOmitted int `json:"stream_names_omitted,omitempty"`
}

// indexNamesBudget is a hard bound on the names-only index text; grants
// beyond it list the remaining connectors' stream counts only.
const indexNamesBudget = 100000

func sameConns(a []connRef, b []connRef) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, c := range a {
		m[c.ID] = true
	}
	for _, c := range b {
		if !m[c.ID] {
			return false
		}
	}
	return true
}

func connIDs(cs []connRef) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func connLabel(c connRef) string {
	if c.Name != "" {
		return c.ID + " " + jsonStr(c.Name)
	}
	return c.ID
}

func searchModes(r *streamRow) []string {
	var m []string
	if len(r.LexFields) > 0 {
		m = append(m, "lexical")
	}
	if len(r.SemFields) > 0 {
		m = append(m, "semantic")
	}
	return m
}

func renderIndex(doc *schemaDoc, args schemaArgs) *mcp.CallToolResult {
	rows := doc.rows()
	connSet := map[string]bool{}
	for _, c := range doc.Connectors {
		for _, cr := range c.Connections {
			connSet[cr.ID] = true
		}
	}
	capped := len(rows) > indexDetailedRowCap
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema index")
	if doc.GrantID != "" {
		fmt.Fprintf(&b, " · grant %s", doc.GrantID)
	}
	fmt.Fprintf(&b, " · %d connector(s) · %d connection(s) · %d stream(s)", len(doc.Connectors), len(connSet), len(rows))
	if args.ConnectionID != "" {
		fmt.Fprintf(&b, " · scoped to connection_id %s", args.ConnectionID)
	}
	b.WriteString("\n")
	if len(rows) == 0 {
		if args.ConnectionID != "" {
			b.WriteString("No granted stream is served by that connection_id. Call schema() without connection_id for the full index.\n")
		} else {
			b.WriteString("This grant exposes no streams.\n")
		}
	}
	if !capped {
		b.WriteString("Line format: stream (records) · conn=connection ids when only some of the connector's connections serve it · search=lexical/semantic · agg = has aggregations · expand=relations.\n")
	} else {
		fmt.Fprintf(&b, "Large grant (%d streams): per-stream detail is omitted and every stream name is listed by connector. Call schema({\"stream\": name}) for a stream's capabilities.\n", len(rows))
	}
	structured := make([]indexConnector, 0, len(doc.Connectors))
	type src struct {
		key   string
		conns []string
		all   bool
	}
	shared := map[string][]src{}
	var sharedOrder []string
	omittedConnectors := 0
	for _, c := range doc.Connectors {
		ic := indexConnector{ConnectorKey: c.Key, DisplayName: c.DisplayName}
		for _, cr := range c.Connections {
			ic.Connections = append(ic.Connections, indexConn{ConnectionID: cr.ID, DisplayName: cr.Name})
		}
		b.WriteString("\n")
		b.WriteString(c.Key)
		if c.DisplayName != "" && c.DisplayName != c.Key {
			b.WriteString(" " + jsonStr(c.DisplayName))
		}
		b.WriteString(" · connections: ")
		var cl []string
		for i, cr := range c.Connections {
			if i == indexConnListCap {
				cl = append(cl, fmt.Sprintf("… %d more (schema({\"connection_id\": id}) scopes the index)", len(c.Connections)-indexConnListCap))
				break
			}
			cl = append(cl, connLabel(cr))
		}
		if len(cl) == 0 {
			cl = []string{"(none reported)"}
		}
		b.WriteString(strings.Join(cl, ", "))
		b.WriteString("\n")
		var names []string
		for _, r := range c.Streams {
			is := indexStream{Name: r.Name}
			if r.HasCount {
				n := r.RecordCount
				is.RecordCount = &n
			}
			subset := len(r.Connections) > 0 && !sameConns(r.Connections, c.Connections)
			if subset {
				is.ConnectionIDs = connIDs(r.Connections)
			}
			if _, seen := shared[r.Name]; !seen {
				sharedOrder = append(sharedOrder, r.Name)
			}
			shared[r.Name] = append(shared[r.Name], src{key: c.Key, conns: connIDs(r.Connections), all: !subset})
			if capped {
				names = append(names, r.Name)
				continue
			}
			is.Search = searchModes(r)
			is.Aggregate = r.AggDeclared
			for _, e := range r.usableExpand() {
				is.Expand = append(is.Expand, e.Name)
			}
			ic.Streams = append(ic.Streams, is)
			line := "  - " + r.Name
			if r.HasCount {
				line += fmt.Sprintf(" (%d records)", r.RecordCount)
			}
			if subset {
				line += " · conn=" + strings.Join(is.ConnectionIDs, ",")
			}
			if len(is.Search) > 0 {
				line += " · search=" + strings.Join(is.Search, "+")
			}
			if is.Aggregate {
				line += " · agg"
			}
			if len(is.Expand) > 0 {
				line += " · expand=" + strings.Join(is.Expand, ",")
			}
			b.WriteString(line + "\n")
		}
		if capped {
			if b.Len() > indexNamesBudget {
				omittedConnectors++
				ic.NamesOmitted = len(names)
				fmt.Fprintf(&b, "  %d streams (names omitted: size bound reached; schema({\"connection_id\": %s}) lists them)\n", len(names), jsonStr(firstConn(c)))
			} else {
				ic.StreamNames = names
				fmt.Fprintf(&b, "  %d streams: %s\n", len(names), strings.Join(names, ", "))
			}
		}
		structured = append(structured, ic)
	}
	// Names served by more than one source.
	var sharedLines []string
	sharedMap := map[string][]string{}
	for _, name := range sharedOrder {
		srcs := shared[name]
		total := 0
		var parts []string
		var all []string
		for _, s := range srcs {
			total += max(1, len(s.conns))
			if s.all && len(s.conns) > 3 {
				parts = append(parts, fmt.Sprintf("%s: all %d connections", s.key, len(s.conns)))
			} else {
				parts = append(parts, s.key+": "+strings.Join(s.conns, ","))
			}
			all = append(all, s.conns...)
		}
		if total > 1 {
			sharedMap[name] = all
			if len(sharedLines) < 40 {
				sharedLines = append(sharedLines, fmt.Sprintf("%s (%s)", name, strings.Join(parts, "; ")))
			}
		}
	}
	if len(sharedLines) > 0 {
		b.WriteString("\nServed by several connections (pass connection_id to pick one; without it list reads fan in and single-record reads are ambiguous): ")
		b.WriteString(strings.Join(sharedLines, "; "))
		if len(sharedMap) > len(sharedLines) {
			fmt.Fprintf(&b, "; … %d more", len(sharedMap)-len(sharedLines))
		}
		b.WriteString("\n")
	}
	// Suggested next call.
	next := ojson.NewObject()
	if len(rows) > 0 {
		r := rows[0]
		next.Set("stream", r.Name)
		if args.ConnectionID != "" {
			next.Set("connection_id", args.ConnectionID)
		} else if len(sharedMap[r.Name]) > 1 && len(r.Connections) > 0 {
			next.Set("connection_id", r.Connections[0].ID)
		}
		fmt.Fprintf(&b, "\nNext: schema %s for fields, filters, sort and aggregations; then query_records, aggregate or search.\n", compactJSON(next))
	}
	data := ojson.NewObject()
	data.Set("object", "schema_index")
	if doc.GrantID != "" {
		data.Set("grant_id", doc.GrantID)
	}
	data.Set("connector_count", len(doc.Connectors))
	data.Set("connection_count", len(connSet))
	data.Set("stream_count", len(rows))
	if args.ConnectionID != "" {
		data.Set("connection_id", args.ConnectionID)
	}
	data.Set("detailed_rows", !capped)
	data.Set("connectors", structured)
	if len(sharedMap) > 0 {
		data.Set("multi_connection_streams", ojson.FromPlain(toAnyMap(sharedMap)))
	}
	if omittedConnectors > 0 {
		data.Set("names_truncated_connectors", omittedConnectors)
	}
	sc := ojson.NewObject()
	sc.Set("data", data)
	if next.Len() > 0 {
		sc.Set("next", callObj("schema", next))
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

func firstConn(c *connectorInfo) string {
	if len(c.Connections) > 0 {
		return c.Connections[0].ID
	}
	return ""
}

func toAnyMap(m map[string][]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ---------------------------------------------------------------------------
// Stream-scoped compact capabilities.

const schemaLegend = `Legend: each field line is "name: type [role] · filter … · search … · agg …". filter eq = exact match, filter:{"f": value}; gte/gt/lte/lt = range, filter:{"f": {"gte": value}}. search lexical = search tool default, semantic = mode:"semantic". agg group_by / group_by_time (metric count; group_by_time needs granularity), count_distinct / sum / min / max (metric with field). Parts a field lacks are omitted. Any listed field can go in fields:[…].`

func (a *Adapter) schemaStream(ctx context.Context, tok string, args schemaArgs) (*mcp.CallToolResult, error) {
	doc, err := a.streamSchema(ctx, tok, args.Stream, args.ConnectionID)
	if err != nil {
		return nil, err
	}
	rows := doc.rowsFor(args.Stream, args.ConnectionID)
	if len(rows) == 0 {
		return nil, a.streamNotFound(ctx, tok, args.Stream, args.ConnectionID)
	}
	var b strings.Builder
	sources := countSources(rows)
	fmt.Fprintf(&b, "Stream %s", args.Stream)
	if args.ConnectionID != "" {
		fmt.Fprintf(&b, " · connection_id %s", args.ConnectionID)
	}
	fmt.Fprintf(&b, " · %d matching row(s), %d source connection(s)", len(rows), sources)
	if sources > 1 && args.ConnectionID == "" {
		b.WriteString(" — pass connection_id to read one source (needed for paging, fetch and read_record_field)")
	}
	b.WriteString("\n" + schemaLegend + "\n")
	var srows []any
	for i, r := range rows {
		conns := r.Connections
		if args.ConnectionID != "" {
			conns = filterConns(conns, args.ConnectionID)
		}
		b.WriteString("\n")
		renderStreamRow(&b, i+1, r, conns)
		srows = append(srows, streamRowStructured(r, conns))
	}
	data := ojson.NewObject()
	data.Set("object", "schema_stream")
	data.Set("detail", "compact")
	data.Set("stream", args.Stream)
	if args.ConnectionID != "" {
		data.Set("connection_id", args.ConnectionID)
	}
	if doc.GrantID != "" {
		data.Set("grant_id", doc.GrantID)
	}
	data.Set("source_count", sources)
	data.Set("rows", srows)
	sc := ojson.NewObject()
	sc.Set("data", data)
	return textResult(strings.TrimRight(b.String(), "\n"), sc), nil
}

func filterConns(cs []connRef, id string) []connRef {
	for _, c := range cs {
		if c.ID == id {
			return []connRef{c}
		}
	}
	return []connRef{{ID: id}}
}

func countSources(rows []*streamRow) int {
	n := 0
	for _, r := range rows {
		n += max(1, len(r.Connections))
	}
	return n
}

func (f *fieldInfo) filterOps() []string {
	var ops []string
	if f.Exact {
		ops = append(ops, "eq")
	}
	ops = append(ops, f.RangeOps...)
	return ops
}

func (f *fieldInfo) searchModes() []string {
	var m []string
	if f.Lex {
		m = append(m, "lexical")
	}
	if f.Sem {
		m = append(m, "semantic")
	}
	return m
}

func fieldLine(f *fieldInfo) string {
	var b strings.Builder
	b.WriteString("- " + f.Name + ": ")
	t := f.Type
	if t == "" {
		t = "any"
	}
	b.WriteString(t)
	if f.Role != "" {
		b.WriteString(" [" + f.Role + "]")
	}
	if !f.Granted {
		b.WriteString(" (not granted)")
		return b.String()
	}
	if f.Encoding != "" {
		b.WriteString(" (encoded " + f.Encoding + ", metadata-only in previews)")
	}
	if ops := f.filterOps(); len(ops) > 0 {
		b.WriteString(" · filter " + strings.Join(ops, ","))
	}
	if m := f.searchModes(); len(m) > 0 {
		b.WriteString(" · search " + strings.Join(m, ","))
	}
	if len(f.Agg) > 0 {
		b.WriteString(" · agg " + strings.Join(f.Agg, ","))
	}
	return b.String()
}

func renderStreamRow(b *strings.Builder, n int, r *streamRow, conns []connRef) {
	fmt.Fprintf(b, "[%d] %s · connector_key %s", n, r.Name, r.ConnectorKey)
	if r.ConnectorName != "" && r.ConnectorName != r.ConnectorKey {
		b.WriteString(" " + jsonStr(r.ConnectorName))
	}
	var cl []string
	for i, c := range conns {
		if i == indexConnListCap {
			cl = append(cl, fmt.Sprintf("… %d more", len(conns)-indexConnListCap))
			break
		}
		cl = append(cl, connLabel(c))
	}
	if len(cl) > 0 {
		b.WriteString(" · connection_id: " + strings.Join(cl, ", "))
	}
	b.WriteString("\n")
	var facts []string
	if r.HasCount {
		facts = append(facts, fmt.Sprintf("records %d", r.RecordCount))
	}
	if len(r.PrimaryKey) > 0 {
		facts = append(facts, "primary key "+strings.Join(r.PrimaryKey, ","))
	}
	if r.Freshness != "" {
		facts = append(facts, "freshness "+r.Freshness)
	}
	if len(facts) > 0 {
		b.WriteString(strings.Join(facts, " · ") + "\n")
	}
	if r.CursorField != "" {
		fmt.Fprintf(b, "sort: sort:%s (ascending) or sort:%s (descending, default order); other fields are not sortable\n", jsonStr(r.CursorField), jsonStr("-"+r.CursorField))
	} else {
		b.WriteString("sort: default order only (order:\"asc\"|\"desc\")\n")
	}
	b.WriteString(`count: query_records count:"exact" returns the total`)
	if r.AggCount {
		b.WriteString(`; aggregate metric:"count" supported`)
	} else if r.AggDeclared {
		b.WriteString(`; aggregate supported for the agg fields below`)
	} else {
		b.WriteString("; no aggregations advertised")
	}
	b.WriteString("\n")
	b.WriteString("projection: fields:[…] with any granted field below\n")
	if len(r.Expand) > 0 {
		var ex []string
		for _, e := range r.Expand {
			s := e.Name + " → " + e.Target
			var d []string
			if e.Cardinality != "" {
				d = append(d, e.Cardinality)
			}
			if e.DefaultLimit > 0 {
				d = append(d, fmt.Sprintf("default %d", e.DefaultLimit))
			}
			if e.MaxLimit > 0 {
				d = append(d, fmt.Sprintf("max %d", e.MaxLimit))
			}
			if !e.Usable {
				d = append(d, "unusable: "+e.Reason)
			}
			if len(d) > 0 {
				s += " (" + strings.Join(d, ", ") + ")"
			}
			ex = append(ex, s)
		}
		b.WriteString("expand: " + strings.Join(ex, "; ") + "\n")
	} else {
		b.WriteString("expand: none advertised (expand is rejected for this stream)\n")
	}
	var se []string
	if len(r.LexFields) > 0 {
		se = append(se, "lexical on "+strings.Join(r.LexFields, ", "))
	}
	if len(r.SemFields) > 0 {
		se = append(se, "semantic on "+strings.Join(r.SemFields, ", "))
	}
	if len(se) == 0 {
		se = []string{"no searchable fields advertised"}
	}
	b.WriteString("search: " + strings.Join(se, " · ") + "\n")
	fmt.Fprintf(b, "fields (%d):\n", len(r.Fields))
	for i, f := range r.Fields {
		if i == scopedFieldLineCap {
			var rest []string
			for _, g := range r.Fields[i:] {
				rest = append(rest, g.Name)
			}
			fmt.Fprintf(b, "… %d more fields (names only; schema with detail:\"full\" has all): %s\n", len(rest), strings.Join(rest, ", "))
			break
		}
		b.WriteString(fieldLine(f) + "\n")
	}
	for _, ex := range streamExamples(r, conns) {
		b.WriteString("example: " + ex + "\n")
	}
}

// streamExamples builds valid example calls from the stream's own
// capabilities.
func streamExamples(r *streamRow, conns []connRef) []string {
	base := func(tool string) *ojson.Object {
		o := ojson.NewObject()
		if tool == "search" {
			o.Set("q", "<text>")
			o.Set("streams", []string{r.Name})
		} else {
			o.Set("stream", r.Name)
		}
		if len(conns) > 0 {
			o.Set("connection_id", conns[0].ID)
		}
		return o
	}
	var out []string
	qr := base("query_records")
	var proj []string
	if t := r.roleField("primary-title"); t != "" {
		proj = append(proj, t)
	}
	if cf := r.field(r.CursorField); cf != nil && cf.Granted && !contains(proj, cf.Name) && !contains(r.PrimaryKey, cf.Name) {
		proj = append(proj, cf.Name)
	}
	for _, f := range r.Fields {
		if len(proj) >= 3 {
			break
		}
		if f.Granted && !contains(proj, f.Name) && f.Role != "primary-text" {
			proj = append(proj, f.Name)
		}
	}
	if len(proj) > 0 {
		qr.Set("fields", proj)
	}
	var rangeF, exactF *fieldInfo
	for _, f := range r.Fields {
		if !f.Granted {
			continue
		}
		if rangeF == nil && len(f.RangeOps) > 0 {
			rangeF = f
		}
		if exactF == nil && f.Exact && f.Role != "primary-text" && !contains(r.PrimaryKey, f.Name) && (f.Type == "" || strings.Contains(f.Type, "string")) {
			exactF = f
		}
	}
	filter := ojson.NewObject()
	if rangeF != nil {
		op := rangeF.RangeOps[0]
		filter.Set(rangeF.Name, map[string]any{op: exampleValue(rangeF)})
	}
	if exactF != nil {
		filter.Set(exactF.Name, "<value>")
	}
	if filter.Len() > 0 {
		qr.Set("filter", filter)
	}
	if r.CursorField != "" {
		qr.Set("sort", "-"+r.CursorField)
	}
	qr.Set("limit", 10)
	out = append(out, "query_records "+compactJSON(qr))
	// Aggregate example.
	var gb, gbt, num string
	for _, f := range r.Fields {
		for _, op := range f.Agg {
			switch op {
			case "group_by":
				if gb == "" {
					gb = f.Name
				}
			case "group_by_time":
				if gbt == "" {
					gbt = f.Name
				}
			case "sum", "max", "min":
				if num == "" {
					num = f.Name + ":" + op
				}
			}
		}
	}
	if r.AggCount || gb != "" || gbt != "" {
		ag := base("aggregate")
		ag.Set("metric", "count")
		if gb != "" {
			ag.Set("group_by", gb)
		} else if gbt != "" {
			ag.Set("group_by_time", gbt)
			ag.Set("granularity", "month")
		}
		out = append(out, "aggregate "+compactJSON(ag))
	}
	if gbt != "" && gb != "" {
		ag := base("aggregate")
		ag.Set("metric", "count")
		ag.Set("group_by_time", gbt)
		ag.Set("granularity", "month")
		out = append(out, "aggregate "+compactJSON(ag))
	}
	if num != "" {
		name, op, _ := strings.Cut(num, ":")
		ag := base("aggregate")
		ag.Set("metric", op)
		ag.Set("field", name)
		out = append(out, "aggregate "+compactJSON(ag))
	}
	if len(r.LexFields) > 0 {
		out = append(out, "search "+compactJSON(base("search")))
	}
	if ex := r.usableExpand(); len(ex) > 0 {
		qe := base("query_records")
		qe.Set("expand", []string{ex[0].Name})
		lim := ex[0].DefaultLimit
		if lim <= 0 || lim > 5 {
			lim = 5
		}
		qe.Set("expand_limit", map[string]any{ex[0].Name: lim})
		qe.Set("limit", 5)
		out = append(out, "query_records "+compactJSON(qe))
	}
	return out
}

func exampleValue(f *fieldInfo) any {
	if f.isTime() {
		return "2026-01-01T00:00:00Z"
	}
	t := strings.ToLower(f.Type)
	if strings.Contains(t, "int") || strings.Contains(t, "number") {
		return 0
	}
	return "<value>"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func streamRowStructured(r *streamRow, conns []connRef) *ojson.Object {
	o := ojson.NewObject()
	o.Set("name", r.Name)
	o.Set("connector_key", r.ConnectorKey)
	if r.ConnectorName != "" {
		o.Set("connector_display_name", r.ConnectorName)
	}
	var cl []any
	for _, c := range conns {
		co := ojson.NewObject()
		co.Set("connection_id", c.ID)
		if c.Name != "" {
			co.Set("display_name", c.Name)
		}
		cl = append(cl, co)
	}
	o.Set("connections", cl)
	if r.HasCount {
		o.Set("record_count", r.RecordCount)
	}
	if len(r.PrimaryKey) > 0 {
		o.Set("primary_key", r.PrimaryKey)
	}
	if r.CursorField != "" {
		o.Set("sort", []string{r.CursorField, "-" + r.CursorField})
	} else {
		o.Set("sort", []string{})
	}
	o.Set("count", []string{"none", "exact"})
	o.Set("aggregate_count", r.AggCount)
	var ex []any
	for _, e := range r.Expand {
		eo := ojson.NewObject()
		eo.Set("name", e.Name)
		eo.Set("target_stream", e.Target)
		if e.Cardinality != "" {
			eo.Set("cardinality", e.Cardinality)
		}
		if e.DefaultLimit > 0 {
			eo.Set("default_limit", e.DefaultLimit)
		}
		if e.MaxLimit > 0 {
			eo.Set("max_limit", e.MaxLimit)
		}
		eo.Set("usable", e.Usable)
		ex = append(ex, eo)
	}
	o.Set("expand", orEmpty(ex))
	so := ojson.NewObject()
	so.Set("lexical", orEmptyS(r.LexFields))
	so.Set("semantic", orEmptyS(r.SemFields))
	o.Set("search", so)
	var fl []any
	for _, f := range r.Fields {
		fo := ojson.NewObject()
		fo.Set("name", f.Name)
		if f.Type != "" {
			fo.Set("type", f.Type)
		}
		if f.Role != "" {
			fo.Set("role", f.Role)
		}
		fo.Set("granted", f.Granted)
		if ops := f.filterOps(); len(ops) > 0 {
			fo.Set("filter", ops)
		}
		if m := f.searchModes(); len(m) > 0 {
			fo.Set("search", m)
		}
		if len(f.Agg) > 0 {
			fo.Set("aggregate", f.Agg)
		}
		if f.Encoding != "" {
			fo.Set("content_encoding", f.Encoding)
		}
		fl = append(fl, fo)
	}
	o.Set("fields", orEmpty(fl))
	return o
}

func orEmpty(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}

func orEmptyS(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// streamNotFound builds a typed error listing nearby stream names.
func (a *Adapter) streamNotFound(ctx context.Context, tok, stream, connectionID string) error {
	msg := fmt.Sprintf("No granted stream named %q", stream)
	if connectionID != "" {
		msg += fmt.Sprintf(" is served by connection_id %q", connectionID)
	}
	msg += "."
	e := newErr("stream_not_found", "not_found_error", msg)
	e.Param = "stream"
	e.Hint = "Call schema() for the index of granted streams and connections."
	q := url.Values{}
	q.Set("view", "compact")
	if idx, err := a.fetchSchema(ctx, tok, q); err == nil {
		seen := map[string]bool{}
		var names []string
		for _, r := range idx.rows() {
			if !seen[r.Name] {
				seen[r.Name] = true
				names = append(names, r.Name)
			}
		}
		sort.Strings(names)
		if len(names) > 40 {
			names = append(names[:40], fmt.Sprintf("… %d more", len(names)-40))
		}
		e.with("granted_streams", names)
		if seen[stream] && connectionID != "" {
			var cands []string
			for _, r := range idx.rowsFor(stream, "") {
				cands = append(cands, connIDs(r.Connections)...)
			}
			e.with("connections_for_stream", cands)
			e.Message += fmt.Sprintf(" The stream exists under connection(s) %s.", strings.Join(cands, ", "))
		} else if len(names) > 0 {
			e.Message += " Granted streams: " + strings.Join(names, ", ") + "."
		}
	}
	return e
}

// ---------------------------------------------------------------------------
// Stream-scoped exhaustive schema (detail:"full").

func (a *Adapter) schemaFull(ctx context.Context, tok string, args schemaArgs) (*mcp.CallToolResult, error) {
	q := url.Values{}
	q.Set("detail", "full")
	q.Set("stream", args.Stream)
	if args.ConnectionID != "" {
		q.Set("connection_id", args.ConnectionID)
	}
	resp, err := a.rs.Get(ctx, tok, "/v1/schema", q)
	if err != nil {
		if re, ok := rs.AsError(err); ok && (re.Code == "ambiguous_schema_detail" || re.Code == "ambiguous_connection") {
			return nil, a.ambiguityFromRS(ctx, tok, re, args.Stream, "schema", map[string]any{"stream": args.Stream, "detail": "full"})
		}
		return nil, err
	}
	raw, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed schema document")
	}
	doc := parseSchemaDoc(raw)
	rows := doc.rowsFor(args.Stream, args.ConnectionID)
	if len(rows) == 0 {
		return nil, a.streamNotFound(ctx, tok, args.Stream, args.ConnectionID)
	}
	if args.ConnectionID == "" && countSources(rows) > 1 {
		return nil, a.ambiguousFromRows(doc, rows, args.Stream, "schema", map[string]any{"stream": args.Stream, "detail": "full"})
	}
	// Keep only the selected stream rows, once, under connectors[].streams.
	out := ojson.NewObject()
	for _, k := range raw.Keys {
		switch k {
		case "links", "meta":
			continue
		case "connectors":
			var cs []any
			for _, cv := range raw.Arr("connectors") {
				co, ok := cv.(*ojson.Object)
				if !ok {
					continue
				}
				var keep []any
				for _, sv := range co.Arr("streams") {
					so, ok := sv.(*ojson.Object)
					if !ok || so.Str("name") != args.Stream {
						continue
					}
					if args.ConnectionID != "" {
						cr := parseStreamRow(so, &connectorInfo{Connections: parseConnRefs(co.Arr("granted_connections"))})
						if len(cr.Connections) > 0 && !cr.hasConnection(args.ConnectionID) {
							continue
						}
						so = narrowToConnection(so, args.ConnectionID)
					}
					keep = append(keep, so)
				}
				if len(keep) == 0 {
					continue
				}
				cc := co.Clone()
				if args.ConnectionID != "" {
					cc = narrowToConnection(cc, args.ConnectionID)
				}
				cc.Set("streams", keep)
				cc.Set("stream_count", len(keep))
				cs = append(cs, cc)
			}
			out.Set("connectors", orEmpty(cs))
		case "streams":
			// A top-level streams[] would duplicate connectors[].streams.
			if raw.Has("connectors") {
				continue
			}
			out.Set(k, raw.M[k])
		default:
			out.Set(k, raw.M[k])
		}
	}
	out.Set("detail", "full")
	var b strings.Builder
	fmt.Fprintf(&b, "Stream %s · detail full", args.Stream)
	if args.ConnectionID != "" {
		fmt.Fprintf(&b, " · connection_id %s", args.ConnectionID)
	}
	b.WriteString("\n" + schemaLegend + "\n")
	for i, r := range rows {
		conns := r.Connections
		if args.ConnectionID != "" {
			conns = filterConns(conns, args.ConnectionID)
		}
		b.WriteString("\n")
		renderStreamRow(&b, i+1, r, conns)
		// Raw per-field JSON Schema.
		props := ojson.NewObject()
		for _, f := range r.Fields {
			if f.Schema != nil {
				props.Set(f.Name, f.Schema)
			}
		}
		js := compactJSON(props)
		if runeLen(js) > fullSchemaTextCap {
			cut, shown, _ := preview(js, fullSchemaTextCap)
			fmt.Fprintf(&b, "raw JSON Schema properties (first %d of %d chars; the complete document is structuredContent.data):\n%s…\n", shown, runeLen(js), cut)
		} else {
			b.WriteString("raw JSON Schema properties:\n" + js + "\n")
		}
	}
	sc := ojson.NewObject()
	sc.Set("data", out)
	if w := raw.Obj("meta"); w != nil {
		if ws := w.Arr("warnings"); len(ws) > 0 {
			sc.Set("warnings", ws)
		}
	}
	if b, _ := ojson.Marshal(sc); len(b) > fullSchemaStructCap {
		e := newErr("schema_too_large", "api_error", fmt.Sprintf("the exhaustive schema for %q is %d bytes, above the %d byte single-result bound", args.Stream, len(b), fullSchemaStructCap))
		e.Hint = `Use schema({"stream": …}) (compact) for capabilities; it lists every field.`
		return nil, e
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc), nil
}

// narrowToConnection keeps only the requested connection in a schema
// object's connection lists (granted_connections, instance_ids).
func narrowToConnection(o *ojson.Object, conn string) *ojson.Object {
	c := o.Clone()
	if gc := c.Arr("granted_connections"); gc != nil {
		var keep []any
		for _, v := range gc {
			if vo, ok := v.(*ojson.Object); ok && (vo.Str("connection_id") == conn || vo.Str("connector_instance_id") == conn) {
				keep = append(keep, vo)
			}
		}
		c.Set("granted_connections", orEmpty(keep))
	}
	for _, k := range []string{"instance_ids", "connection_ids"} {
		if ids := c.Arr(k); ids != nil {
			var keep []any
			for _, v := range ids {
				if s, ok := v.(string); ok && s == conn {
					keep = append(keep, s)
				}
			}
			c.Set(k, orEmpty(keep))
		}
	}
	return c
}
