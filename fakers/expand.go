package fakers

import (
	"fmt"
	"strconv"
	"strings"
)

type expansion struct {
	rel   Relationship
	limit int
}

// parseExpand validates expand and expand_limit (docs/RS-CONTRACT.md §6.1): unknown or
// nested relations, limits without expand, and limits over max are rejected.
func parseExpand(r *request, s *Stream) ([]expansion, *apiError) {
	names := append(append([]string(nil), r.q["expand"]...), r.q["expand[]"]...)
	var out []expansion
	for _, n := range names {
		var rel *Relationship
		for i := range s.Relationships {
			if s.Relationships[i].Name == n {
				rel = &s.Relationships[i]
			}
		}
		if strings.Contains(n, ".") || rel == nil {
			return nil, errf("invalid_expand", "expand", "Relation '"+n+"' is not expandable on stream '"+s.Name+"'")
		}
		if r.client() && r.grantStream(rel.Stream) == nil {
			return nil, errf("insufficient_scope", "expand", "Relation '"+n+"' targets stream '"+rel.Stream+"', which the grant does not cover")
		}
		out = append(out, expansion{rel: *rel, limit: rel.DefaultLimit})
	}
	for k, v := range r.q {
		rel, ok := strings.CutPrefix(k, "expand_limit[")
		if !ok {
			if k == "expand_limit" {
				return nil, errf("invalid_expand", "expand_limit", "expand_limit must be expand_limit[relation]=N")
			}
			continue
		}
		rel = strings.TrimSuffix(rel, "]")
		n, err := strconv.Atoi(v[0])
		idx := -1
		for i := range out {
			if out[i].rel.Name == rel {
				idx = i
			}
		}
		switch {
		case idx < 0:
			return nil, errf("invalid_expand", "expand_limit", "expand_limit["+rel+"] needs expand="+rel)
		case err != nil || n < 1:
			return nil, errf("invalid_expand", "expand_limit", "expand_limit["+rel+"] must be a positive integer")
		case out[idx].rel.Cardinality != "has_many":
			return nil, errf("invalid_expand", "expand_limit", "expand_limit applies to has_many relations only")
		case n > out[idx].rel.MaxLimit:
			return nil, errf("invalid_expand", "expand_limit", fmt.Sprintf("expand_limit[%s] exceeds max_limit %d", rel, out[idx].rel.MaxLimit))
		}
		out[idx].limit = n
	}
	return out, nil
}

func expandRecord(r *request, x slice, rec Record, exps []expansion) map[string]any {
	out := map[string]any{}
	for _, e := range exps {
		var data []any
		more := false
		for _, t := range r.slices(e.rel.Stream, x.conn.ID) {
			for _, child := range r.rs.sortedRecords(t.s, x.conn.ID, "asc") {
				if fmt.Sprint(child.Data[e.rel.ForeignKey]) != rec.ID {
					continue
				}
				if len(data) == e.limit {
					more = true
					break
				}
				data = append(data, r.recordJSON(child, t, nil))
			}
		}
		out[e.rel.Name] = map[string]any{"object": "list", "data": nonNil(data), "has_more": more}
	}
	return out
}
