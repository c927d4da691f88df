package probe

import (
	"slices"
	"sort"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// Containers found by what they hold, not by their key (issue 27, cause 3):
// seed 003 makes fetch the one exception to the PDPP list envelope, so a
// target may keep search hits and records under any key, nested or not.

// An ObjectList is one array of JSON objects in a structured answer.
type ObjectList struct {
	Path  string           // where it sits, as .key[i]
	Items []map[string]any // its elements
}

// ObjectLists returns the arrays of objects in v, depth first with keys
// sorted, outside any error object. It does not look inside the elements
// of a list it returns: a record's expanded relations or a hit's evidence
// are part of that record or hit, not lists of their own.
func ObjectLists(v any) []ObjectList {
	var out []ObjectList
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k != "error" {
					walk(x[k], path+"."+k)
				}
			}
		case []any:
			var items []map[string]any
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					items = append(items, m)
				}
			}
			if len(items) > 0 && len(items) == len(x) {
				out = append(out, ObjectList{path, items})
				return
			}
			for i, e := range x {
				walk(e, path+"["+string(rune('0'+i%10))+"]")
			}
		}
	}
	walk(v, "")
	return out
}

// ListWhere is the longest list whose elements mostly satisfy keep (the
// first such list on a tie), or nil.
func ListWhere(v any, keep func(map[string]any) bool) []map[string]any {
	var best []map[string]any
	for _, l := range ObjectLists(v) {
		n := 0
		for _, it := range l.Items {
			if keep(it) {
				n++
			}
		}
		if 2*n > len(l.Items) && len(l.Items) > len(best) {
			best = l.Items
		}
	}
	return best
}

// ReadToolNames are the read tools the seeds name; an object holding one as a
// value is a continuation, or describes one, and so is no record.
var ReadToolNames = []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}

// HoldsCall reports whether v holds, at any depth, a string value naming
// a read tool: a continuation descriptor.
func HoldsCall(v any) bool {
	switch x := v.(type) {
	case string:
		return slices.Contains(ReadToolNames, x)
	case map[string]any:
		for _, e := range x {
			if HoldsCall(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if HoldsCall(e) {
				return true
			}
		}
	}
	return false
}

// LooksLikeRecord: an object of three keys or more that carries no
// Continuation (the omitted-field descriptors beside a page do) and no
// page state.
func LooksLikeRecord(m map[string]any) bool {
	if len(m) < 3 || HoldsCall(m) {
		return false
	}
	_, warning := m["code"]
	return !warning || m["message"] == nil
}

// LooksLikeHit: a search hit carries an id, a title, a snippet or its
// Source identity (seed 001: "each hit SHALL include connection_id,
// connector_key, …"); S024 judges which of them it lacks.
func LooksLikeHit(m map[string]any) bool {
	for _, k := range []string{"connection_id", "connector_key", "id", "title", "snippet"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// HitList is a search result's list of hits: the list of objects that
// holds hits, under whatever key (a hit's own evidence list is part of
// the hit).
func HitList(c *conformance.Call) []any {
	if list, named := c.Container(); named {
		return list
	}
	var out []any
	for _, m := range ListWhere(c.Structured(), LooksLikeHit) {
		out = append(out, m)
	}
	return out
}
