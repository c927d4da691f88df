package adapter

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"example.com/pdppadapter-t/internal/ojson"
)

// strList accepts either a JSON array of strings or one comma-separated
// string (models frequently send "a,b").
type strList []string

func (s *strList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = nil
		return nil
	}
	var arr []string
	if err := json.Unmarshal(b, &arr); err == nil {
		*s = cleanList(arr)
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = cleanList(strings.Split(one, ","))
		return nil
	}
	return fmt.Errorf("expected an array of strings")
}

func cleanList(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range in {
		x = strings.TrimSpace(x)
		if x == "" || seen[x] {
			continue
		}
		seen[x] = true
		out = append(out, x)
	}
	return out
}

var rangeOps = map[string]bool{"gte": true, "gt": true, "lte": true, "lt": true}

// encodeFilter turns a typed filter object into RS query parameters:
// {"f": v} -> filter[f]=v ; {"f": {"gte": v}} -> filter[f][gte]=v.
func encodeFilter(raw json.RawMessage, q url.Values) *toolError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	v, err := ojson.Decode(raw)
	if err != nil {
		return argErr("filter", "filter must be a JSON object")
	}
	o, ok := v.(*ojson.Object)
	if !ok {
		// A JSON-encoded object passed as a string is accepted too.
		if s, isStr := v.(string); isStr {
			if inner, err := ojson.Decode([]byte(s)); err == nil {
				if io, ok := inner.(*ojson.Object); ok {
					o = io
				}
			}
		}
		if o == nil {
			return argErr("filter", `filter must be an object such as {"label": "inbox", "sent_at": {"gte": "2026-01-01T00:00:00Z"}}`)
		}
	}
	for _, field := range o.Keys {
		if strings.TrimSpace(field) == "" {
			return argErr("filter", "filter field names must be non-empty")
		}
		switch val := o.M[field].(type) {
		case *ojson.Object:
			if val.Len() == 0 {
				return argErr("filter", fmt.Sprintf("filter.%s is an empty object; use a value or {\"gte\": value}", field))
			}
			for _, op := range val.Keys {
				s, ok := ojson.ScalarString(val.M[op])
				if !ok {
					return argErr("filter", fmt.Sprintf("filter.%s.%s must be a string, number or boolean", field, op))
				}
				switch {
				case op == "eq":
					q.Add("filter["+field+"]", s)
				case rangeOps[op]:
					q.Add("filter["+field+"]["+op+"]", s)
				default:
					return argErr("filter", fmt.Sprintf("unsupported filter operator %q on %s; use eq, gte, gt, lte or lt", op, field))
				}
			}
		case []any:
			return argErr("filter", fmt.Sprintf("filter.%s is a list; filters take one value per field (exact) or a range object", field))
		case nil:
			return argErr("filter", fmt.Sprintf("filter.%s is null; null is not filterable", field))
		default:
			s, ok := ojson.ScalarString(val)
			if !ok {
				return argErr("filter", fmt.Sprintf("filter.%s has an unsupported value", field))
			}
			q.Add("filter["+field+"]", s)
		}
	}
	return nil
}

// filterObject decodes a filter for echoing it back in continuations.
func filterObject(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	v, err := ojson.Decode(raw)
	if err != nil {
		return nil
	}
	return v
}

func encodeExpand(expand []string, limits map[string]int, q url.Values) *toolError {
	for _, e := range expand {
		q.Add("expand", e)
	}
	keys := make([]string, 0, len(limits))
	for k := range limits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if limits[k] < 1 {
			return argErr("expand_limit", fmt.Sprintf("expand_limit.%s must be a positive integer", k))
		}
		if !contains(expand, k) {
			return argErr("expand_limit", fmt.Sprintf("expand_limit.%s has no matching expand entry; add %q to expand", k, k))
		}
		q.Set("expand_limit["+k+"]", fmt.Sprint(limits[k]))
	}
	return nil
}

// callLine renders "tool {json args}" for model-visible continuations.
func callLine(tool string, args *ojson.Object) string {
	return tool + " " + compactJSON(args)
}

// callObj is a structured continuation {"tool": …, "arguments": …}.
func callObj(tool string, args any) *ojson.Object {
	o := ojson.NewObject()
	o.Set("tool", tool)
	o.Set("arguments", args)
	return o
}
