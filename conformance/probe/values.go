package probe

import (
	"encoding/json"
	"slices"
	"strings"
)

// Small readers of values that the probes and checks share.

// FirstNonEmpty is the first of ss that is not "".
func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// StringValues are the strings anywhere in v.
func StringValues(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case map[string]any:
		for _, e := range x {
			out = append(out, StringValues(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, StringValues(e)...)
		}
	}
	return out
}

// ShownIn reports whether raw JSON or text holds s, escaped either way.
func ShownIn(raw, s string) bool {
	b, _ := json.Marshal(s)
	var w strings.Builder
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.Contains(raw, s) || strings.Contains(raw, strings.Trim(string(b), `"`)) || strings.Contains(raw, strings.Trim(strings.TrimSpace(w.String()), `"`))
}

// CompactJSON is v as one line of JSON, HTML left unescaped.
func CompactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// SortedCopy is ss sorted, without repeats, never nil.
func SortedCopy(ss []string) []string {
	out := slices.Compact(slices.Sorted(slices.Values(ss)))
	if out == nil {
		return []string{}
	}
	return out
}

// Entities undoes the HTML entities a target may escape text with.
var Entities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`)

// LongestString is the length in runes of the longest text value of a
// record (binary values aside).
func LongestString(data map[string]any) int {
	n := 0
	for _, v := range data {
		if s, ok := v.(string); ok && !LooksBinary(s) && len([]rune(s)) > n {
			n = len([]rune(s))
		}
	}
	return n
}

// LongestField is the field of a record holding its longest text value
// (binary values aside).
func LongestField(data map[string]any) string {
	best, n := "", 0
	for k, v := range data {
		if s, ok := v.(string); ok && !LooksBinary(s) && len([]rune(s)) > n {
			best, n = k, len([]rune(s))
		}
	}
	return best
}

// MapValues lists a map's values.
func MapValues(m map[string]any) []any {
	out := make([]any, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// JSONValue is v as encoding/json decodes it, for comparing by value.
func JSONValue(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// StringList reads a JSON array of strings (or one string).
func StringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
