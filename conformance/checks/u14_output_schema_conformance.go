package checks

import (
	"encoding/json"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// U14: when a tool declares an outputSchema, "the structuredContent
// validates against that schema" (JSON Schema 2020-12), and "error results
// that carry structuredContent validate too, or carry none". Judged over a
// success and a provoked error of every tool that declares one.
var u14 = &Check{ID: "U14", Slug: "output-schema-conformance", Mode: ModeBB, Run: func(t *T) {
	declared := declaredOutputSchemas(t.Target)
	if len(declared) == 0 {
		t.NotApplicable("no tool declares an outputSchema")
	}
	names := make([]string, 0, len(declared))
	for name, s := range declared {
		names = append(names, name)
		if s.err != nil {
			t.Clause(1, func() { t.Fail("tool %s declares an outputSchema that is not a valid JSON Schema: %v", name, s.err) })
		}
	}
	sort.Strings(names)
	for _, c := range append(probe.SampleCalls(t), probe.RefusedCalls(t)...) {
		s, ok := declared[c.Tool]
		if !ok || s.err != nil || c.RPCError != nil {
			continue // no schema to hold it to, or no tool result at all
		}
		sc, has := structuredContentOf(c)
		switch {
		case !c.IsError() && has:
			t.Clause(1, func() {
				err := s.schema.Validate(sc)
				t.Assert(err == nil, "%s's structuredContent does not validate against its outputSchema: %v: %s", c.Tool, err, clipText(probe.CompactJSON(sc), 300))
			})
		case c.IsError():
			t.Clause(2, func() {
				if !has {
					t.Assert(true, "an error result without structuredContent has nothing to break")
					return
				}
				err := s.schema.Validate(sc)
				t.Assert(err == nil, "%s's error result carries structuredContent that does not validate against its outputSchema (a validating client rejects the whole result): %v: %s",
					c.Tool, err, clipText(probe.CompactJSON(sc), 300))
			})
		}
	}
	t.Record("tools with an outputSchema", names)
}}

// A declaredSchema is one tool's outputSchema, resolved for validation.
type declaredSchema struct {
	schema *jsonschema.Resolved
	err    error
}

// declaredOutputSchemas are the outputSchemas tools/list declares, by tool.
func declaredOutputSchemas(t *Target) map[string]declaredSchema {
	out := map[string]declaredSchema{}
	for i, tool := range t.Tools {
		var raw struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if json.Unmarshal(t.ToolsRaw[i], &raw) != nil || len(raw.OutputSchema) == 0 || string(raw.OutputSchema) == "null" {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw.OutputSchema, &s); err != nil {
			out[tool.Name] = declaredSchema{err: err}
			continue
		}
		r, err := s.Resolve(nil)
		out[tool.Name] = declaredSchema{schema: r, err: err}
	}
	return out
}

// structuredContentOf is a result's structuredContent as received, any
// JSON value, and whether it carries one.
func structuredContentOf(c *Call) (any, bool) {
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if c.Raw == nil {
		sc := c.Result.StructuredContent
		return probe.JSONValue(sc), sc != nil
	}
	if json.Unmarshal(c.Raw, &r) != nil || len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null" {
		return nil, false
	}
	var v any
	_ = json.Unmarshal(r.StructuredContent, &v)
	return v, true
}
