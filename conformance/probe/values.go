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
