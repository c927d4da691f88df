package adapter

// The schema tool: the compact index of every granted stream, or one
// stream's rows with their capabilities (seed 001).

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

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

// shapeSchemaDoc makes the MCP schema document: no deprecated alias, no
// duplicated top-level stream list when connectors exist (S041). A scoped
// document keeps the RS rows and gains the flag legend; the global one
// becomes an index (S017).
func shapeSchemaDoc(doc map[string]any, scoped bool, legend map[string]string) map[string]any {
	dropKey(doc, "connector_instance_id")
	if cs, ok := doc["connectors"].([]any); ok && len(cs) > 0 {
		delete(doc, "streams")
	}
	if scoped {
		doc["field_capability_legend"] = legend
		return doc
	}
	return indexDoc(doc)
}

// indexDoc reduces the compact global document to an index: stream names
// grouped by connector, with connections where a stream's differ from its
// connector's. Everything per field, per relation or per sort key belongs to
// schema(stream), so the whole result stays bounded for large grants.
func indexDoc(doc map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"object", "detail", "connector_count", "stream_count", "bearer"} {
		if v, ok := doc[k]; ok {
			out[k] = v
		}
	}
	if meta, ok := doc["meta"].(map[string]any); ok {
		if w, _ := meta["warnings"].([]any); len(w) > 0 {
			out["meta"] = map[string]any{"warnings": w}
		}
	}
	reduceRows := func(v any, keep ...string) []any {
		list, _ := v.([]any)
		rows := make([]any, 0, len(list))
		for _, s := range list {
			row, _ := s.(map[string]any)
			r := map[string]any{"name": row["name"]}
			for _, k := range keep {
				if v, ok := row[k]; ok {
					r[k] = v
				}
			}
			if gc, ok := row["granted_connections"]; ok {
				r["granted_connections"] = gc
			}
			rows = append(rows, r)
		}
		return rows
	}
	if cs, ok := doc["connectors"].([]any); ok {
		conns := make([]any, 0, len(cs))
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			e := map[string]any{}
			for _, k := range []string{"connector_key", "display_name", "granted_connections", "stream_count"} {
				if v, ok := cm[k]; ok {
					e[k] = v
				}
			}
			e["streams"] = reduceRows(cm["streams"])
			conns = append(conns, e)
		}
		out["connectors"] = conns
	} else if _, ok := doc["streams"]; ok {
		out["streams"] = reduceRows(doc["streams"], "connector_key", "connection_id", "display_name")
	}
	return out
}

func dropKey(v any, key string) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, key)
		for _, c := range t {
			dropKey(c, key)
		}
	case []any:
		for _, c := range t {
			dropKey(c, key)
		}
	}
}

// A streamRow is one stream row of a schema document, with the connector
// it sits under (nil for a top-level row), whose key and connections it
// inherits when it has none of its own.
type streamRow struct {
	m         map[string]any
	connector map[string]any
}

func (r streamRow) get(k string) any {
	if v, ok := r.m[k]; ok {
		return v
	}
	if r.connector != nil && (k == "connector_key" || k == "granted_connections") {
		return r.connector[k]
	}
	return nil
}

func streamRows(doc map[string]any) []streamRow {
	var rows []streamRow
	add := func(v any, conn map[string]any) {
		list, _ := v.([]any)
		for _, s := range list {
			if row, ok := s.(map[string]any); ok {
				rows = append(rows, streamRow{m: row, connector: conn})
			}
		}
	}
	add(doc["streams"], nil)
	if cs, ok := doc["connectors"].([]any); ok {
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				add(cm["streams"], cm)
			}
		}
	}
	return rows
}

const (
	maxSchemaRows  = 50
	maxConnsPerRow = 8
)

func renderSchema(doc map[string]any, stream, connectionID string, t *Tuning) string {
	rows := streamRows(doc)
	conns, _ := doc["connectors"].([]any)
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema: connectors=%d streams=%d\n", len(conns), len(rows))
	e := ellipsis(t.Ellipsis)
	if line, _ := t.Grammar.Legend(); stream != "" && line != "" {
		b.WriteString(line + "\n")
	}
	if connectionID != "" {
		fmt.Fprintf(&b, "schema_scope connection_id=%s\n", q(connectionID))
	}
	if stream == "" && len(rows) > maxSchemaRows {
		for _, g := range indexGroups(conns, rows, e) {
			fmt.Fprintf(&b, "stream_index connector_key=%s stream_count=%d streams=%s\n", q(g.key), len(g.names), strings.Join(g.names, "|"))
		}
	}
	for i, row := range rows {
		if stream == "" && i == maxSchemaRows {
			fmt.Fprintf(&b, "more_streams=%d\n", len(rows)-maxSchemaRows)
			break
		}
		fmt.Fprintf(&b, "stream name=%s connector_key=%s", q(str(row.get("name"))), q(str(row.get("connector_key"))))
		if dn := str(row.get("display_name")); dn != "" {
			fmt.Fprintf(&b, " display_name=%s", q(dn))
		}
		if list, ok := row.get("granted_connections").([]any); ok && len(list) > 0 {
			parts := []string{}
			for j, c := range list {
				if j == maxConnsPerRow {
					parts = append(parts, fmt.Sprintf("more:%d", len(list)-maxConnsPerRow))
					break
				}
				cm, _ := c.(map[string]any)
				p := "{connection_id:" + e.inline(str(cm["connection_id"]), 80)
				if dn := str(cm["display_name"]); dn != "" {
					p += ",display_name:" + e.inline(dn, 60)
				}
				parts = append(parts, p+"}")
			}
			b.WriteString(" connections=" + strings.Join(parts, "|"))
		}
		if stream != "" {
			if segs := t.Grammar.Row(row.m); len(segs) > 0 {
				b.WriteString(" " + strings.Join(segs, " "))
			}
		}
		b.WriteString("\n")
	}
	if stream == "" {
		b.WriteString("call schema(stream, connection_id?) for per-field capability flags (filter/sort/expand/fields/count/aggregate)")
	}
	return strings.TrimRight(b.String(), "\n")
}

type indexGroup struct {
	key   string
	names []string
}

// indexGroups lists stream names per connector: from connectors[] when the
// document has them, else from the flat rows grouped by connector_key.
func indexGroups(conns []any, rows []streamRow, e ellipsis) []indexGroup {
	var out []indexGroup
	if len(conns) > 0 {
		for _, c := range conns {
			cm, _ := c.(map[string]any)
			list, _ := cm["streams"].([]any)
			g := indexGroup{key: str(cm["connector_key"]), names: make([]string, 0, len(list))}
			for _, s := range list {
				sm, _ := s.(map[string]any)
				g.names = append(g.names, e.inline(str(sm["name"]), 60))
			}
			out = append(out, g)
		}
		return out
	}
	at := map[string]int{}
	for _, r := range rows {
		key := str(r.get("connector_key"))
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, indexGroup{key: key})
		}
		out[i].names = append(out[i].names, e.inline(str(r.get("name")), 60))
	}
	return out
}
