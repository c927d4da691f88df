package fakers

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// A slice is one connection's view of one connector's stream.
type slice struct {
	s    *Stream
	conn Connection
	key  string // connector key
}

// slices are the (stream, connection) pairs named stream that the bearer
// may read, in fixture order, optionally narrowed to one connection.
func (r *request) slices(name, connection string) []slice {
	var allowed []string
	if r.client() {
		gs := r.grantStream(name)
		if gs == nil {
			return nil
		}
		allowed = gs.InstanceIDs
	}
	var out []slice
	for _, s := range r.fx.StreamsNamed(name) {
		for _, cid := range s.Connections {
			if (allowed != nil && !slices.Contains(allowed, cid)) || (connection != "" && cid != connection) {
				continue
			}
			c, key, _ := r.fx.Connection(cid)
			out = append(out, slice{s: s, conn: c, key: key})
		}
	}
	return out
}

// liveMetadata says whether the bearer sees the live manifest.
func (r *request) liveMetadata() bool { return !r.client() || r.fx.specReads() }

// specReads says whether client tokens read as the spec says (see
// Fixture.SpecClientReads); a RealRS fixture never does.
func (f *Fixture) specReads() bool { return f.SpecClientReads && !f.RealRS }

// schema serves GET /v1/schema (docs/RS-CONTRACT.md §4): full or compact, scoped by
// stream and connection_id; detail=full needs a stream that resolves to one source.
func (rs *RS) schema(r *request) (int, any) {
	return rs.cached(r, rs.buildSchema)
}

// cached serves a read whose answer depends only on the token's kind, the
// request and the data version from its encoded answer, as a caching RS
// would: repeated schema and search reads then cost little, so benchmarks
// measure the adapter rather than the fixture. Errors are not cached.
const maxCachedAnswers = 1024

func (rs *RS) cached(r *request, build func(*request) (int, any)) (int, any) {
	key := r.token.kind + "|" + r.token.state + "|" + r.grant.ID + "|" + r.URL.Path + "?" + r.URL.RawQuery // links.self repeats the raw query
	if b, ok := rs.answerCache.Load(key); ok {
		return http.StatusOK, b.(rawJSON)
	}
	status, body := build(r)
	if status != http.StatusOK {
		return status, body
	}
	finalize(body, r.Request)
	raw := encodeJSON(body)
	if rs.answers.Add(1) > maxCachedAnswers { // fuzzed queries are all distinct: stay bounded
		rs.answerCache.Clear()
		rs.answers.Store(0)
	}
	rs.answerCache.Store(key, raw)
	return status, raw
}

func (rs *RS) buildSchema(r *request) (int, any) {
	compact := strings.EqualFold(strings.TrimSpace(r.q.Get("view")), "compact")
	stream, conn := r.q.Get("stream"), connectionParam(r)
	if r.q.Get("detail") == "full" && !compact {
		if stream == "" {
			return 0, errf("invalid_request", "detail", "schema detail \"full\" requires `stream`; call /v1/schema?view=compact for global discovery, then /v1/schema?stream=<name>&connection_id=<cin>&detail=full for exhaustive detail.")
		}
		if sl := r.slices(stream, ""); conn == "" && len(sl) > 1 {
			var avail []map[string]any
			for _, x := range sl {
				avail = append(avail, map[string]any{"connection_id": x.conn.ID, "connector_key": x.key, "stream": stream, "display_name": cmp.Or(x.conn.DisplayName, stream)})
			}
			e := &apiError{Code: "ambiguous_schema_detail", Param: "connection_id", RetryWith: "connection_id", AvailableConnections: avail,
				Message: "Stream '" + stream + "' resolves to more than one source. Retry with `connection_id`."}
			return 0, e.asReference("connection_id", fmt.Sprintf("schema detail \"full\" for stream %q matches %d sources; retry with connection_id to fetch one source's exhaustive schema.", stream, len(sl)))
		}
	}
	connectors := []any{}
	total := 0
	for _, c := range r.fx.Connectors {
		var rows []any
		for _, s := range r.fx.Streams {
			if s.Connector != c.Key || (stream != "" && s.Name != stream) {
				continue
			}
			var conns []Connection
			for _, x := range r.slices(s.Name, conn) {
				if x.s == s {
					conns = append(conns, x.conn)
				}
			}
			if len(conns) > 0 {
				rows = append(rows, rs.streamEntry(r, s, conns, compact))
			}
		}
		if len(rows) == 0 {
			continue
		}
		total += len(rows)
		entry := map[string]any{"object": "connector", "source": map[string]any{"id": c.Key, "kind": "connector"},
			"connector_key": c.Key, "connector_id": c.Key, "display_name": c.DisplayName, "stream_count": len(rows), "streams": rows}
		if r.client() && r.fx.RealRS { // M4: the manifest URI names the source; no display name
			entry["source"] = map[string]any{"id": manifestURI(c.Key), "kind": "connector"}
			delete(entry, "display_name")
		}
		if compact {
			liftGrantedConnections(entry)
		}
		connectors = append(connectors, entry)
	}
	doc := map[string]any{"object": "schema", "bearer": rs.bearer(r), "connectors": connectors}
	if compact {
		doc["detail"] = "compact"
	}
	if compact || stream != "" || conn != "" {
		doc["connector_count"], doc["stream_count"] = len(connectors), total
	}
	return http.StatusOK, doc
}

