package fakers

import (
	"net/http"
	"strings"
)

// schema serves GET /v1/schema (contract §4): full or compact, scoped by
// stream and connection_id; detail=full needs a stream that resolves to one
// source.
func (rs *RS) schema(r *request) (int, any) {
	compact := strings.EqualFold(strings.TrimSpace(r.q.Get("view")), "compact")
	stream, conn := r.q.Get("stream"), r.q.Get("connection_id")
	if r.q.Get("detail") == "full" && !compact {
		if stream == "" {
			return 0, errf("invalid_request", "detail", "schema detail \"full\" requires `stream`; call /v1/schema?view=compact for global discovery, then /v1/schema?stream=<name>&connection_id=<cin>&detail=full for exhaustive detail.")
		}
		if s := rs.fx.Stream(stream); s != nil && conn == "" {
			if conns := rs.visibleConnections(r, s); len(conns) > 1 {
				avail := []map[string]any{}
				for _, c := range conns {
					avail = append(avail, map[string]any{"connection_id": c.ID, "connector_key": rs.fx.Connector.Key, "stream": stream, "display_name": c.DisplayName})
				}
				return 0, &apiError{Code: "ambiguous_schema_detail", Param: "connection_id", RetryWith: "connection_id", AvailableConnections: avail,
					Message: "Stream '" + stream + "' resolves to more than one source. Retry with `connection_id`."}
			}
		}
	}
	var rows []any
	for _, s := range rs.fx.Streams {
		if stream != "" && s.Name != stream {
			continue
		}
		conns := rs.visibleConnections(r, s)
		if conn != "" {
			conns = filterConn(conns, conn)
		}
		if len(conns) == 0 {
			continue
		}
		rows = append(rows, rs.streamEntry(r, s, conns, compact))
	}
	connector := map[string]any{"object": "connector", "source": map[string]any{"id": rs.fx.Connector.Key, "kind": "connector"},
		"connector_key": rs.fx.Connector.Key, "connector_id": rs.fx.Connector.Key, "display_name": rs.fx.Connector.DisplayName, "stream_count": len(rows), "streams": rows}
	connectors := []any{}
	if len(rows) > 0 {
		connectors = append(connectors, connector)
	}
	doc := map[string]any{"object": "schema", "bearer": rs.bearer(r), "connectors": connectors}
	if compact {
		doc["detail"] = "compact"
		liftGrantedConnections(connector)
	}
	if compact || stream != "" || conn != "" {
		doc["connector_count"], doc["stream_count"] = len(connectors), len(rows)
	}
	return http.StatusOK, doc
}

func (rs *RS) bearer(r *request) map[string]any {
	if r.client() {
		return map[string]any{"token_kind": "client", "scope": "grant", "grant_id": rs.fx.Grant.ID, "client_id": rs.fx.Grant.ClientID}
	}
	return map[string]any{"token_kind": "owner", "scope": "owner"}
}

// visibleConnections are the stream's connections the bearer may read.
func (rs *RS) visibleConnections(r *request, s *Stream) []Connection {
	var allowed []string
	if r.client() {
		gs := rs.grantStream(s.Name)
		if gs == nil {
			return nil
		}
		allowed = gs.InstanceIDs
	} else {
		allowed = s.Connections
	}
	var out []Connection
	for _, c := range rs.fx.Connections {
		if contains(allowed, c.ID) && contains(s.Connections, c.ID) {
			out = append(out, c)
		}
	}
	return out
}

