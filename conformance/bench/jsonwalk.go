package bench

import (
	"maps"
	"slices"
)

// Helpers that read decoded JSON answers by value.

// dig follows object keys and array indexes, or returns nil.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
