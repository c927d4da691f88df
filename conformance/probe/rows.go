package probe

import (
	"maps"
	"slices"
	"sort"
)

// Schema rows found by value: a target may shape its schema document any
// way it likes (rows under any key, a stream's connections in a list of
// its own, a map keyed by stream name), so its rows are found by the
// granted stream names, connector keys and connection ids they hold, never
// by key names.

// A ShownRow is where a target's schema document shows one granted row:
// the object that holds the stream's name, with the granted connection ids
// found in it, or else in the nearest object around it that holds any.
type ShownRow struct {
	Truth SchemaRow
	Obj   map[string]any
	// Own are the granted connection ids found in the row's own object;
	// Inherited, when it holds none, those of the nearest enclosing
	// object that holds any (its connector, say).
	Own, Inherited []string
}

// Connections are the connection ids the row shows, its own or inherited.
func (r ShownRow) Connections() []string {
	if len(r.Own) > 0 {
		return r.Own
	}
	return r.Inherited
}

// ShownRows finds, in a schema document of any shape, the objects that
// show the granted rows of truth, by value.
func ShownRows(doc any, truth []SchemaRow) []ShownRow {
	names := map[string]bool{}
	var conns, keys []string
	for _, r := range truth {
		names[r.Name] = true
		conns = append(conns, r.Connections...)
		if r.ConnectorKey != "" {
			keys = append(keys, r.ConnectorKey)
		}
	}
	type cand struct {
		name  string
		obj   map[string]any
		chain []map[string]any // enclosing objects, innermost last
	}
	var cands []cand
	var walk func(v any, chain []map[string]any)
	walk = func(v any, chain []map[string]any) {
		switch x := v.(type) {
		case map[string]any:
			if name := rowName(x, names); name != "" {
				cands = append(cands, cand{name, x, slices.Clone(chain)})
				return // what a row holds is part of it, not rows of its own
			}
			next := append(slices.Clone(chain), x)
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if m, ok := x[k].(map[string]any); ok && names[k] && rowName(m, names) == "" {
					cands = append(cands, cand{k, m, next})
					continue
				}
				walk(x[k], next)
			}
		case []any:
			for _, e := range x {
				walk(e, chain)
			}
		}
	}
	walk(doc, nil)
	// An object naming a stream once over a list of per-source parts (one
	// per connector or connection) shows one row per part.
	var split []cand
	fields := map[string][]string{}
	for _, r := range truth {
		fields[r.Name] = append(fields[r.Name], FieldNames(r)...)
	}
	for _, c := range cands {
		parts := sourceParts(c.obj, conns, keys, fields[c.name])
		if len(parts) < 2 {
			split = append(split, c)
			continue
		}
		for _, p := range parts {
			split = append(split, cand{c.name, p, append(slices.Clone(c.chain), c.obj)})
		}
	}
	var out []ShownRow
	for _, c := range split {
		own := idsIn(c.obj, conns)
		var inherited []string
		for i := len(c.chain) - 1; i >= 0 && len(own) == 0; i-- {
			if ids := idsOutsideRows(c.chain[i], conns, names); len(ids) > 0 {
				inherited = ids
				break
			}
		}
		key := firstIn(c.obj, keys)
		for i := len(c.chain) - 1; i >= 0 && key == ""; i-- {
			key = firstOutsideRows(c.chain[i], keys, names)
		}
		row, ok := matchTruth(truth, c.name, key, append(slices.Clone(own), inherited...))
		if ok {
			out = append(out, ShownRow{Truth: row, Obj: c.obj, Own: own, Inherited: inherited})
		}
	}
	return out
}

// sourceParts are the elements of the longest list of objects in m whose
// elements each name a different source (a connection id or connector
// key) and describe the stream (one of its fields, or, where the grant
// declares none, more than a connection's id and label), or nil.
func sourceParts(m map[string]any, conns, keys, fields []string) []map[string]any {
	var best []map[string]any
	for _, l := range ObjectLists(m) {
		seen := map[string]bool{}
		ok := len(l.Items) >= 2
		for _, it := range l.Items {
			src := firstIn(it, conns) + "\x00" + firstIn(it, keys)
			describes := len(it) > 3
			if len(fields) > 0 {
				describes = slices.ContainsFunc(fields, func(f string) bool { return mentions(it, f) })
			}
			if src == "/" || seen[src] || !describes {
				ok = false
				break
			}
			seen[src] = true
		}
		if ok && len(l.Items) > len(best) {
			best = l.Items
		}
	}
	return best
}

