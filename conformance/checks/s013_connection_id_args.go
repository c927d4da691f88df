package checks

import (
	"encoding/json"

	. "github.com/onsi/gomega"
)

var s013 = &Check{ID: "S013", Slug: "connection-id-args", Mode: ModeBB, Run: func(t *T) {
	byName := map[string]json.RawMessage{}
	for i, tool := range t.Target.Tools {
		byName[tool.Name] = t.Target.ToolsRaw[i]
	}
	for _, name := range t.Settings.Surface.ConnectionIDTools {
		raw, ok := byName[name]
		if !ok {
			continue // membership is S012's verdict
		}
		props, required := inputProperties(raw)
		t.Expect(props).To(HaveKey("connection_id"), "tool %s must advertise an optional connection_id", name)
		t.Expect(required).NotTo(ContainElement("connection_id"), "tool %s must not require connection_id", name)
	}
	for i, tool := range t.Target.Tools {
		var schema any
		_ = json.Unmarshal(t.Target.ToolsRaw[i], &struct {
			InputSchema *any `json:"inputSchema"`
		}{&schema})
		for _, dep := range t.Settings.Surface.DeprecatedArguments {
			t.Expect(schemaMentionsKey(schema, dep)).To(BeFalse(), "tool %s must not advertise the deprecated alias %s", tool.Name, dep)
		}
	}
}}
