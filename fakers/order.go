package fakers

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
)

func orderParam(r *request, s *Stream) (string, *apiError) {
	order := cmp.Or(strings.ToLower(r.q.Get("order")), "desc")
	if order != "asc" && order != "desc" {
		return "", errf("invalid_request", "order", "order must be asc or desc").asReference("", "order must be asc or desc")
	}
	if srt := r.q.Get("sort"); srt != "" {
		parts := strings.Split(srt, ",")
		sign := ""
		for _, p := range parts {
			if f := strings.TrimLeft(p, "+-"); f != s.CursorField {
				return "", errf("invalid_sort", "sort", "Only the cursor field '"+s.CursorField+"' is sortable").
					asReference("sort", "Sort field '"+f+"' is not advertised as sortable; check /v1/schema for the canonical sort vocabulary.")
			}
			d := "asc"
			if strings.HasPrefix(p, "-") {
				d = "desc"
			}
			if sign != "" && sign != d {
				return "", errf("invalid_sort", "sort", "Conflicting sort directions")
			}
			sign = d
		}
		if r.q.Get("order") != "" && order != sign {
			return "", errf("invalid_sort", "sort", "sort and order disagree").asReference("sort",
				"sort and order disagree: sort resolves to "+strings.ToUpper(sign)+", order="+order+". Send only canonical `sort`.")
		}
		order = sign
	}
	return order, nil
}

// recordsOf returns one connection's records ordered by (cursor field, id).
// sortedRecords is recordsOf, cached until the next Update. Callers must
// not modify the slice.
func (rs *RS) sortedRecords(s *Stream, conn, order string) []Record {
	key := sortKey{s.Connector, s.Name, conn, order}
	if v, ok := rs.sortCache.Load(key); ok {
		return v.([]Record)
	}
	recs := s.recordsOf(conn, order)
	rs.sortCache.Store(key, recs)
	return recs
}

type sortKey struct{ connector, stream, conn, order string }

func (s *Stream) recordsOf(conn, order string) []Record {
	type keyed struct {
		rec     Record
		key     string
		missing bool
	}
	var ks []keyed
	for _, r := range s.Records {
		if r.ConnectionID == conn {
			v, ok := r.Data[s.CursorField]
			ks = append(ks, keyed{rec: r, key: fmt.Sprint(v), missing: !ok || v == nil})
		}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.missing != b.missing { // missing cursor values after present ones, either way
			return b.missing
		}
		x, y := a.key, b.key
		if x == y {
			x, y = a.rec.ID, b.rec.ID
		}
		if order == "asc" {
			return x < y
		}
		return x > y
	})
	out := make([]Record, len(ks))
	for i := range ks {
		out[i] = ks[i].rec
	}
	return out
}