func (rs *RS) bearer(r *request) map[string]any {
	if r.client() {
		return map[string]any{"token_kind": "client", "scope": "grant", "grant_id": r.grant.ID, "client_id": r.grant.ClientID}
	}
	return map[string]any{"token_kind": "owner", "scope": "owner"}
}

func grantedConnections(conns []Connection) []any {
	out := make([]any, len(conns))
	for i, c := range conns {
		m := map[string]any{"connection_id": c.ID}
		if c.DisplayName != "" {
			m["display_name"] = c.DisplayName
		}
		out[i] = m
	}
	return out
}

// streamEntry builds one stream row: live metadata, or the client grant
// projection (implementation, not spec: docs/RS-CONTRACT.md §4.3, §15 #3).
func (rs *RS) streamEntry(r *request, s *Stream, conns []Connection, compact bool) map[string]any {
	if r.client() && r.fx.RealRS {
		gs := r.grantStream(s.Name)
		return referenceStreamEntry(s, gs.Fields, gs.InstanceIDs, conns, compact)
	}
	e := map[string]any{"object": "stream_metadata", "name": s.Name, "connector_key": s.Connector, "granted_connections": grantedConnections(conns),
		"granted": true, "record_count": s.recordCount(conns)}
	if len(conns) == 1 {
		// The deprecated alias rides along, as on the RS; MCP adapters must drop it (seed 001).
		e["connection_id"], e["connector_instance_id"] = conns[0].ID, conns[0].ID
		if conns[0].DisplayName != "" {
			e["display_name"] = conns[0].DisplayName
		}
	}
	props := map[string]any{}
	caps := map[string]any{}
	expand := []any{}
	var granted []string
	if r.client() {
		granted = r.grantStream(s.Name).Fields
		e["instance_ids"] = r.grantStream(s.Name).InstanceIDs
	}
	if !r.liveMetadata() {
		for _, f := range granted {
			props[f] = map[string]any{}
			caps[f] = "declared"
			if !compact {
				no := map[string]any{"declared": false, "usable": false}
				caps[f] = map[string]any{"granted": true, "schema": map[string]any{}, "lexical_search": no, "semantic_search": no}
			}
		}
		e["schema"] = map[string]any{"type": "object", "additionalProperties": false, "properties": props}
		e["query"], e["relationships"], e["views"], e["primary_key"] = map[string]any{}, []any{}, []any{}, []any{}
	} else {
		for _, f := range s.Fields {
			isGranted := granted == nil || slices.Contains(granted, f.Name)
			p := map[string]any{"type": f.Type}
			if f.Format != "" {
				p["format"] = f.Format
			}
			if f.Description != "" {
				p["description"] = f.Description
			}
			props[f.Name] = p
			if compact {
				caps[f.Name] = flagString(f, isGranted)
			} else {
				caps[f.Name] = fullCapabilities(f, p, isGranted)
			}
		}
		e["schema"] = map[string]any{"type": "object", "properties": props}
		e["primary_key"], e["cursor_field"] = []any{s.PrimaryKey}, s.CursorField
		e["query"] = manifestQuery(s)
		rels := []any{}
		for _, rel := range s.Relationships {
			rels = append(rels, map[string]any{"name": rel.Name, "stream": rel.Stream, "foreign_key": rel.ForeignKey, "cardinality": rel.Cardinality})
			target := r.slices(rel.Stream, "")
			cap := map[string]any{"name": rel.Name, "stream": rel.Stream, "target_stream": rel.Stream, "cardinality": rel.Cardinality,
				"foreign_key": rel.ForeignKey, "child_parent_key_field": rel.ForeignKey, "default_limit": rel.DefaultLimit, "max_limit": rel.MaxLimit,
				"granted": len(target) > 0, "usable": len(target) > 0}
			if len(target) == 0 {
				cap["reason"] = "related_stream_not_granted"
			}
			expand = append(expand, cap)
		}
		e["relationships"] = rels
	}
	e["field_capabilities"], e["expand_capabilities"] = caps, expand
	if compact {
		return compactRow(e)
	}
	e["freshness"] = map[string]any{"status": "current", "captured_at": "2026-07-05T00:00:00Z"}
	return e
}

// compactRow keeps the keys that survive view=compact (docs/RS-CONTRACT.md §4.4).
func compactRow(e map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"name", "connector_key", "connector_id", "connector_display_name", "display_name", "connection_display_name",
		"connection_id", "connector_instance_id", "record_count", "granted", "primary_key", "cursor_field", "source",
		"granted_connections", "field_capabilities"} {
		if v, ok := e[k]; ok {
			out[k] = v
		}
	}
	caps := []any{}
	for _, c := range e["expand_capabilities"].([]any) {
		full := c.(map[string]any)
		short := map[string]any{}
		for _, k := range []string{"name", "relation", "stream", "target_stream", "cardinality", "granted", "usable", "foreign_key", "max_limit", "default_limit", "reason"} {
			if v, ok := full[k]; ok {
				short[k] = v
			}
		}
		caps = append(caps, short)
	}
	out["expand_capabilities"] = caps
	return out
}

