package checks

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// toolDescriptions returns, per tool, its description and every description
// nested in its input schema.
func toolDescriptions(t *Target) map[string][]string {
	out := map[string][]string{}
	for i, tool := range t.Tools {
		texts := []string{tool.Description}
		var schema any
		_ = json.Unmarshal(t.ToolsRaw[i], &struct {
			InputSchema *any `json:"inputSchema"`
		}{&schema})
		collectDescriptions(schema, &texts)
		out[tool.Name] = texts
	}
	return out
}

func collectDescriptions(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if d, ok := x["description"].(string); ok {
			*out = append(*out, d)
		}
		for k, c := range x {
			if k != "description" {
				collectDescriptions(c, out)
			}
		}
	case []any:
		for _, c := range x {
			collectDescriptions(c, out)
		}
	}
}

var sentenceEnd = regexp.MustCompile(`[.!?](\s+|$)`)

// sentences splits prose into trimmed sentences.
func sentences(s string) []string {
	var out []string
	for _, p := range sentenceEnd.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// repeatedGuidance finds sentences of at least minLen characters that appear
// verbatim in the descriptions of at least minTools distinct tools.
func repeatedGuidance(descs map[string][]string, minLen, minTools int) map[string][]string {
	where := map[string]map[string]bool{}
	for tool, texts := range descs {
		for _, text := range texts {
			for _, s := range sentences(text) {
				if len([]rune(s)) < minLen {
					continue
				}
				if where[s] == nil {
					where[s] = map[string]bool{}
				}
				where[s][tool] = true
			}
		}
	}
	out := map[string][]string{}
	for s, tools := range where {
		if len(tools) >= minTools {
			for t := range tools {
				out[s] = append(out[s], t)
			}
			sort.Strings(out[s])
		}
	}
	return out
}

// inputProperties returns a tool's top-level input properties and required list.
func inputProperties(raw json.RawMessage) (map[string]json.RawMessage, []string) {
	var tool struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"inputSchema"`
	}
	_ = json.Unmarshal(raw, &tool)
	return tool.InputSchema.Properties, tool.InputSchema.Required
}

// schemaMentionsKey reports whether key is a property name anywhere in the schema.
func schemaMentionsKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			if _, has := props[key]; has {
				return true
			}
		}
		for _, c := range x {
			if schemaMentionsKey(c, key) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if schemaMentionsKey(c, key) {
				return true
			}
		}
	}
	return false
}

// normalizedTools is the order-insensitive form of a tools list, for
// comparing two surfaces; an invalid list reads as its error.
func normalizedTools(raw []json.RawMessage) string {
	out, err := conformance.NormalizeTools(raw)
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return string(out)
}

func toolNames(t *Target) []string {
	names := make([]string, len(t.Tools))
	for i, tool := range t.Tools {
		names[i] = tool.Name
	}
	sort.Strings(names)
	return names
}

// firstRunes returns the first n characters (runes) of s.
func firstRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
