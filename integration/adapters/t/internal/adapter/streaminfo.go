package adapter

import (
	"context"
	"net/url"
	"sort"
	"strings"

	"example.com/pdppadapter-t/internal/ojson"
)

// connRef is one granted connection (configured source).
type connRef struct {
	ID   string
	Name string // display name, may be empty
}

// fieldInfo is the adapter's normalised view of one field capability.
type fieldInfo struct {
	Name        string
	Type        string // declared PDPP type or JSON Schema type(+format)
	Role        string // manifest-declared display role, e.g. primary-title
	Granted     bool
	Exact       bool
	RangeOps    []string
	Lex, Sem    bool
	Agg         []string // usable aggregation ops
	Encoding    string   // JSON Schema contentEncoding when declared
	MediaType   string   // JSON Schema contentMediaType when declared
	Unusable    []string // "flag:reason" notes for declared-but-unusable capabilities
	Schema      any      // raw JSON Schema of the property (full view only)
	hasTypeInfo bool
}

func (f *fieldInfo) isTime() bool {
	t := strings.ToLower(f.Type)
	return strings.Contains(t, "timestamp") || strings.Contains(t, "date")
}

// expandCap is one advertised expand relation.
type expandCap struct {
	Name         string
	Target       string
	Cardinality  string
	DefaultLimit int64
	MaxLimit     int64
	Usable       bool
	Reason       string
}

// streamRow is one stream under one connector.
type streamRow struct {
	Name          string
	ConnectorKey  string
	ConnectorID   string
	ConnectorName string
	Connections   []connRef
	RecordCount   int64
	HasCount      bool
	PrimaryKey    []string
	CursorField   string
	Fields        []*fieldInfo
	Expand        []expandCap
	AggCount      bool
	AggDeclared   bool
	LexFields     []string
	SemFields     []string
	Freshness     string
	Raw           *ojson.Object
}