func filterConn(conns []Connection, id string) []Connection {
	for _, c := range conns {
		if c.ID == id {
			return []Connection{c}
		}
	}
	return nil
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

// streamEntry builds one stream row: live metadata for owners, the grant
// projection for clients (implementation, not spec: contract §4.3, §15 #3).
func (rs *RS) streamEntry(r *request, s *Stream, conns []Connection, compact bool) map[string]any {
	e := map[string]any{"object": "stream_metadata", "name": s.Name, "granted_connections": grantedConnections(conns)}
	props := map[string]any{}
	caps := map[string]any{}
	var expand []any
	if r.client() {
		gs := rs.grantStream(s.Name)
		for _, f := range gs.Fields {
			props[f] = map[string]any{}
			caps[f] = "declared"
			if !compact {
				no := map[string]any{"declared": false, "usable": false}
				caps[f] = map[string]any{"granted": true, "schema": map[string]any{}, "lexical_search": no, "semantic_search": no}
			}
		}
		e["schema"] = map[string]any{"type": "object", "additionalProperties": false, "properties": props}
		e["query"], e["relationships"], e["views"], e["primary_key"] = map[string]any{}, []any{}, []any{}, []any{}
		e["instance_ids"] = gs.InstanceIDs
		expand = []any{}
	} else {
		for _, f := range s.Fields {
			p := map[string]any{"type": f.Type}
			if f.Format != "" {
				p["format"] = f.Format
			}
			props[f.Name] = p
			if compact {
				caps[f.Name] = flagString(f)
			} else {
				caps[f.Name] = fullCapabilities(f, p)
			}
		}
		e["schema"] = map[string]any{"type": "object", "properties": props}
		e["primary_key"], e["cursor_field"] = []any{s.PrimaryKey}, s.CursorField
		expand = []any{}
		for _, rel := range s.Relationships {
			expand = append(expand, map[string]any{"name": rel.Name, "stream": rel.Stream, "target_stream": rel.Stream, "cardinality": rel.Cardinality,
				"foreign_key": rel.ForeignKey, "child_parent_key_field": rel.ForeignKey, "default_limit": rel.DefaultLimit, "max_limit": rel.MaxLimit, "granted": true, "usable": true})
		}
	}
	e["field_capabilities"], e["expand_capabilities"] = caps, expand
	if compact {
		out := map[string]any{}
		for _, k := range []string{"name", "primary_key", "cursor_field", "granted_connections", "field_capabilities", "expand_capabilities"} {
			if v, ok := e[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	e["freshness"] = map[string]any{"status": "current", "captured_at": "2026-07-05T00:00:00Z"}
	return e
}

// flagString renders the compact capability grammar (contract §4.4).
func flagString(f Field) string {
	var toks []string
	typ := f.Type
	if f.Format == "date-time" {
		typ = "timestamp"
	}
	toks = append(toks, "t="+typ)
	if f.Role != "" {
		toks = append(toks, "role="+f.Role)
	}
	if f.Type == "string" || f.Type == "integer" || f.Type == "number" || f.Type == "boolean" {
		toks = append(toks, "eq")
	}
	if len(f.Range) > 0 {
		toks = append(toks, "r="+strings.Join(f.Range, "|"))
	}
	if f.Lexical {
		toks = append(toks, "lex")
	}
	if f.Semantic {
		toks = append(toks, "sem")
	}
	var aggs []string
	for _, op := range []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"} {
		if contains(f.Aggregate, op) {
			aggs = append(aggs, op)
		}
	}
	if len(aggs) > 0 {
		toks = append(toks, "a="+strings.Join(aggs, "|"))
	}
	return strings.Join(toks, ",")
}

func fullCapabilities(f Field, schema map[string]any) map[string]any {
	flag := func(on bool) map[string]any { return map[string]any{"declared": on, "usable": on} }
	scalar := f.Type == "string" || f.Type == "integer" || f.Type == "number" || f.Type == "boolean"
	c := map[string]any{"schema": schema, "granted": true, "exact_filter": flag(scalar), "range_filter": flag(len(f.Range) > 0),
		"lexical_search": flag(f.Lexical), "semantic_search": flag(f.Semantic)}
	if len(f.Range) > 0 {
		c["range_filter"].(map[string]any)["operators"] = f.Range
	}
	if f.Role != "" {
		c["role"] = f.Role
	}
	agg := map[string]any{}
	for _, op := range []string{"sum", "min", "max", "group_by", "group_by_time", "count_distinct"} {
		agg[op] = flag(contains(f.Aggregate, op))
	}
	c["aggregation"] = agg
	return c
}

// liftGrantedConnections moves the most common per-stream connection set to
// the connector, keeping a stream's own only when it differs.
func liftGrantedConnections(connector map[string]any) {
	rows, _ := connector["streams"].([]any)
	count := map[string]int{}
	best, bestKey := []any(nil), ""
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
