package checks

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
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
				declared := conformance.Shown("the argument names "+tool.Name+" declares", strings.Join(slices.Sorted(maps.Keys(props)), "\n"))
				t.AssertWith(props["connection_id"] != nil, func() (conformance.Witness, error) {
					return conformance.Absent(read.Text("connection_id"), declared)
				}, "tool %s must advertise an optional connection_id", tool.Name)
				t.AssertWith(!slices.Contains(required, "connection_id"), func() (conformance.Witness, error) {
					return conformance.Present("connection_id", conformance.Shown("the required arguments of "+tool.Name, strings.Join(required, "\n")))
				}, "tool %s must not require connection_id", tool.Name)
			})
		}
		t.Clause(2, func() {
			var schema any
			_ = json.Unmarshal(raw, &struct {
				InputSchema *any `json:"inputSchema"`
			}{&schema})
			for _, dep := range t.Settings.Surface.DeprecatedArguments {
				t.AssertWith(!probe.SchemaMentionsKey(schema, dep), func() (conformance.Witness, error) {
					return conformance.Present(dep, conformance.Shown("the inputSchema of "+tool.Name, string(raw)))
				}, "tool %s must not advertise the deprecated alias %s", tool.Name, dep)
			}
		})
	}
}}
