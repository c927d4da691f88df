package checks

import (
	"encoding/json"
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Seed 001: schema, query_records, aggregate, search and fetch "SHALL
// advertise optional connection_id", and "none of those tools SHALL
// advertise connector_instance_id" (no tool does, here). A missing tool is
// S012's to report.
var s013 = &Check{ID: "S013", Slug: "connection-id-args", Mode: ModeBB, Run: func(t *T) {
	for i, tool := range t.Target.Tools {
		raw := t.Target.ToolsRaw[i]
		if slices.Contains(t.Settings.Surface.ConnectionIDTools, tool.Name) {
			t.Clause(1, func() {
				props, required := probe.InputProperties(raw)
				t.Assert(props["connection_id"] != nil, "tool %s must advertise an optional connection_id", tool.Name)
				t.Assert(!slices.Contains(required, "connection_id"), "tool %s must not require connection_id", tool.Name)
			})
		}
		t.Clause(2, func() {
			var schema any
			_ = json.Unmarshal(raw, &struct {
				InputSchema *any `json:"inputSchema"`
			}{&schema})
			for _, dep := range t.Settings.Surface.DeprecatedArguments {
				t.Assert(!probe.SchemaMentionsKey(schema, dep), "tool %s must not advertise the deprecated alias %s", tool.Name, dep)
			}
		})
	}
}}
