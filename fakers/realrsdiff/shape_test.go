package realrsdiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// A shape is a JSON body's key structure: every path with the JSON types
// found there. Array elements share the path `[]`; the keys of maps keyed
// by field names (field_capabilities, schema properties) and of
// error.details' per-field maps share `*`; a record's data is opaque (the
// two sides serve different connectors' fields).
type shape map[string]map[string]bool

// opaqueObjects are keys whose object value is compared as "object" only.
var opaqueObjects = map[string]bool{"data": true}

// fieldKeyed are keys whose object value maps field names to like values.
var fieldKeyed = map[string]bool{"field_capabilities": true, "properties": true}

func shapeOf(v any) shape {
	s := shape{}
	s.walk("", "", v)
	return s
}

func (s shape) add(path, typ string) {
	if s[path] == nil {
		s[path] = map[string]bool{}
	}
	s[path][typ] = true
}

func (s shape) walk(path, key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		s.add(path, "object")
		if opaqueObjects[key] {
			return
		}
		for k, e := range x {
			name := k
			if fieldKeyed[key] {
				name = "*"
			}
			s.walk(path+"."+name, k, e)
		}
	case []any:
		s.add(path, "array")
		for _, e := range x {
			s.walk(path+"[]", "", e)
		}
	case string:
		s.add(path, "string")
	case float64, json.Number:
		s.add(path, "number")
	case bool:
		s.add(path, "bool")
	case nil:
		s.add(path, "null")
	default:
		s.add(path, fmt.Sprintf("%T", v))
	}
}

// diff lists how got (the fixture) differs from want (the reference RS):
// paths only one side has, and paths whose non-null types differ. A null
// matches any type: whether a value is set depends on the data.
func diff(want, got shape, ignore []string) []string {
	ignored := func(p string) bool {
		for _, pre := range ignore {
			if p == pre || strings.HasPrefix(p, pre+".") || strings.HasPrefix(p, pre+"[]") {
				return true
			}
		}
		return false
	}
	var out []string
	for p, wt := range want {
		if ignored(p) {
			continue
		}
		gt, ok := got[p]
		if !ok {
			out = append(out, fmt.Sprintf("missing %s (%s)", p, types(wt)))
			continue
		}
		if a, b := nonNull(wt), nonNull(gt); a != "" && b != "" && a != b {
			out = append(out, fmt.Sprintf("type of %s: %s, want %s", p, b, a))
		}
	}
	for p, gt := range got {
		if _, ok := want[p]; !ok && !ignored(p) {
			out = append(out, fmt.Sprintf("extra %s (%s)", p, types(gt)))
		}
	}
	sort.Strings(out)
	return out
}

func types(m map[string]bool) string {
	var ts []string
	for t := range m {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return strings.Join(ts, "|")
}

func nonNull(m map[string]bool) string {
	c := map[string]bool{}
	for t := range m {
		if t != "null" {
			c[t] = true
		}
	}
	return types(c)
}

func TestShapeComparesStructureNotValues(t *testing.T) {
	parse := func(s string) shape {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return shapeOf(v)
	}
	a := parse(`{"data":[{"id":"1","data":{"x":1}}],"field_capabilities":{"a":"declared"},"next":null}`)
	b := parse(`{"data":[{"id":"2","data":{"y":"z"}},{"id":"3","data":{}}],"field_capabilities":{"b":"declared","c":"declared"},"next":"c1"}`)
	if d := diff(a, b, nil); len(d) != 0 {
		t.Errorf("same structure, different values: %v", d)
	}
	c := parse(`{"data":[{"id":1}],"extra":true}`)
	d := diff(a, c, []string{".next"})
	want := []string{"extra .extra (bool)", "missing .data[].data (object)", "missing .field_capabilities (object)", "missing .field_capabilities.* (string)", "type of .data[].id: number, want string"}
	if strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}
