package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// U16: tool schemas follow the MCP Inspector's --strict portability rules
// (clients/cli schemaLint in @modelcontextprotocol/inspector 2.12): clause 1
// is its type-union rule, clause 2 its untyped-schema and boolean-schema
// rules, clause 3 its remote-ref rule. Judged per tool and schema, so a run
// names every offending tool.
var u16 = &Check{ID: "U16", Slug: "schema-portability", Mode: ModeBB, Run: func(t *T) {
	if len(t.Target.Tools) == 0 {
		t.NotApplicable("the target lists no tools")
	}
	for i, tool := range t.Target.Tools {
		var raw map[string]json.RawMessage
		_ = json.Unmarshal(t.Target.ToolsRaw[i], &raw)
		for _, kind := range []string{"inputSchema", "outputSchema"} {
			var schema any
			if len(raw[kind]) == 0 || json.Unmarshal(raw[kind], &schema) != nil || schema == nil {
				continue
			}
			found := lintPortability(schema)
			for clause := 1; clause <= 3; clause++ {
				t.Clause(clause, func() {
					t.Assert(len(found[clause]) == 0, "tool %s %s: %s", tool.Name, kind, strings.Join(found[clause], "; "))
				})
			}
		}
	}
}}

// Where a schema may stand, as the Inspector walks them.
var (
	schemaMapKeywords   = []string{"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
	schemaListKeywords  = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaValueKeywords = []string{"items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties",
		"unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema"}
	booleanValuedKeywords = map[string]bool{"additionalProperties": true, "unevaluatedProperties": true, "additionalItems": true, "unevaluatedItems": true}
	// if/then/else are absent: they constrain only as a pair.
	constrainingKeywords = setOf("type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema", "maxItems", "minItems",
		"uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
		"allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems", "properties",
		"patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies",
		"$ref", "$dynamicRef", "$recursiveRef")
	identifierKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
)

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// lintPortability returns, by U16 clause, where schema breaks it.
func lintPortability(schema any) map[int][]string {
	found := map[int][]string{}
	embeddedIDs := declaresID(schema, 0)
	var walk func(node any, path, keyword string, depth int)
	walk = func(node any, path, keyword string, depth int) {
		if depth > 64 {
			return
		}
		at := path
		if at == "" {
			at = "(root)"
		}
		if b, ok := node.(bool); ok {
			if keyword != "" && !booleanValuedKeywords[keyword] {
				found[2] = append(found[2], fmt.Sprintf("%s is a bare %t where a schema object is expected", at, b))
			}
			return
		}
		m, ok := node.(map[string]any)
		if !ok {
			return
		}
		if types, ok := m["type"].([]any); ok && len(types) > 0 {
			found[1] = append(found[1], fmt.Sprintf("%s has a type array %s", at, probe.CompactJSON(types)))
		}
		if ref, ok := m["$ref"].(string); ok && ref != "" && !strings.HasPrefix(ref, "#") && !embeddedIDs {
			found[3] = append(found[3], fmt.Sprintf("%s refers outside the document (%q)", at, ref))
		}
		if keyword != "not" && !constrains(m) {
			found[2] = append(found[2], fmt.Sprintf("%s has no validation keyword", at))
		}
		eachSubschema(m, path, func(child any, childPath, childKeyword string) { walk(child, childPath, childKeyword, depth+1) })
	}
	walk(schema, "", "", 0)
	return found
}

func constrains(m map[string]any) bool {
	for k := range m {
		if constrainingKeywords[k] {
			return true
		}
	}
	_, then := m["then"]
	_, els := m["else"]
	_, cond := m["if"]
	return cond && (then || els)
}

func declaresID(node any, depth int) bool {
	m, ok := node.(map[string]any)
	if !ok || depth > 64 {
		return false
	}
	if id, _ := m["$id"].(string); id != "" {
		return true
	}
	found := false
	eachSubschema(m, "", func(child any, _, _ string) { found = found || declaresID(child, depth+1) })
	return found
}

// eachSubschema visits m's subschemas in a stable order.
func eachSubschema(m map[string]any, path string, visit func(child any, path, keyword string)) {
	for _, k := range schemaMapKeywords {
		sub, _ := m[k].(map[string]any)
		names := make([]string, 0, len(sub))
		for name := range sub {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			visit(sub[name], schemaPath(schemaPath(path, k), name), k)
		}
	}
	for _, k := range schemaListKeywords {
		list, _ := m[k].([]any)
		for i, sub := range list {
			visit(sub, fmt.Sprintf("%s[%d]", schemaPath(path, k), i), k)
		}
	}
	for _, k := range schemaValueKeywords {
		sub, ok := m[k]
		if !ok {
			continue
		}
		if list, isList := sub.([]any); isList && k == "items" {
			for i, item := range list {
				visit(item, fmt.Sprintf("%s[%d]", schemaPath(path, k), i), k)
			}
			continue
		}
		visit(sub, schemaPath(path, k), k)
	}
}

func schemaPath(parent, key string) string {
	if !identifierKey.MatchString(key) {
		return fmt.Sprintf("%s[%q]", parent, key)
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}
