package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

// A schemaRow is one stream row of an MCP schema document, with the values
// a row inherits from its connector filled in.
type schemaRow struct {
	Name         string
	ConnectorKey string
	DisplayName  string
	Connections  []string          // connection ids the row covers
	ConnNames    map[string]string // connection id -> display name
	FieldCaps    map[string]any    // field -> flag string or capability object
	Expand       []string          // usable expand relations
	Raw          map[string]any
}

// schemaRows reads the rows of a schema document: top-level streams[] and
// connector-nested connectors[].streams[] alike.
func schemaRows(doc map[string]any) []schemaRow {
	var rows []schemaRow
	add := func(list any, conn map[string]any) {
		items, _ := list.([]any)
		for _, it := range items {
			raw, ok := it.(map[string]any)
			if !ok {
				continue
			}
			r := schemaRow{Raw: raw, ConnNames: map[string]string{}}
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
			if !own {
				if id, ok := raw["connection_id"].(string); ok && id != "" {
					gc = []any{map[string]any{"connection_id": id, "display_name": raw["display_name"]}}
				} else if conn != nil {
					gc, _ = conn["granted_connections"].([]any)
				}
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
			rows = append(rows, r)
		}
	}
	add(doc["streams"], nil)
	cs, _ := doc["connectors"].([]any)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		add(cm["streams"], cm)
	}
	return rows
}

func rowsNamed(rows []schemaRow, name string) []schemaRow {
	var out []schemaRow
	for _, r := range rows {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// streamNames lists the distinct stream names of rows, sorted.
func streamNames(rows []schemaRow) []string {
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

// schemaIndex calls schema {} on the target and returns its rows. It fails
// the check when the call errors: every other schema check builds on it.
func schemaIndex(t *T) (*Call, []schemaRow) {
	type index struct {
		c    *Call
		rows []schemaRow
	}
	x := conformance.Discover(t, "schema-index", func() index { c, rows := schemaIndexNow(t); return index{c, rows} })
	return x.c, x.rows
}

func schemaIndexNow(t *T) (*Call, []schemaRow) {
	c := t.Call("schema", map[string]any{})
	t.Expect(c.IsError()).To(BeFalse(), "schema {} must succeed: %s", c.Describe())
	doc := c.Data()
	t.Expect(doc).NotTo(BeNil(), "schema {} must put the schema document under structuredContent.data")
	t.Expect(doc).NotTo(HaveKey("data"), "the schema document sits directly under structuredContent.data, not data.data")
	return c, schemaRows(doc)
}

// noSharedStream is the skip reason of checks that need third-party data: a
// stream name shared by several sources.
const noSharedStream = "no shared stream: the target's grant has no stream name that resolves to several sources (connectors or connections)"

// sharedStream finds a stream name that resolves to more than one source:
// several rows, or one row over several connections.
func sharedStream(rows []schemaRow) (string, bool) {
	for _, name := range streamNames(rows) {
		named := rowsNamed(rows, name)
		if len(named) > 1 || len(named[0].Connections) > 1 {
			return name, true
		}
	}
	return "", false
}

// singleSourceStream finds a stream name with exactly one row over at most
// one connection.
func singleSourceStream(rows []schemaRow) (string, bool) {
	for _, name := range streamNames(rows) {
		if named := rowsNamed(rows, name); len(named) == 1 && len(named[0].Connections) <= 1 {
			return name, true
		}
	}
	return "", false
}

// scopedSchema calls schema(stream[, connection_id]) and returns the rows of
// that stream.
func scopedSchema(t *T, args map[string]any) (*Call, []schemaRow) {
	key, _ := json.Marshal(args)
	c := conformance.Discover(t, "schema:"+string(key), func() *Call { return t.Call("schema", args) })
	t.Expect(c.IsError()).To(BeFalse(), "schema must succeed: %s", c.Describe())
	doc := c.Data()
	t.Expect(doc).NotTo(BeNil(), "schema must put the schema document under structuredContent.data")
	return c, rowsNamed(schemaRows(doc), fmt.Sprint(args["stream"]))
}

// flagTokens splits a compact flag string into its tokens; a capability
// object yields nil.
func flagTokens(v any) []string {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

var (
	textStreamRowRe = regexp.MustCompile(`(?m)^\s*stream\s+name=("(?:[^"\\]|\\.)*"|[^\s"]+)(.*)$`)
	textConnIDRe    = regexp.MustCompile(`connection_id[:=]"?([^"\s,}|]+)`)
	textIndexLineRe = regexp.MustCompile(`(?m)^\s*stream_index\b.*\bstreams=(\S+)`)
)

// A textRow is a stream as a content-only client reads it from schema text.
type textRow struct {
	name  string
	conns []string
}

// textStreamRows reads `stream name=… connections={connection_id:…}` rows and
// `stream_index … streams=a|b` lines from schema text, in order.
func textStreamRows(text string) []textRow {
	var out []textRow
	for _, m := range textStreamRowRe.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if u, err := strconv.Unquote(name); err == nil {
			name = u
		}
		r := textRow{name: name}
		for _, c := range textConnIDRe.FindAllStringSubmatch(m[2], -1) {
			r.conns = append(r.conns, c[1])
		}
		out = append(out, r)
	}
	for _, m := range textIndexLineRe.FindAllStringSubmatch(text, -1) {
		for _, n := range strings.Split(m[1], "|") {
			if n != "" {
				out = append(out, textRow{name: n})
			}
		}
	}
	return out
}