func (s *streamRow) field(name string) *fieldInfo {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// roleField returns the first field declaring role (e.g. primary-title).
func (s *streamRow) roleField(role string) string {
	if s == nil {
		return ""
	}
	for _, f := range s.Fields {
		if f.Role == role && f.Granted {
			return f.Name
		}
	}
	return ""
}

func (s *streamRow) hasConnection(id string) bool {
	for _, c := range s.Connections {
		if c.ID == id {
			return true
		}
	}
	return false
}

func (s *streamRow) usableExpand() []expandCap {
	var out []expandCap
	for _, e := range s.Expand {
		if e.Usable {
			out = append(out, e)
		}
	}
	return out
}

// connectorInfo groups stream rows by connector.
type connectorInfo struct {
	Key         string
	ID          string
	DisplayName string
	Connections []connRef
	Streams     []*streamRow
}

// schemaDoc is a parsed /v1/schema response.
type schemaDoc struct {
	GrantID    string
	ClientID   string
	TokenKind  string
	Scope      string
	Connectors []*connectorInfo
	Raw        *ojson.Object
}

func (d *schemaDoc) rows() []*streamRow {
	var out []*streamRow
	for _, c := range d.Connectors {
		out = append(out, c.Streams...)
	}
	return out
}

// rowsFor returns the rows named stream, narrowed to connectionID if set.
func (d *schemaDoc) rowsFor(stream, connectionID string) []*streamRow {
	var out []*streamRow
	for _, r := range d.rows() {
		if r.Name != stream {
			continue
		}
		if connectionID != "" && len(r.Connections) > 0 && !r.hasConnection(connectionID) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// connectionIndex maps connection id -> (connector key, display name).
func (d *schemaDoc) connectionIndex() map[string]connSource {
	m := map[string]connSource{}
	for _, c := range d.Connectors {
		for _, cr := range c.Connections {
			if _, ok := m[cr.ID]; !ok {
				m[cr.ID] = connSource{ConnectorKey: c.Key, DisplayName: cr.Name}
			}
		}
		for _, s := range c.Streams {
			for _, cr := range s.Connections {
				if _, ok := m[cr.ID]; !ok {
					m[cr.ID] = connSource{ConnectorKey: c.Key, DisplayName: cr.Name}
				}
			}
		}
	}
	return m
}

type connSource struct {
	ConnectorKey string
	DisplayName  string
}

func parseConnRefs(v any) []connRef {
	var out []connRef
	for _, x := range asArr(v) {
		if o, ok := x.(*ojson.Object); ok {
			id := o.Str("connection_id")
			if id == "" {
				id = o.Str("connector_instance_id")
			}
			if id != "" {
				out = append(out, connRef{ID: id, Name: o.Str("display_name")})
			}
		}
	}
	return out
}

func asArr(v any) []any { a, _ := v.([]any); return a }

// parseSchemaDoc normalises compact or full /v1/schema bodies.
func parseSchemaDoc(o *ojson.Object) *schemaDoc {
	d := &schemaDoc{Raw: o}
	if b := o.Obj("bearer"); b != nil {
		d.GrantID = b.Str("grant_id")
		d.ClientID = b.Str("client_id")
		d.TokenKind = b.Str("token_kind")
		d.Scope = b.Str("scope")
	}
	for _, cv := range o.Arr("connectors") {
		co, ok := cv.(*ojson.Object)
		if !ok {
			continue
		}
		c := &connectorInfo{Key: co.Str("connector_key"), ID: co.Str("connector_id"), DisplayName: co.Str("display_name")}
		if c.Key == "" {
			c.Key = c.ID
		}
		if c.Key == "" {
			if src := co.Obj("source"); src != nil {
				c.Key = src.Str("id")
			}
		}
		c.Connections = parseConnRefs(co.Arr("granted_connections"))
		for _, sv := range co.Arr("streams") {
			so, ok := sv.(*ojson.Object)
			if !ok {
				continue
			}
			c.Streams = append(c.Streams, parseStreamRow(so, c))
		}
		// A connector without its own list inherits the union of its streams'.
		if len(c.Connections) == 0 {
			seen := map[string]bool{}
			for _, s := range c.Streams {
				for _, cr := range s.Connections {
					if !seen[cr.ID] {
						seen[cr.ID] = true
						c.Connections = append(c.Connections, cr)
					}
				}
			}
		}
		d.Connectors = append(d.Connectors, c)
	}
	// Top-level streams[] (package-shaped bodies) without connectors[].
	if len(d.Connectors) == 0 {
		byKey := map[string]*connectorInfo{}
		for _, sv := range o.Arr("streams") {
			so, ok := sv.(*ojson.Object)
			if !ok {
				continue
			}
			key := so.Str("connector_key")
			if key == "" {
				if src := so.Obj("source"); src != nil {
					key = src.Str("connector_key")
				}
			}
			c := byKey[key]
			if c == nil {
				c = &connectorInfo{Key: key}
				byKey[key] = c
				d.Connectors = append(d.Connectors, c)
			}
			c.Streams = append(c.Streams, parseStreamRow(so, c))
		}
	}
	return d
}

func parseStreamRow(so *ojson.Object, c *connectorInfo) *streamRow {
	s := &streamRow{Name: so.Str("name"), ConnectorKey: c.Key, ConnectorID: c.ID, ConnectorName: c.DisplayName, Raw: so}
	if k := so.Str("connector_key"); k != "" {
		s.ConnectorKey = k
	}
	if n, ok := so.Int("record_count"); ok {
		s.RecordCount, s.HasCount = n, true
	}
	s.PrimaryKey = ojson.Strings(so.Arr("primary_key"))
	s.CursorField = so.Str("cursor_field")
	if fr := so.Obj("freshness"); fr != nil {
		s.Freshness = fr.Str("status")
	}
	// Connections: the stream's own list, else its single connection id,
	// else the connector-level (lifted) list.
	s.Connections = parseConnRefs(so.Arr("granted_connections"))
	if len(s.Connections) == 0 {
		if id := so.Str("connection_id"); id != "" {
			name := so.Str("connection_display_name")
			if name == "" {
				name = so.Str("display_name")
			}
			s.Connections = []connRef{{ID: id, Name: name}}
		}
	}
	if len(s.Connections) == 0 {
		s.Connections = append(s.Connections, c.Connections...)
	}
	// Stream query block (full view).
	props := (*ojson.Object)(nil)
	if sch := so.Obj("schema"); sch != nil {
		props = sch.Obj("properties")
	}
	q := so.Obj("query")
	rangeDecl := map[string][]string{}
	if q != nil {
		if ag := q.Obj("aggregations"); ag != nil {
			s.AggDeclared = true
			if b, ok := ag.Bool("count"); ok && b {
				s.AggCount = true
			}
		}
		if se := q.Obj("search"); se != nil {
			s.LexFields = ojson.Strings(se.Arr("lexical_fields"))
			s.SemFields = ojson.Strings(se.Arr("semantic_fields"))
		}
		if rf := q.Obj("range_filters"); rf != nil {
			for _, k := range rf.Keys {
				rangeDecl[k] = ojson.Strings(rf.M[k])
			}
		}
	}
	seen := map[string]bool{}
	if fc := so.Obj("field_capabilities"); fc != nil {
		for _, name := range fc.Keys {
			f := &fieldInfo{Name: name, Granted: true}
			switch v := fc.M[name].(type) {
			case string:
				parseFlagString(f, v)
			case *ojson.Object:
				parseCapObject(f, v)
			}
			if props != nil {
				if p := props.Obj(name); p != nil {
					applyPropSchema(f, p)
				}
			}
			if len(f.RangeOps) == 0 {
				if ops, ok := rangeDecl[name]; ok && f.Granted && !f.hasTypeInfo {
					f.RangeOps = ops
				}
			}
			s.Fields = append(s.Fields, f)
			seen[name] = true
		}
	}
	if props != nil {
		for _, name := range props.Keys {
			if seen[name] {
				continue
			}
			f := &fieldInfo{Name: name, Granted: true}
			if p := props.Obj(name); p != nil {
				applyPropSchema(f, p)
			}
			s.Fields = append(s.Fields, f)
		}
	}
	// Derive search fields from flags when the query block is absent.
	if len(s.LexFields) == 0 && len(s.SemFields) == 0 {
		for _, f := range s.Fields {
			if f.Lex {
				s.LexFields = append(s.LexFields, f.Name)
			}
			if f.Sem {
				s.SemFields = append(s.SemFields, f.Name)
			}
		}
	}
	if !s.AggDeclared {
		for _, f := range s.Fields {
			if len(f.Agg) > 0 {
				s.AggDeclared = true
				break
			}
		}
	}
	for _, ev := range so.Arr("expand_capabilities") {
		eo, ok := ev.(*ojson.Object)
		if !ok {
			continue
		}
		e := expandCap{Name: eo.Str("name"), Target: eo.Str("target_stream"), Cardinality: eo.Str("cardinality"), Usable: true, Reason: eo.Str("reason")}
		if e.Name == "" {
			e.Name = eo.Str("relation")
		}
		if e.Target == "" {
			e.Target = eo.Str("stream")
		}
		if b, ok := eo.Bool("usable"); ok {
			e.Usable = b
		}
		e.DefaultLimit, _ = eo.Int("default_limit")
		e.MaxLimit, _ = eo.Int("max_limit")
		if e.Name != "" {
			s.Expand = append(s.Expand, e)
		}
	}
	return s
}

func applyPropSchema(f *fieldInfo, p *ojson.Object) {
	f.Schema = p
	if f.Type == "" {
		t := ""
		switch tv := p.M["type"].(type) {
		case string:
			t = tv
		case []any:
			var ts []string
			for _, x := range tv {
				if s, ok := x.(string); ok && s != "null" {
					ts = append(ts, s)
				}
			}
			t = strings.Join(ts, "|")
		}
		if fm := p.Str("format"); fm != "" && t != "" {
			t += "(" + fm + ")"
		}
		f.Type = t
	}
	if ce := p.Str("contentEncoding"); ce != "" {
		f.Encoding = ce
	}
	if cm := p.Str("contentMediaType"); cm != "" {
		f.MediaType = cm
	}
}

func usable(o *ojson.Object, key string) (declared, use bool, reason string) {
	x := o.Obj(key)
	if x == nil {
		return false, false, ""
	}
	d, _ := x.Bool("declared")
	u, _ := x.Bool("usable")
	return d, u, x.Str("reason")
}

func parseCapObject(f *fieldInfo, o *ojson.Object) {
	f.Type = o.Str("type")
	f.Role = o.Str("role")
	if g, ok := o.Bool("granted"); ok {
		f.Granted = g
	}
	if sch := o.Obj("schema"); sch != nil && sch.Len() > 0 {
		applyPropSchema(f, sch)
		f.Schema = sch
	}
	if d, u, r := usable(o, "exact_filter"); u {
		f.Exact = true
	} else if d {
		f.Unusable = append(f.Unusable, "eq:"+r)
	}
	if rf := o.Obj("range_filter"); rf != nil {
		f.hasTypeInfo = true
		if u, _ := rf.Bool("usable"); u {
			f.RangeOps = ojson.Strings(rf.Arr("operators"))
			if len(f.RangeOps) == 0 {
				f.RangeOps = []string{"gte", "gt", "lte", "lt"}
			}
		} else if d, _ := rf.Bool("declared"); d {
			f.Unusable = append(f.Unusable, "range:"+rf.Str("reason"))
		}
	}
	if d, u, r := usable(o, "lexical_search"); u {
		f.Lex = true
	} else if d {
		f.Unusable = append(f.Unusable, "lexical:"+r)
	}
	if d, u, r := usable(o, "semantic_search"); u {
		f.Sem = true
	} else if d {
		f.Unusable = append(f.Unusable, "semantic:"+r)
	}
	if ag := o.Obj("aggregation"); ag != nil {
		for _, op := range aggOpsOrder {
			if d, u, r := usable(ag, op); u {
				f.Agg = append(f.Agg, op)
			} else if d {
				f.Unusable = append(f.Unusable, op+":"+r)
			}
		}
	}
}

var aggOpsOrder = []string{"group_by", "group_by_time", "count_distinct", "sum", "min", "max"}

// parseFlagString parses the RS compact capability grammar, e.g.
// "t=string,role=primary-title,eq,r=gte|lt,lex,sem,a=group_by|max".
func parseFlagString(f *fieldInfo, s string) {
	if s == "declared" {
		return
	}
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		k, v, hasV := strings.Cut(tok, "=")
		if hasV && strings.HasPrefix(v, "unusable") {
			reason := strings.TrimPrefix(strings.TrimPrefix(v, "unusable"), ":")
			f.Unusable = append(f.Unusable, k+":"+reason)
			continue
		}
		switch k {
		case "t":
			f.Type = v
		case "role":
			f.Role = v
		case "g":
			f.Granted = v != "false"
		case "eq":
			f.Exact = true
		case "r":
			f.hasTypeInfo = true
			if hasV && v != "" {
				f.RangeOps = strings.Split(v, "|")
			} else {
				f.RangeOps = []string{"gte", "gt", "lte", "lt"}
			}
		case "lex":
			f.Lex = true
		case "sem":
			f.Sem = true
		case "a":
			if v != "" {
				ops := strings.Split(v, "|")
				sort.SliceStable(ops, func(i, j int) bool { return aggIndex(ops[i]) < aggIndex(ops[j]) })
				f.Agg = ops
			}
		}
	}
}

func aggIndex(op string) int {
	for i, o := range aggOpsOrder {
		if o == op {
			return i
		}
	}
	return len(aggOpsOrder)
}

// ---------------------------------------------------------------------------
// Live schema look-ups.

// fetchSchema calls GET /v1/schema with the given parameters.
func (a *Adapter) fetchSchema(ctx context.Context, token string, q url.Values) (*schemaDoc, error) {
	resp, err := a.rs.Get(ctx, token, "/v1/schema", q)
	if err != nil {
		return nil, err
	}
	o, err := ojson.DecodeObject(resp.Body)
	if err != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed schema document")
	}
	return parseSchemaDoc(o), nil
}

// streamSchema fetches the live schema scoped to one stream (and
// connection). It is used for capability checks and role-based
// presentation; it is never cached so enforcement follows the current
// schema document.
func (a *Adapter) streamSchema(ctx context.Context, token, stream, connectionID string) (*schemaDoc, error) {
	q := url.Values{}
	q.Set("stream", stream)
	if connectionID != "" {
		q.Set("connection_id", connectionID)
	}
	return a.fetchSchema(ctx, token, q)
}
