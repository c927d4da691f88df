package main

import (
	"context"
	"net/url"
	"strings"
)

type toolCtx struct {
	s     *Server
	ctx   context.Context
	token string
}

func (t *toolCtx) get(path string, q url.Values) (map[string]any, *RSError) {
	return t.s.rs.Get(t.ctx, t.token, path, q)
}

func streamPath(stream string, rest ...string) string {
	p := "/v1/streams/" + url.PathEscape(stream)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// schemaRow is one (connector, stream) entry of a schema document.
type schemaRow struct {
	Connector map[string]any
	Stream    map[string]any
}

func connectorKey(c map[string]any) string {
	k := firstNonEmpty(str(c["connector_key"]), str(c["connector_id"]))
	if k == "" {
		if src, ok := c["source"].(map[string]any); ok {
			k = str(src["id"])
		}
	}
	return k
}

// shortKey derives a short connector key from a possibly URL-shaped connector id.
func shortKey(k string) string {
	if strings.Contains(k, "://") {
		k = strings.TrimRight(k, "/")
		if i := strings.LastIndex(k, "/"); i >= 0 {
			return k[i+1:]
		}
	}
	return k
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// rowsOf flattens a schema document into rows, optionally filtered by stream name.
func rowsOf(doc map[string]any, stream string) []schemaRow {
	var rows []schemaRow
	seen := map[string]bool{}
	for _, c := range listOf(doc["connectors"]) {
		cm := mapOf(c)
		for _, s := range listOf(cm["streams"]) {
			sm := mapOf(s)
			if sm == nil || (stream != "" && str(sm["name"]) != stream) {
				continue
			}
			seen[connectorKey(cm)+"\x00"+str(sm["name"])] = true
			rows = append(rows, schemaRow{Connector: cm, Stream: sm})
		}
	}
	// tolerate a flattened top-level streams[] (package-style documents)
	for _, s := range listOf(doc["streams"]) {
		sm := mapOf(s)
		if sm == nil || (stream != "" && str(sm["name"]) != stream) {
			continue
		}
		cm := map[string]any{"connector_key": firstNonEmpty(str(sm["connector_key"]), str(mapOf(sm["source"])["connector_key"]))}
		if seen[connectorKey(cm)+"\x00"+str(sm["name"])] {
			continue
		}
		rows = append(rows, schemaRow{Connector: cm, Stream: sm})
	}
	return rows
}

// connectionsOf returns the granted connections of a row: [{connection_id, display_name?}].
func connectionsOf(r schemaRow) []map[string]any {
	src := listOf(r.Stream["granted_connections"])
	if src == nil {
		src = listOf(r.Connector["granted_connections"])
	}
	var out []map[string]any
	for _, g := range src {
		if m := mapOf(g); m != nil && str(m["connection_id"]) != "" {
			out = append(out, m)
		}
	}
	if out == nil {
		if id := str(r.Stream["connection_id"]); id != "" {
			out = append(out, map[string]any{"connection_id": id, "display_name": r.Stream["display_name"]})
		} else {
			for _, id := range listOf(r.Stream["instance_ids"]) {
				out = append(out, map[string]any{"connection_id": str(id)})
			}
		}
	}
	return out
}

func connLabel(m map[string]any) string {
	s := str(m["connection_id"])
	if d := str(m["display_name"]); d != "" && d != s {
		s += " “" + d + "”"
	}
	return s
}

// ambiguity enrichment: add grant_id/connector_key to available_connections, cap the list.
const maxListedConnections = 12

func (t *toolCtx) enrichAmbiguity(te *ToolError, stream string) *ToolError {
	if te.Code != "ambiguous_connection" && te.Code != "ambiguous_schema_detail" && str(te.Fields["retry_with"]) != "connection_id" {
		return te
	}
	te.Fields["retry_with"] = "connection_id"
	ac := listOf(te.Fields["available_connections"])
	// package membership from one schema read (no per-connection probes)
	q := url.Values{"view": {"compact"}}
	if stream != "" {
		q.Set("stream", stream)
	}
	grantID := ""
	keyByConn := map[string]string{}
	nameByConn := map[string]string{}
	if doc, rerr := t.get("/v1/schema", q); rerr == nil {
		grantID = str(mapOf(doc["bearer"])["grant_id"])
		for _, r := range rowsOf(doc, stream) {
			for _, c := range connectionsOf(r) {
				id := str(c["connection_id"])
				keyByConn[id] = shortKey(connectorKey(r.Connector))
				if d := str(c["display_name"]); d != "" {
					nameByConn[id] = d
				}
			}
		}
		if len(ac) == 0 {
			for id := range keyByConn {
				ac = append(ac, map[string]any{"connection_id": id})
			}
		}
	}
	var out []any
	for _, e := range ac {
		m := mapOf(e)
		if m == nil {
			continue
		}
		id := str(m["connection_id"])
		n := map[string]any{"connection_id": id}
		for k, v := range m {
			n[k] = v
		}
		if grantID != "" && n["grant_id"] == nil {
			n["grant_id"] = grantID
		}
		if keyByConn[id] != "" && n["connector_key"] == nil {
			n["connector_key"] = keyByConn[id]
		}
		if nameByConn[id] != "" && n["display_name"] == nil {
			n["display_name"] = nameByConn[id]
		}
		out = append(out, n)
	}
	te.Fields["available_connection_count"] = len(out)
	if len(out) > maxListedConnections {
		te.Fields["available_connections_truncated"] = true
		te.Fields["available_connections_omitted"] = len(out) - maxListedConnections
		te.Fields["discovery_hint"] = "Call `schema` for the full granted connection index before retrying with `connection_id`."
		out = out[:maxListedConnections]
	} else {
		te.Fields["available_connections_truncated"] = false
	}
	te.Fields["available_connections"] = out
	return te
}

func (t *toolCtx) rsErr(e *RSError, stream string) *ToolError {
	return t.enrichAmbiguity(fromRS(e), stream)
}
