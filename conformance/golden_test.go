package conformance

import (
	"encoding/json"
	"testing"
)

// tools/list order means nothing, so it must not move a golden or S011's
// stdio/HTTP comparison.
func TestGoldenToolsIgnoresOrder(t *testing.T) {
	a := json.RawMessage(`{"name":"alpha","inputSchema":{"type":"object"}}`)
	b := json.RawMessage(`{"name":"beta","description":"b","inputSchema":{"type":"object"}}`)
	c := json.RawMessage(`{"name":"gamma","inputSchema":{"type":"object"}}`)
	first, err := GoldenTools(&Target{ToolsRaw: []json.RawMessage{a, b, c}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := GoldenTools(&Target{ToolsRaw: []json.RawMessage{c, a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(again) {
		t.Errorf("reordering tools changed the golden:\n%s\nvs\n%s", first, again)
	}
	var names []struct{ Name string }
	if err := json.Unmarshal(again, &names); err != nil || len(names) != 3 || names[0].Name != "alpha" || names[2].Name != "gamma" {
		t.Errorf("golden tools not sorted by name: %s (%v)", again, err)
	}
}
