package dialect

import (
	"encoding/json"
	"strings"
	"testing"
)

// A --dialect file may name where a tool's hits or records are, and the
// report's head says so; a path that is no dot path is refused.
func TestOverridesNameAContainer(t *testing.T) {
	o, err := ParseOverrides([]byte("containers:\n  search: data.items\n  list_things: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := FromToolsList([]json.RawMessage{json.RawMessage(`{"name":"search","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`)}, o)
	if got := d.Container("search"); got != "data.items" {
		t.Errorf("Container(search) = %q, want data.items", got)
	}
	var line, notes string
	for _, s := range d.Summary() {
		if s.Tool == "search" {
			line = s.Line()
		}
		notes += strings.Join(s.Notes, " ")
	}
	if !strings.Contains(line, "list at structuredContent.data.items (--dialect)") {
		t.Errorf("summary %q does not show the container", line)
	}
	if !strings.Contains(notes, "list_things, which the target does not serve") {
		t.Errorf("notes %q do not name the unknown tool", notes)
	}
	for _, bad := range []string{"containers:\n  search: ''\n", "containers:\n  search: .data\n", "containers:\n  search: data..items\n"} {
		if _, err := ParseOverrides([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
