package probe

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A SchemaRow is one stream row of an MCP schema document, with the values
// a row inherits from its connector filled in.
type SchemaRow struct {
	Name         string
	ConnectorKey string
	DisplayName  string
	Connections  []string          // connection ids the row covers
	ConnNames    map[string]string // connection id -> display name
	FieldCaps    map[string]any    // field -> flag string or capability object
	Expand       []string          // usable expand relations
	Raw          map[string]any
	// OwnConnections is the row's own granted_connections, nil when it
	// inherits its connector's.
	OwnConnections []any
	// Connector is the connector object the row sits under; nil for a
	// top-level row.
	Connector map[string]any
}

// SchemaRows reads the rows of a schema document: top-level streams[] and
// connector-nested connectors[].streams[] alike. A top-level row that
// repeats a nested one (S041 and S022 judge that) is read once.
func SchemaRows(doc map[string]any) []SchemaRow {
	var rows []SchemaRow
	add := func(list any, conn map[string]any) {
		items, _ := list.([]any)
		for _, it := range items {
			if raw, ok := it.(map[string]any); ok {
				rows = append(rows, readRow(raw, conn))
			}
		}
	}
	cs, _ := doc["connectors"].([]any)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		add(cm["streams"], cm)
	}
	// Streams grouped by connector_key beside the connectors (another
	// index layout): each group's rows belong to that connector.
	if byKey, ok := doc["streams"].(map[string]any); ok {
		keys := make([]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(byKey[k], connectorByKey(cs, k))
		}
	}
	nested := len(rows)
	add(doc["streams"], nil)
	out := rows[:nested]
	for _, r := range rows[nested:] {
		if !slices.ContainsFunc(out[:nested], r.Repeats) {
			out = append(out, r)
		}
	}
	return out
}

// connectorByKey is the connector object of cs with that connector_key,
// or one that names only the key.
func connectorByKey(cs []any, key string) map[string]any {
	for _, c := range cs {
		if cm, ok := c.(map[string]any); ok && cm["connector_key"] == key {
			return cm
		}
	}
	return map[string]any{"connector_key": key}
}

func readRow(raw, conn map[string]any) SchemaRow {
	r := SchemaRow{Raw: raw, ConnNames: map[string]string{}, Connector: conn}
	for _, k := range []string{"name", "stream", "stream_name"} {
		if s, ok := raw[k].(string); ok && s != "" {
			r.Name = s
			break
		}
	}
	r.ConnectorKey, _ = raw["connector_key"].(string)
	if r.ConnectorKey == "" && conn != nil {
		r.ConnectorKey, _ = conn["connector_key"].(string)
	}
	r.DisplayName, _ = raw["display_name"].(string)
	gc, own := raw["granted_connections"].([]any)
	if own {
		r.OwnConnections = gc
	} else if id, ok := raw["connection_id"].(string); ok && id != "" {
		gc = []any{map[string]any{"connection_id": id, "display_name": raw["display_name"]}}
	} else if conn != nil {
		gc, _ = conn["granted_connections"].([]any)
	}
	for _, c := range gc {
		cm, _ := c.(map[string]any)
		id, _ := cm["connection_id"].(string)
		if id == "" {
			continue
		}
		r.Connections = append(r.Connections, id)
		if dn, ok := cm["display_name"].(string); ok {
			r.ConnNames[id] = dn
		}
	}
	switch fc := raw["field_capabilities"].(type) {
	case map[string]any:
		r.FieldCaps = fc
	case []any: // an array-shaped map: [{name, flags}]
		r.FieldCaps = map[string]any{}
		for _, e := range fc {
			em, _ := e.(map[string]any)
			if n, ok := em["name"].(string); ok {
				r.FieldCaps[n] = em["flags"]
			}
		}
	}
	ex, _ := raw["expand_capabilities"].([]any)
	for _, e := range ex {
		em, _ := e.(map[string]any)
		if n, ok := em["name"].(string); ok && em["usable"] != false {
			r.Expand = append(r.Expand, n)
		}
	}
	return r
}