// recordCount counts the records of the given connections.
func (s *Stream) recordCount(conns []Connection) int {
	n := 0
	for _, rec := range s.Records {
		for _, c := range conns {
			if rec.ConnectionID == c.ID {
				n++
			}
		}
	}
	return n
}

func manifestQuery(s *Stream) map[string]any {
	rangeFilters := map[string]any{}
	var lex, sem []string
	aggs := map[string]any{"count": !s.NoAggregations}
	for _, op := range []string{"sum", "min", "max", "group_by", "group_by_time", "count_distinct"} {
		aggs[op] = []string{}
	}
	for _, f := range s.Fields {
		if len(f.Range) > 0 {
			rangeFilters[f.Name] = f.Range
		}
		if f.Lexical {
			lex = append(lex, f.Name)
		}
		if f.Semantic {
			sem = append(sem, f.Name)
		}
		for _, op := range f.Aggregate {
			aggs[op] = append(aggs[op].([]string), f.Name)
		}
	}
	q := map[string]any{"range_filters": rangeFilters, "search": map[string]any{"lexical_fields": nonNil(lex), "semantic_fields": nonNil(sem)}}
	if !s.NoAggregations {
		q["aggregations"] = aggs
	}
	var expand []any
	for _, rel := range s.Relationships {
		expand = append(expand, map[string]any{"name": rel.Name, "default_limit": rel.DefaultLimit, "max_limit": rel.MaxLimit})
	}
	if expand != nil {
		q["expand"] = expand
	}
	return q
}

// flagString renders the compact capability grammar (docs/RS-CONTRACT.md §4.4).
func flagString(f Field, granted bool) string {
	var toks []string
	typ := f.Type
	if f.Format == "date-time" {
		typ = "timestamp"
	}
	toks = append(toks, "t="+typ)
	if f.Role != "" {
		toks = append(toks, "role="+f.Role)
	}
	if !granted {
		toks = append(toks, "g=false")
	}
	scalar := f.scalar()
	flag := func(name string, declared bool, value string) {
		switch {
		case !declared:
		case !granted:
			toks = append(toks, name+"=unusable:field_not_granted")
		case value != "":
			toks = append(toks, name+"="+value)
		default:
			toks = append(toks, name)
		}
	}
	flag("eq", scalar, "")
	flag("r", len(f.Range) > 0, strings.Join(f.Range, "|"))
	flag("lex", f.Lexical, "")
	flag("sem", f.Semantic, "")
	var aggs []string
	for _, op := range []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"} {
		if slices.Contains(f.Aggregate, op) && granted {
			aggs = append(aggs, op)
		}
	}
	if len(aggs) > 0 {
		toks = append(toks, "a="+strings.Join(aggs, "|"))
	}
	return strings.Join(toks, ",")
}

func fullCapabilities(f Field, schema map[string]any, granted bool) map[string]any {
	flag := func(on bool) map[string]any {
		m := map[string]any{"declared": on, "usable": on && granted}
		if on && !granted {
			m["reason"] = "field_not_granted"
		}
		return m
	}
	scalar := f.scalar()
	c := map[string]any{"schema": schema, "granted": granted, "exact_filter": flag(scalar), "range_filter": flag(len(f.Range) > 0),
		"lexical_search": flag(f.Lexical), "semantic_search": flag(f.Semantic)}
	if len(f.Range) > 0 {
		c["range_filter"].(map[string]any)["operators"] = f.Range
	}
	if f.Role != "" {
		c["role"] = f.Role
	}
	agg := map[string]any{}
	for _, op := range []string{"sum", "min", "max", "group_by", "group_by_time", "count_distinct"} {
		agg[op] = flag(slices.Contains(f.Aggregate, op))
	}
	c["aggregation"] = agg
	return c
}

// liftGrantedConnections moves the most common per-stream connection set to
// the connector, keeping a stream's own only when it differs (docs/RS-CONTRACT.md §4.4).
func liftGrantedConnections(connector map[string]any) {
	rows, _ := connector["streams"].([]any)
	count := map[string]int{}
	var best []any
	bestKey := ""
	for _, r := range rows {
		gc, _ := r.(map[string]any)["granted_connections"].([]any)
		k := keyOf(gc)
		count[k]++
		if best == nil || count[k] > count[bestKey] {
			best, bestKey = gc, k
		}
	}
	if best == nil {
		return
	}
	connector["granted_connections"] = best
	for _, r := range rows {
		m := r.(map[string]any)
		if gc, _ := m["granted_connections"].([]any); keyOf(gc) == bestKey {
			delete(m, "granted_connections")
		}
	}
}

func keyOf(gc []any) string {
	var ids []string
	for _, c := range gc {
		ids = append(ids, c.(map[string]any)["connection_id"].(string))
	}
	return strings.Join(ids, ",")
}
