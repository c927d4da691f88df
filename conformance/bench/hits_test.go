package bench

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// The journey finds the top hit by value, whatever the container, and in
// the text when structuredContent has none.
func TestTopHitWithoutAResultsKey(t *testing.T) {
	d := dialect.FromToolsList([]json.RawMessage{
		json.RawMessage(`{"name":"fetch","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`),
		json.RawMessage(`{"name":"read_record_field","inputSchema":{"type":"object","properties":{"ref":{"type":"string"},"path":{"type":"string"}}}}`),
	}, nil)
	var sc map[string]any
	_ = json.Unmarshal([]byte(`{"page":{"more":true},"matches":[{"id":"rec:cin/notes/n1","stream":"notes","connection_id":"cin","evidence":[{"path":"body","text":"…"}]},{"id":"rec:cin/notes/n2"}]}`), &sc)
	h := topHit(d, nil, sc)
	if h.ID != "rec:cin/notes/n1" || h.Stream != "notes" || h.ConnectionID != "cin" || h.Field != "body" {
		t.Errorf("top hit of a matches container: %+v", h)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "1. Notes\n   open: fetch(id=\"rec:cin/notes/n1\")"}}}
	if h := topHit(d, res, map[string]any{}); h.ID != "rec:cin/notes/n1" {
		t.Errorf("top hit from a printed fetch call: %+v", h)
	}
}