// mentions reports whether v holds s as a key or a string value.
func mentions(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for k, e := range x {
			if k == s || mentions(e, s) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return mentions(e, s) })
	}
	return false
}

// rowName is the granted stream name an object holds as a direct string
// value (its name), or "".
func rowName(m map[string]any, names map[string]bool) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if s, ok := m[k].(string); ok && names[s] {
			return s
		}
	}
	return ""
}

// matchTruth is the granted row of stream name the object shows: the one
// of its connector, else of the connections it shows, else the only one.
func matchTruth(truth []SchemaRow, name, key string, conns []string) (SchemaRow, bool) {
	rows := RowsNamed(truth, name)
	if key != "" {
		rows = slices.DeleteFunc(rows, func(r SchemaRow) bool { return r.ConnectorKey != "" && r.ConnectorKey != key })
	}
	if len(rows) > 1 && len(conns) > 0 {
		if k := slices.DeleteFunc(slices.Clone(rows), func(r SchemaRow) bool {
			return !slices.ContainsFunc(conns, func(c string) bool { return slices.Contains(r.Connections, c) })
		}); len(k) > 0 {
			rows = k
		}
	}
	if len(rows) == 0 {
		return SchemaRow{}, false
	}
	return rows[0], true
}

// idsIn are the ids of want found as string values anywhere in v.
func idsIn(v any, want []string) []string {
	var out []string
	for _, s := range StringValues(v) {
		if slices.Contains(want, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// idsOutsideRows are the ids of want an object holds outside the rows
// nested in it: a connector's own connection list, not its streams'.
func idsOutsideRows(m map[string]any, want []string, names map[string]bool) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if slices.Contains(want, x) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		case map[string]any:
			if rowName(x, names) != "" {
				return
			}
			for k, e := range x {
				if names[k] {
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for k, e := range m {
		if !names[k] {
			walk(e)
		}
	}
	sort.Strings(out)
	return out
}

func firstIn(v any, want []string) string {
	if ids := idsIn(v, want); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

func firstOutsideRows(m map[string]any, want []string, names map[string]bool) string {
	if ids := idsOutsideRows(m, want, names); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// FieldDetail finds per-field detail in a shown row, by the granted field
// names: a field name keying an object or a flag string, or an object
// within the row naming a field beside two or more other keys. Detail for
// two fields or more makes the row a field-capability dump; it returns
// the first such field and its detail as JSON, else "".
func FieldDetail(r ShownRow) (string, string) {
	fields := FieldNames(r.Truth)
	var first, detail string
	n := 0
	for _, f := range fields {
		d := fieldDetailIn(r.Obj, f, true)
		if d == "" {
			continue
		}
		if n++; first == "" {
			first, detail = f, d
		}
	}
	if n < 2 {
		return "", ""
	}
	return first, detail
}

// fieldDetailIn is the JSON of the detail v holds for field f, or "".
func fieldDetailIn(v any, f string, top bool) string {
	switch x := v.(type) {
	case map[string]any:
		if e, ok := x[f]; ok {
			switch ev := e.(type) {
			case map[string]any:
				if len(ev) > 0 {
					return CompactJSON(ev)
				}
			case string:
				if ev != "" {
					return CompactJSON(map[string]any{f: ev})
				}
			}
		}
		if !top && len(x) >= 3 {
			for _, e := range x {
				if s, ok := e.(string); ok && s == f {
					return CompactJSON(x)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if d := fieldDetailIn(x[k], f, false); d != "" {
				return d
			}
		}
	case []any:
		for _, e := range x {
			if d := fieldDetailIn(e, f, false); d != "" {
				return d
			}
		}
	}
	return ""
}
