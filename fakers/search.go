package fakers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

var aggregateParams = map[string]bool{"connection_id": true, "connector_id": true, "connector_instance_id": true, "field": true, "filter": true,
	"granularity": true, "group_by": true, "group_by_time": true, "limit": true, "metric": true, "subject_id": true, "time_zone": true}

// aggregate serves count/sum/min/max/count_distinct, optionally grouped
// (contract §9). Time bucketing supports day and month.
func (rs *RS) aggregate(r *request) (int, any) {
	s := rs.fx.Stream(r.params[0])
	if s == nil {
		return 0, errf("stream_not_declared", "", "Stream '"+r.params[0]+"' is not declared")
	}
	for k := range r.q {
		if !aggregateParams[topKey(k)] {
			return 0, errf("invalid_request", "", "Unsupported query parameter: "+k)
		}
		if r.client() && topKey(k) == "filter" {
			return 0, errf("invalid_request", "filter", "filter[...] is not supported for client-token reads in PDPP v0.1")
		}
	}
	metric, field, groupBy, groupTime := r.q.Get("metric"), r.q.Get("field"), r.q.Get("group_by"), r.q.Get("group_by_time")
	declared := func(op, f string) bool { fd := s.Field(f); return fd != nil && contains(fd.Aggregate, op) }
	switch {
	case metric == "":
		return 0, errf("invalid_request", "metric", "metric is required")
	case metric != "count" && metric != "sum" && metric != "min" && metric != "max" && metric != "count_distinct":
		return 0, errf("invalid_request", "metric", "metric must be count, sum, min, max or count_distinct")
	case metric == "count" && field != "":
		return 0, errf("invalid_request", "field", "metric=count takes no field")
	case metric != "count" && !declared(metric, field):
		return 0, errf("invalid_request", "field", fmt.Sprintf("field '%s' is not declared for %s", field, metric))
	case groupBy != "" && groupTime != "":
		return 0, errf("invalid_request", "group_by", "group_by and group_by_time are mutually exclusive")
	case (groupBy != "" || groupTime != "") && metric != "count":
		return 0, errf("invalid_request", "metric", "group_by and group_by_time are only valid with metric=count")
	case groupBy != "" && !declared("group_by", groupBy):
		return 0, errf("invalid_request", "group_by", "field '"+groupBy+"' is not declared for group_by")
	case groupTime != "" && !declared("group_by_time", groupTime):
		return 0, errf("invalid_request", "group_by_time", "field '"+groupTime+"' is not declared for group_by_time")
	case (groupTime != "") != (r.q.Get("granularity") != ""):
		return 0, errf("invalid_request", "granularity", "granularity goes with group_by_time")
	}
	conns, aerr := rs.scope(r, s)
	if aerr != nil {
		return 0, aerr
	}
	if metric == "count_distinct" && len(conns) > 1 {
		return 0, errf("invalid_request", "", "count_distinct across multiple connections is not supported; scope with connection_id")
	}
	var recs []Record
	for _, c := range conns {
		recs = append(recs, s.recordsOf(c.ID, "asc")...)
	}
	body := map[string]any{"object": "aggregation", "stream": s.Name, "metric": metric, "field": nilIfEmpty(field), "group_by": nilIfEmpty(groupBy),
		"group_by_time": nilIfEmpty(groupTime), "granularity": nilIfEmpty(r.q.Get("granularity")), "time_zone": nil, "approximate": false,
		"filtered_record_count": len(recs)}
	if groupBy == "" && groupTime == "" {
		body["value"] = scalarAggregate(metric, field, recs)
		return http.StatusOK, body
	}
	limit := 10
	if v := r.q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return 0, errf("invalid_request", "limit", "limit must be an integer from 1 to 100")
		}
		limit = n
	}
	counts := map[string]int{}
	for _, rec := range recs {
		k := fmt.Sprint(rec.Data[groupBy])
		if groupTime != "" {
			k = bucket(fmt.Sprint(rec.Data[groupTime]), r.q.Get("granularity"))
			body["time_zone"] = "UTC"
		}
		counts[k]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if groupTime != "" {
			return keys[i] < keys[j]
		}
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	groups, other := []any{}, 0
	for i, k := range keys {
		if i < limit {
			groups = append(groups, map[string]any{"key": k, "count": counts[k]})
		} else {
			other += counts[k]
		}
	}
	body["limit"], body["groups"] = limit, groups
	if len(conns) == 1 { // implementation, not spec: omitted under fan-in (contract §15 #12)
		body["other_count"] = other
	}
	return http.StatusOK, body
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func bucket(ts, granularity string) string {
	switch {
	case len(ts) < 10:
		return ""
	case granularity == "month":
		return ts[:7] + "-01"
	case granularity == "year":
		return ts[:4] + "-01-01"
	}
	return ts[:10]
}

func scalarAggregate(metric, field string, recs []Record) any {
	switch metric {
	case "count":
		return len(recs)
	case "count_distinct":
		seen := map[string]bool{}
		for _, r := range recs {
			seen[fmt.Sprint(r.Data[field])] = true
		}
		return len(seen)
	}
	var vals []any
	for _, r := range recs {
		if v, ok := r.Data[field]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	if metric == "sum" {
		sum := 0.0
		for _, v := range vals {
			f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
			sum += f
		}
		return sum
	}
	less := func(a, b any) bool {
		fa, ea := strconv.ParseFloat(fmt.Sprint(a), 64)
		fb, eb := strconv.ParseFloat(fmt.Sprint(b), 64)
		if ea == nil && eb == nil {
			return fa < fb
		}
		return fmt.Sprint(a) < fmt.Sprint(b)
	}
	best := vals[0]
	for _, v := range vals[1:] {
		if (metric == "min") == less(v, best) {
			best = v
		}
	}
	return best
}

var searchParams = map[string]bool{"q": true, "limit": true, "cursor": true, "streams": true, "streams[]": true, "filter": true, "connection_id": true, "connector_instance_id": true}

// search is lexical: case-insensitive term matching over the lexical fields
// of granted streams, round-robin merged across connections (contract §10.1).
func (rs *RS) search(r *request) (int, any) {
	for k := range r.q {
		if !searchParams[k] && topKey(k) != "filter" {
			return 0, errf("invalid_request", k, "Unsupported query parameter: "+k)
		}
		if r.client() && topKey(k) == "filter" {
			return 0, errf("invalid_request", "filter", "filter[...] is not supported for client-token reads in PDPP v0.1")
		}
	}
	q := strings.TrimSpace(r.q.Get("q"))
	if q == "" {
		return 0, errf("invalid_request", "q", "q is required")
	}
	wanted := append(r.q["streams"], r.q["streams[]"]...)
	for _, w := range wanted {
		if r.client() && rs.grantStream(w) == nil {
			return 0, errf("grant_stream_not_allowed", "streams", "Stream '"+w+"' is not in the grant")
		}
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "hits")
	perConn := map[string][]any{}
	var order []string
	for _, s := range rs.fx.Streams {
		if len(wanted) > 0 && !contains(wanted, s.Name) {
			continue
		}
		conns := rs.visibleConnections(r, s)
		if c := r.q.Get("connection_id"); c != "" {
			if conns = filterConn(rs.visibleConnections(r, s), c); len(conns) == 0 && !rs.connectionGranted(r, c) {
				return 0, &apiError{Code: "connection_not_found", Param: "connection_id", Message: "connection_id '" + c + "' is not addressable under this grant."}
			}
		}
		for _, c := range conns {
			if !contains(order, c.ID) {
				order = append(order, c.ID)
			}
			for _, rec := range s.recordsOf(c.ID, "desc") {
				if hit := matchRecord(s, rec, c, q, rs.fx.Connector.Key); hit != nil {
					perConn[c.ID] = append(perConn[c.ID], hit)
				}
			}
		}
	}
	var merged []any
	for i := 0; ; i++ {
		added := false
		for _, c := range order {
			if i < len(perConn[c]) {
				merged, added = append(merged, perConn[c][i]), true
			}
		}
		if !added {
			break
		}
	}
	offset := 0
	if c := r.q.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		var cur struct {
			Off int    `json:"off"`
			Q   string `json:"q"`
		}
		if err != nil || json.Unmarshal(raw, &cur) != nil || cur.Q != q || cur.Off < 0 {
			return 0, errf("invalid_cursor", "", "Malformed or mismatched search cursor")
		}
		offset = cur.Off
	}
	end := min(offset+limit, len(merged))
	page := merged[min(offset, len(merged)):end]
	body := map[string]any{"object": "list", "url": "/v1/search", "has_more": end < len(merged), "data": nonNil(page),
		"meta": map[string]any{"count": len(merged), "count_accuracy": "exact", "warnings": nonNil(warnings),
			"recall": map[string]any{"complete": true, "ranking_scope": "all_matches", "truncated": false, "ranked_candidate_count": len(merged), "sources_searched_count": len(order)}}}
	if end < len(merged) {
		b, _ := json.Marshal(map[string]any{"off": end, "q": q})
		body["next_cursor"] = base64.RawURLEncoding.EncodeToString(b)
	}
	return http.StatusOK, body
}

func (rs *RS) connectionGranted(r *request, id string) bool {
	for _, s := range rs.fx.Streams {
		for _, c := range rs.visibleConnections(r, s) {
			if c.ID == id {
				return true
			}
		}
	}
	return false
}

// matchRecord returns a search hit when every query term occurs in a lexical field.
func matchRecord(s *Stream, rec Record, c Connection, q, connectorKey string) map[string]any {
	terms := strings.Fields(strings.ToLower(q))
	var matched []string
	var snippetField, snippet string
	for _, f := range s.Fields {
		if !f.Lexical {
			continue
		}
		text, _ := rec.Data[f.Name].(string)
		low := strings.ToLower(text)
		all := true
		for _, t := range terms {
			all = all && strings.Contains(low, t)
		}
		if all && text != "" {
			matched = append(matched, f.Name)
			if snippetField == "" {
				snippetField, snippet = f.Name, markSnippet(text, terms)
			}
		}
	}
	if len(matched) == 0 {
		return nil
	}
	hit := map[string]any{"object": "search_result", "stream": s.Name, "record_key": rec.ID, "connector_id": connectorKey,
		"connection_id": c.ID, "connector_instance_id": c.ID, "emitted_at": rec.EmittedAt, "matched_fields": matched,
		"record_url": "/v1/streams/" + s.Name + "/records/" + rec.ID, "snippet": map[string]any{"field": snippetField, "text": snippet},
		"evidence_excerpts": []any{map[string]any{"object": "evidence_excerpt", "field_path": snippetField, "provenance": "lexical_match",
			"preview_text": snippet, "truncated": true, "read": map[string]any{"object": "field_window_read", "method": "GET",
				"route": "/v1/streams/" + s.Name + "/records/" + rec.ID + "/field-window", "stream": s.Name, "record_id": rec.ID,
				"field": snippetField, "connection_id": c.ID}}},
		"score": map[string]any{"kind": "bm25", "value": -1.0, "order": "lower_is_better"}}
	if c.DisplayName != "" {
		hit["display_name"] = c.DisplayName
	}
	for _, k := range []string{"sent_at", "authored_at", "created_at", "updated_at"} {
		if v, ok := rec.Data[k].(string); ok {
			hit["authored_at"] = v
			break
		}
	}
	return hit
}

// markSnippet wraps every term occurrence in <mark> within a window of about
// 48 words around the first match; tags are always balanced.
func markSnippet(text string, terms []string) string {
	words := strings.Fields(text)
	first := 0
	for i, w := range words {
		for _, t := range terms {
			if strings.Contains(strings.ToLower(w), t) {
				first = i
				goto found
			}
		}
	}
found:
	start := max(0, first-16)
	end := min(len(words), start+48)
	out := make([]string, 0, end-start)
	for _, w := range words[start:end] {
		for _, t := range terms {
			if strings.Contains(strings.ToLower(w), t) {
				w = "<mark>" + w + "</mark>"
				break
			}
		}
		out = append(out, w)
	}
	s := strings.Join(out, " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(words) {
		s += "…"
	}
	return s
}
