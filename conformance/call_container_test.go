package conformance

import (
	"encoding/json"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Call.Container walks the --dialect path through structuredContent.
func TestCallContainerFollowsTheDialectPath(t *testing.T) {
	o, err := dialect.ParseOverrides([]byte("containers:\n  search: data.items\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := dialect.FromToolsList([]json.RawMessage{json.RawMessage(`{"name":"search","inputSchema":{"type":"object"}}`)}, o)
	c := &Call{Tool: "search", dialect: d, Raw: json.RawMessage(`{"structuredContent":{"data":{"items":[{"k":"a"},{"k":"b"}]}}}`)}
	list, named := c.Container()
	if !named || len(list) != 2 {
		t.Fatalf("Container() = %v, %t; want the two items", list, named)
	}
	other := &Call{Tool: "fetch", dialect: d, Raw: c.Raw}
	if _, named := other.Container(); named {
		t.Error("a tool the file does not name has a container")
	}
}
