package fakers

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type filter struct {
	field *Field
	op    string // "" for exact
	value string
}

var filterKeyRe = regexp.MustCompile(`^filter\[([^\[\]]+)\](?:\[([^\[\]]+)\])?$`)

// filterFieldNames are the field names that filter keys name.
func filterFieldNames(r *request) []string {
	var out []string
	for k := range r.q {
		if m := filterKeyRe.FindStringSubmatch(k); m != nil {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// parseFilters reads filter[f]=v and filter[f][op]=v (docs/RS-CONTRACT.md §6.1).
func parseFilters(r *request, stream string) ([]filter, *apiError) {
	var out []filter
	for _, k := range sortedKeys(r.q) {
		if topKey(k) != "filter" {
			continue
		}
		m := filterKeyRe.FindStringSubmatch(k)
		if m == nil {
			return nil, errf("invalid_request", "filter", "filter must be filter[field]=value or filter[field][op]=value")
		}
		f := r.fx.declaredField(stream, m[1])
		if f == nil {
			return nil, errf("unknown_field", "filter", "Unknown field: "+m[1])
		}
		if !r.grantedField(stream, f.Name) {
			return nil, errf("field_not_granted", "filter", "Fields not in grant: "+f.Name)
		}
		switch {
		case m[2] == "" && !f.scalar():
			return nil, errf("invalid_request", "filter", "exact filters need a scalar field; "+f.Name+" is "+f.Type)
		case m[2] != "" && !slices.Contains([]string{"gte", "gt", "lte", "lt"}, m[2]):
			return nil, errf("invalid_request", "filter", "Unsupported filter operator '"+m[2]+"'; use gte, gt, lte or lt")
		case m[2] != "" && !slices.Contains(f.Range, m[2]):
			return nil, errf("invalid_request", "filter", "Range operator '"+m[2]+"' is not declared for field '"+f.Name+"'")
		}
		out = append(out, filter{field: f, op: m[2], value: r.q.Get(k)})
	}
	return out, nil
}

func filterRecords(recs []Record, filters []filter) []Record {
	if len(filters) == 0 {
		return recs
	}
	var out []Record
	for _, rec := range recs {
		ok := true
		for _, f := range filters {
			ok = ok && f.match(rec.Data[f.field.Name])
		}
		if ok {
			out = append(out, rec)
		}
	}
	return out
}

func (f filter) match(v any) bool {
	if v == nil {
		return false
	}
	got := fmt.Sprint(v)
	if f.op == "" {
		return got == f.value
	}
	c := compare(got, f.value, f.field.Type != "string")
	switch f.op {
	case "gte":
		return c >= 0
	case "gt":
		return c > 0
	case "lte":
		return c <= 0
	}
	return c < 0
}

func compare(a, b string, numeric bool) int {
	if numeric {
		fa, ea := strconv.ParseFloat(a, 64)
		fb, eb := strconv.ParseFloat(b, 64)
		if ea == nil && eb == nil {
			switch {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(a, b)
}