// Repeats reports whether r and o are the same stream row: one name, and
// the same connector or connections where both say.
func (r SchemaRow) Repeats(o SchemaRow) bool {
	if r.Name == "" || r.Name != o.Name {
		return false
	}
	if r.ConnectorKey != "" && o.ConnectorKey != "" && r.ConnectorKey != o.ConnectorKey {
		return false
	}
	if len(r.Connections) > 0 && len(o.Connections) > 0 && !SameSet(r.Connections, o.Connections) {
		return false
	}
	return true
}

// Ident is how the row reads in messages: stream@connector.
func (r SchemaRow) Ident() string {
	if r.ConnectorKey == "" {
		return r.Name
	}
	return r.Name + "@" + r.ConnectorKey
}

// RowsNamed are the rows of stream name.
func RowsNamed(rows []SchemaRow, name string) []SchemaRow {
	var out []SchemaRow
	for _, r := range rows {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// StreamNames lists the distinct stream names of rows, sorted.
func StreamNames(rows []SchemaRow) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if r.Name != "" && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}

// SchemaDoc reads the schema document of a result leniently: at
// structuredContent.data, or one level deeper when an adapter nested it
// (S017 and S022 judge where it sits).
func SchemaDoc(c *conformance.Call) map[string]any {
	doc := c.Data()
	if inner, ok := doc["data"].(map[string]any); ok && doc["connectors"] == nil && doc["streams"] == nil {
		return inner
	}
	return doc
}

// IndexCall is the target's answer to schema {}, called once per target
// and shared with every check that asks the same.
func IndexCall(t *conformance.T) *conformance.Call { return SchemaCall(t, dialect.Args{}) }

// ScopedSchema calls schema(stream[, connection_id]) and returns the rows
// of that stream, for checks that read capabilities from them. A failed
// call blocks the caller by the scenario that owns it: S019 for a
// connection scope, else S018.
func ScopedSchema(t *conformance.T, args dialect.Args) (*conformance.Call, []SchemaRow) {
	c := SchemaCall(t, args)
	owner := "S018"
	if args[dialect.Connection] != nil {
		owner = "S019"
	}
	if c.IsError() {
		t.BlockedBy(owner, "schema(%s) failed: %s", CompactJSON(args), c.Describe())
	}
	doc := SchemaDoc(c)
	if doc == nil {
		t.BlockedBy(owner, "schema(%s) put no schema document under structuredContent.data: %s", CompactJSON(args), c.Describe())
	}
	rows := RowsNamed(SchemaRows(doc), fmt.Sprint(args["stream"]))
	// An answer that did not narrow to the connection (S019 judges that)
	// still holds the row that covers it.
	if conn, _ := args["connection_id"].(string); conn != "" {
		covering := slices.DeleteFunc(slices.Clone(rows), func(r SchemaRow) bool { return !slices.Contains(r.Connections, conn) })
		if len(covering) > 0 {
			rows = covering
		}
	}
	return c, rows
}

// rsSchemaRows is the RS's own answer to GET /v1/schema?q under the client
// bearer: the truth an adapter's schema is judged against, by value. ok
// is false when mcpcheck cannot read the RS itself (T.ReadRS), or it refused.
func rsSchemaRows(t *conformance.T, q url.Values) ([]SchemaRow, bool) {
	type answer struct {
		rows []SchemaRow
		ok   bool
	}
	a := conformance.Discover(t, "rs-schema:"+q.Encode(), func() answer {
		status, body, read := t.ReadRS("/v1/schema", q)
		var doc map[string]any
		if !read || status != 200 || json.Unmarshal(body, &doc) != nil {
			return answer{}
		}
		return answer{SchemaRows(doc), true}
	})
	return a.rows, a.ok
}

// GrantTruth is the RS's own compact schema under the client bearer, read
// by mcpcheck itself (its fixture RS, or the RS of --rs real); ok is false
// where it cannot read the RS.
func GrantTruth(t *conformance.T) ([]SchemaRow, bool) {
	rows, ok := rsSchemaRows(t, schemaQuery("", ""))
	return rows, ok && len(rows) > 0
}

// Grant is what the target's grant holds, for checks that pick their data
// from it: the fixture RS's own compact schema under the client bearer,
// where mcpcheck controls the RS (the truth, never read from the target);
// else the rows of the target's schema {} answer, read leniently, which
// S017 owns (an index the target does not give blocks the caller).
func Grant(t *conformance.T) []SchemaRow {
	if rows, ok := rsSchemaRows(t, schemaQuery("", "")); ok && len(rows) > 0 {
		return rows
	}
	return conformance.Discover(t, "target-index", func() []SchemaRow {
		c := IndexCall(t)
		rows := SchemaRows(SchemaDoc(c))
		if c.IsError() || len(rows) == 0 {
			t.BlockedBy("S017", "schema {} gives no stream rows to pick data from: %s", c.Describe())
		}
		return rows
	})
}

// GrantNames are the grant's stream, connector, connection and field
// names, as evidence: a client learns them from schema discovery, so a call
// may name them ([conformance.Refused]).
func GrantNames(t *conformance.T) conformance.Evidence {
	var names []string
	for _, r := range Grant(t) {
		names = append(names, r.Name, r.ConnectorKey)
		names = append(names, r.Connections...)
		names = append(names, FieldNames(r)...)
	}
	return conformance.Answers(conformance.Shown("the grant's stream, connection and field names", strings.Join(names, "\n")), conformance.SeedValues)
}

// RSSchemaAnswer is the RS's own answer to GET /v1/schema?q under the
// client bearer, as strings: what an adapter that relays the RS shows of
// it. Nil where mcpcheck cannot read the RS itself.
func RSSchemaAnswer(t *conformance.T, q url.Values) []string {
	return conformance.Discover(t, "rs-schema-strings:"+q.Encode(), func() []string {
		status, body, read := t.ReadRS("/v1/schema", q)
		var doc any
		if !read || status != 200 || json.Unmarshal(body, &doc) != nil {
			return nil
		}
		return StringValues(doc)
	})
}

// Widens reports whether an answer (its text or its structuredContent)
// names id more often than the RS's own answer to the same schema scope
// does (q): the adapter added it, where relaying the RS (a grant's
// instance list, say) does not.
func Widens(t *conformance.T, c *conformance.Call, id string, q url.Values) bool {
	t.RS() // what the RS answers is known only of mcpcheck's own fixture
	count := func(ss []string) int {
		n := 0
		for _, s := range ss {
			if s == id || ContainsToken(s, id) {
				n++
			}
		}
		return n
	}
	// Text and structuredContent are counted apart: an adapter that
	// mirrors its document in text names each id once per channel.
	inText := 0
	for rest := c.Text(); ; {
		i := strings.Index(rest, id)
		if i < 0 {
			break
		}
		if ContainsToken(rest[max(0, i-1):min(len(rest), i+len(id)+1)], id) {
			inText++
		}
		rest = rest[i+len(id):]
	}
	shown := max(inText, count(StringValues(c.Structured())))
	return shown > count(RSSchemaAnswer(t, q))
}

// SchemaQuery is the /v1/schema query of a scope: compact unless full.
func SchemaQuery(stream, conn string, full bool) url.Values {
	q := schemaQuery(stream, conn)
	if full {
		q.Del("view")
		q.Set("detail", "full")
	}
	return q
}

// TruthRows is what the RS says about a compact schema scope, else what
// the adapter's own rows say (a target without a controlled RS).
func TruthRows(t *conformance.T, stream, conn string, adapterRows []SchemaRow) []SchemaRow {
	if rows, ok := rsSchemaRows(t, schemaQuery(stream, conn)); ok && len(rows) > 0 {
		return rows
	}
	return adapterRows
}

// schemaQuery is the /v1/schema query of a compact scope.
func schemaQuery(stream, conn string) url.Values {
	q := url.Values{"view": {"compact"}}
	if stream != "" {
		q.Set("stream", stream)
	}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	return q
}

// FlagTokens splits a compact flag string into its tokens; a capability
// object yields nil.
func FlagTokens(v any) []string {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// A FieldCap is what a field's declared capabilities allow.
type FieldCap struct {
	Type  string
	Exact bool
	Ops   []string // range operators
	Aggs  []string // aggregation kinds
	// Search: some search mode matches the field.
	Search            bool
	Lexical, Semantic bool
}

// CapOf reads a field's capabilities from a compact flag string
// ("t=string,eq,r=gte|lt,a=max") or a full capability object.
func CapOf(v any) FieldCap {
	var c FieldCap
	if m, ok := v.(map[string]any); ok {
		usable := func(k string) (map[string]any, bool) {
			x, _ := m[k].(map[string]any)
			return x, x != nil && x["usable"] == true
		}
		c.Type = String(m["type"])
		if sch, _ := m["schema"].(map[string]any); c.Type == "" && sch != nil {
			c.Type = String(sch["type"])
			if sch["format"] == "date-time" {
				c.Type = "timestamp"
			}
		}
		_, c.Exact = usable("exact_filter")
		if r, ok := usable("range_filter"); ok {
			ops, _ := r["operators"].([]any)
			for _, o := range ops {
				c.Ops = append(c.Ops, String(o))
			}
		}
		_, c.Lexical = usable("lexical_search")
		_, c.Semantic = usable("semantic_search")
		c.Search = c.Lexical || c.Semantic
		agg, _ := m["aggregation"].(map[string]any)
		for _, k := range aggKinds {
			if a, _ := agg[k].(map[string]any); a != nil && a["usable"] == true {
				c.Aggs = append(c.Aggs, k)
			}
		}
		return c
	}
	for _, tok := range FlagTokens(v) {
		k, val, _ := strings.Cut(tok, "=")
		if strings.HasPrefix(val, "unusable") {
			continue
		}
		switch k {
		case "t":
			c.Type = val
		case "eq":
			c.Exact = true
		case "r":
			c.Ops = nonEmpty(strings.Split(val, "|"))
		case "a":
			c.Aggs = nonEmpty(strings.Split(val, "|"))
		case "lex":
			c.Search, c.Lexical = true, true
		case "sem":
			c.Search, c.Semantic = true, true
		}
	}
	return c
}

// aggKinds are the RS's aggregation kinds.
var aggKinds = []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"}

// RowAggKinds are the aggregation kinds some field of r declares, sorted.
func RowAggKinds(r SchemaRow) []string {
	var out []string
	for _, v := range r.FieldCaps {
		for _, a := range CapOf(v).Aggs {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// SameSet reports whether a and b hold the same strings, in any order.
func SameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// ConnectionIDs reads the connection ids of a granted_connections list.
func ConnectionIDs(list []any) []string {
	var out []string
	for _, c := range list {
		cm, _ := c.(map[string]any)
		if id := String(cm["connection_id"]); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// RepeatedRows names the top-level stream rows of doc that repeat a
// connector-nested row (S022, S041): the same rows listed twice.
func RepeatedRows(doc map[string]any) []string {
	cs, _ := doc["connectors"].([]any)
	top, _ := doc["streams"].([]any)
	if len(cs) == 0 || len(top) == 0 {
		return nil
	}
	var nested []SchemaRow
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		list, _ := cm["streams"].([]any)
		for _, s := range list {
			if sm, ok := s.(map[string]any); ok {
				nested = append(nested, readRow(sm, cm))
			}
		}
	}
	var out []string
	for _, s := range top {
		sm, _ := s.(map[string]any)
		if r := readRow(sm, nil); slices.ContainsFunc(nested, r.Repeats) {
			out = append(out, r.Ident())
		}
	}
	return out
}

// MustFixture is a fixture mcpcheck builds from its own constants: one it
// cannot build is a harness fault, never a verdict on the target.
func MustFixture(fx *fakers.Fixture, err error) *fakers.Fixture {
	if err != nil {
		panic("build a fixture: " + err.Error())
	}
	return fx
}

// RSRequestCount is how many requests the RS has logged under prefix, or
// 0 when mcpcheck does not see the RS's log.
func RSRequestCount(t *conformance.T, prefix string) int {
	if !t.Target.Has(conformance.CapControlledRS) {
		return 0
	}
	return len(t.RS().RequestsTo(prefix))
}

// FieldNames are the fields a schema row declares, sorted.
func FieldNames(r SchemaRow) []string {
	out := make([]string, 0, len(r.FieldCaps))
	for f := range r.FieldCaps {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}
