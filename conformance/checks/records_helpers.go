package checks

import (
	"regexp"
	"sort"
	"strings"
)

// maxStreamProbes bounds how many streams a check reads while looking for
// data of the shape it needs.
const maxStreamProbes = 10

// A source is one stream on one connection ("" when the row names none).
type source struct {
	stream, conn string
}

func (s source) args(extra map[string]any) map[string]any {
	a := map[string]any{"stream": s.stream}
	if s.conn != "" {
		a["connection_id"] = s.conn
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// sources lists one (stream, connection) per index row, in index order.
func sources(rows []schemaRow) []source {
	var out []source
	for _, r := range rows {
		s := source{stream: r.Name}
		if len(r.Connections) > 0 {
			s.conn = r.Connections[0]
		}
		out = append(out, s)
	}
	return out
}

// findPaged finds a source whose first page of two records has more after it.
func findPaged(t *T) (source, *Call, bool) {
	_, index := schemaIndex(t)
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		c := t.Call("query_records", s.args(map[string]any{"limit": 2, "count": "exact"}))
		if !c.IsError() && c.Data()["has_more"] == true {
			return s, c, true
		}
	}
	return source{}, nil, false
}

// records reads the record list of a query_records result: the RS envelope's
// data, or records, or a bare array.
func records(c *Call) []map[string]any {
	var list []any
	switch d := c.Structured()["data"].(type) {
	case map[string]any:
		if l, ok := d["data"].([]any); ok {
			list = l
		} else {
			list, _ = d["records"].([]any)
		}
	case []any:
		list = d
	}
	var out []map[string]any
	for _, r := range list {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// handleIn finds a named handle in visible text: name="value", name=value
// or name: value. The value ends at a quote, space, comma or semicolon.
func handleIn(text, name string) (string, bool) {
	re := regexp.MustCompile(regexp.QuoteMeta(name) + `\s*[=:]\s*(?:"([^"]+)"|([^\s,;"]+))`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return strings.TrimRight(m[1]+m[2], "."), true
}

// findKey returns the first value under key anywhere in v (depth first).
func findKey(v any, key string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if val, ok := x[key]; ok {
			return val, true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if val, ok := findKey(x[k], key); ok {
				return val, true
			}
		}
	case []any:
		for _, e := range x {
			if val, ok := findKey(e, key); ok {
				return val, true
			}
		}
	}
	return nil, false
}

var wordRe = regexp.MustCompile(`[A-Za-z]{5,}`)

// searchableWord picks a word of five letters or more from the records'
// string values, for a search the target's own data can answer.
func searchableWord(recs []map[string]any) string {
	for _, r := range recs {
		data, _ := r["data"].(map[string]any)
		if data == nil {
			data = r
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := data[k].(string); ok {
				if w := wordRe.FindString(s); w != "" {
					return strings.ToLower(w)
				}
			}
		}
	}
	return ""
}
