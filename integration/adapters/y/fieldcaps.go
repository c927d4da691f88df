package main

import "strings"

// fieldCap is a normalised view of one field capability entry, parsed either from
// the full capability object or from the compact flag string of view=compact.
type fieldCap struct {
	Name    string   `json:"-"`
	Type    string   `json:"type,omitempty"`
	Role    string   `json:"role,omitempty"`
	Granted bool     `json:"granted"`
	Eq      bool     `json:"exact_filter,omitempty"`
	Range   []string `json:"range_ops,omitempty"`
	Lex     bool     `json:"lexical_search,omitempty"`
	Sem     bool     `json:"semantic_search,omitempty"`
	Aggs    []string `json:"aggregate,omitempty"`
	Notes   []string `json:"unusable,omitempty"`
}

func usable(v any) (declared, ok bool, reason string) {
	m := mapOf(v)
	if m == nil {
		if b, isB := v.(bool); isB {
			return b, b, ""
		}
		return false, false, ""
	}
	d, _ := m["declared"].(bool)
	u, _ := m["usable"].(bool)
	return d, u, str(m["reason"])
}

func parseFieldCap(name string, v any) fieldCap {
	fc := fieldCap{Name: name, Granted: true}
	if s, ok := v.(string); ok { // compact flag string
		for _, tok := range strings.Split(s, ",") {
			k, val, _ := strings.Cut(tok, "=")
			switch {
			case k == "t":
				fc.Type = val
			case k == "role":
				fc.Role = val
			case k == "g" && val == "false":
				fc.Granted = false
			case strings.HasPrefix(val, "unusable"):
				fc.Notes = append(fc.Notes, k+":"+strings.TrimPrefix(strings.TrimPrefix(val, "unusable"), ":"))
			case k == "eq":
				fc.Eq = true
			case k == "r":
				if val == "" {
					fc.Range = []string{"gte", "gt", "lte", "lt"}
				} else {
					fc.Range = strings.Split(val, "|")
				}
			case k == "lex":
				fc.Lex = true
			case k == "sem":
				fc.Sem = true
			case k == "a":
				fc.Aggs = strings.Split(val, "|")
			}
		}
		return fc
	}
	m := mapOf(v)
	fc.Type = str(m["type"])
	if fc.Type == "" {
		sch := mapOf(m["schema"])
		fc.Type = str(sch["type"])
		if l := listOf(sch["type"]); l != nil {
			var ts []string
			for _, x := range l {
				ts = append(ts, str(x))
			}
			fc.Type = strings.Join(ts, "|")
		}
		if f := str(sch["format"]); f != "" {
			fc.Type += "(" + f + ")"
		}
	}
	fc.Role = str(m["role"])
	if g, ok := m["granted"].(bool); ok {
		fc.Granted = g
	}
	note := func(flag string, d, u bool, reason string) {
		if d && !u {
			fc.Notes = append(fc.Notes, flag+":"+reason)
		}
	}
	d, u, r := usable(m["exact_filter"])
	fc.Eq = u
	note("eq", d, u, r)
	if rf := mapOf(m["range_filter"]); rf != nil {
		d, u, r = usable(rf)
		if u {
			for _, o := range listOf(rf["operators"]) {
				fc.Range = append(fc.Range, str(o))
			}
			if len(fc.Range) == 0 {
				fc.Range = []string{"gte", "gt", "lte", "lt"}
			}
		}
		note("range", d, u, r)
	}
	d, u, r = usable(m["lexical_search"])
	fc.Lex = u
	note("lexical", d, u, r)
	d, u, r = usable(m["semantic_search"])
	fc.Sem = u
	note("semantic", d, u, r)
	agg := mapOf(m["aggregation"])
	for _, op := range []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"} {
		d, u, r = usable(agg[op])
		if u {
			fc.Aggs = append(fc.Aggs, op)
		}
		note(op, d, u, r)
	}
	return fc
}
