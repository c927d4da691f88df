package fakers

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

var searchParams = map[string]bool{"q": true, "limit": true, "cursor": true, "streams": true, "streams[]": true, "connection_id": true, "connector_instance_id": true}

// search is lexical search (contract §10.1): case-insensitive term matching
// over the granted lexical fields, merged round-robin across connections.
// The semantic and hybrid routes are not configured, so they fall through to
// the framework 404, as on an RS without an embedding backend.
func (rs *RS) search(r *request) (int, any) {
	if e := rejectClientQueries(r); e != nil {
		return 0, e
	}
	for k := range r.q {
		if !searchParams[k] && topKey(k) != "filter" {
			return 0, errf("invalid_request", k, "Unsupported query parameter: "+k)
		}
	}
	q := strings.TrimSpace(r.q.Get("q"))
	if q == "" {
		return 0, errf("invalid_request", "q", "q is required")
	}
	wanted := append(append([]string(nil), r.q["streams"]...), r.q["streams[]"]...)
	for _, w := range wanted {
		if r.client() && r.fx.grantStream(w) == nil {
			return 0, errf("grant_stream_not_allowed", "streams", "Stream '"+w+"' is not in the grant")
		}
	}
	conn := connectionParam(r)
	if conn != "" && r.client() && !grantedConnection(r, conn) {
		return 0, errf("connection_not_found", "connection_id", "connection_id '"+conn+"' is not addressable under this grant.")
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "hits")
	perConn := map[string][]any{}
	var order []string
	seen := map[string]bool{}
	for _, s := range r.fx.Streams {
		if seen[s.Name] || (len(wanted) > 0 && !contains(wanted, s.Name)) {
			continue
		}
		seen[s.Name] = true
		for _, x := range r.slices(s.Name, conn) {
			if !contains(order, x.conn.ID) {
				order = append(order, x.conn.ID)
			}
			granted := []string(nil)
			if r.client() {
				granted = r.fx.grantStream(s.Name).Fields
			}
			for _, rec := range x.s.recordsOf(x.conn.ID, "desc") {
				if hit := matchRecord(x, rec, q, granted); hit != nil {
					perConn[x.conn.ID] = append(perConn[x.conn.ID], hit)
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
			Off  int    `json:"off"`
			Snap string `json:"snap"`
		}
		if err != nil || json.Unmarshal(raw, &cur) != nil || cur.Snap != snapshotOf(q, conn, wanted) || cur.Off < 0 {
			return 0, errf("invalid_cursor", "", "Malformed, expired or mismatched search cursor")
		}
		offset = cur.Off
	}
	end := min(offset+limit, len(merged))
	body := map[string]any{"object": "list", "url": "/v1/search", "has_more": end < len(merged), "data": nonNil(merged[min(offset, len(merged)):end]),
		"meta": map[string]any{"count": len(merged), "count_accuracy": "exact", "warnings": nonNil(warnings),
			"recall": map[string]any{"complete": true, "ranking_scope": "all_matches", "truncated": false, "ranked_candidate_count": len(merged), "sources_searched_count": len(order)}}}
	if end < len(merged) {
		b, _ := json.Marshal(map[string]any{"off": end, "snap": snapshotOf(q, conn, wanted)})
		body["next_cursor"] = base64.RawURLEncoding.EncodeToString(b)
	}
	return http.StatusOK, body
}

func snapshotOf(q, conn string, streams []string) string {
	return "snap_" + base64.RawURLEncoding.EncodeToString([]byte(q+"\x00"+conn+"\x00"+strings.Join(streams, ",")))
}

// matchRecord returns a hit when every term occurs in one granted lexical
// field. A match on a metadata-role field proves no body text, so such a hit
// carries no snippet and no evidence.
func matchRecord(x slice, rec Record, q string, granted []string) map[string]any {
	terms := strings.Fields(strings.ToLower(q))
	var matched []string
	var snippetField, snippet string
	for _, f := range x.s.Fields {
		if !f.Lexical || (granted != nil && !contains(granted, f.Name)) {
			continue
		}
		text, _ := rec.Data[f.Name].(string)
		low := strings.ToLower(text)
		all := text != ""
		for _, t := range terms {
			all = all && strings.Contains(low, t)
		}
		if !all {
			continue
		}
		matched = append(matched, f.Name)
		if snippetField == "" && f.Role != "metadata" {
			snippetField, snippet = f.Name, markSnippet(text, terms)
		}
	}
	if len(matched) == 0 {
		return nil
	}
	hit := map[string]any{"object": "search_result", "stream": x.s.Name, "record_key": rec.ID, "connector_id": x.key,
		"connection_id": x.conn.ID, "connector_instance_id": x.conn.ID, "emitted_at": rec.EmittedAt, "matched_fields": matched,
		"record_url": "/v1/streams/" + x.s.Name + "/records/" + rec.ID, "score": map[string]any{"kind": "bm25", "value": -1.0, "order": "lower_is_better"}}
	if snippetField != "" {
		hit["snippet"] = map[string]any{"field": snippetField, "text": snippet}
		hit["evidence_excerpts"] = []any{map[string]any{"object": "evidence_excerpt", "field_path": snippetField, "provenance": "lexical_match",
			"preview_text": snippet, "truncated": true, "read": map[string]any{"object": "field_window_read", "method": "GET",
				"route": "/v1/streams/" + x.s.Name + "/records/" + rec.ID + "/field-window", "stream": x.s.Name, "record_id": rec.ID,
				"field": snippetField, "connection_id": x.conn.ID}}}
	}
	if x.conn.DisplayName != "" {
		hit["display_name"] = x.conn.DisplayName
	}
	for _, k := range []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"} {
		if v, ok := rec.Data[k].(string); ok {
			hit["authored_at"] = v
			break
		}
	}
	return hit
}

// markSnippet wraps term occurrences in <mark> within about 48 words around
// the first match; the tags are always balanced.
func markSnippet(text string, terms []string) string {
	words := strings.Fields(text)
	hasTerm := func(w string) bool {
		for _, t := range terms {
			if strings.Contains(strings.ToLower(w), t) {
				return true
			}
		}
		return false
	}
	first := 0
	for i, w := range words {
		if hasTerm(w) {
			first = i
			break
		}
	}
	start := max(0, first-16)
	end := min(len(words), start+48)
	out := make([]string, 0, end-start)
	for _, w := range words[start:end] {
		if hasTerm(w) {
			w = "<mark>" + w + "</mark>"
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
