package bench

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// hitObjects are the objects of a search answer's structuredContent that
// carry a string id, found by value in any array, members visited in key
// order: whatever the container is called.
func hitObjects(sc any) []map[string]any {
	var out []map[string]any
	var walk func(v any, inArray bool)
	walk = func(v any, inArray bool) {
		switch x := v.(type) {
		case map[string]any:
			if id, ok := x["id"].(string); ok && id != "" && inArray {
				out = append(out, x)
				return
			}
			for _, k := range sortedKeys(x) {
				walk(x[k], false)
			}
		case []any:
			for _, e := range x {
				walk(e, true)
			}
		}
	}
	walk(sc, false)
	return out
}

// mentions reports whether some string within v holds token as a whole
// token (an id inside a longer handle counts).
func mentions(v any, token string) bool {
	switch x := v.(type) {
	case string:
		for i := strings.Index(x, token); i >= 0; {
			end := i + len(token)
			if (i == 0 || !isIDByte(x[i-1])) && (end == len(x) || !isIDByte(x[end])) {
				return true
			}
			j := strings.Index(x[i+1:], token)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	case map[string]any:
		for _, e := range x {
			if mentions(e, token) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if mentions(e, token) {
				return true
			}
		}
	}
	return false
}

func isIDByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// hitID is the id a search answer gives the hit that mentions every
// token (any hit for none): a hit object's id, else the id of a fetch
// call its text prints. "" when it gives none.
func hitID(d *dialect.Dialect, res *mcp.CallToolResult, sc map[string]any, tokens ...string) string {
	all := func(v any) bool {
		for _, tok := range tokens {
			if !mentions(v, tok) {
				return false
			}
		}
		return true
	}
	for _, h := range hitObjects(sc) {
		if all(h) {
			return h["id"].(string)
		}
	}
	for _, c := range dialect.PrintedCalls(toolTextAll(res), []string{"fetch"}) {
		if id, _ := d.Value("fetch", c.Args, dialect.RecordID).(string); id != "" && all(c.At) {
			return id
		}
	}
	return ""
}

// toolTextAll is every text part of a result, joined.
func toolTextAll(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
