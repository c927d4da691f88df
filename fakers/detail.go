package fakers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

type located struct {
	x   slice
	rec Record
}

// ambiguity builds the 409 of docs/RS-CONTRACT.md §12.1.
func ambiguity(what string, hits []located) *apiError {
	var avail []map[string]any
	for _, h := range hits {
		e := map[string]any{"connection_id": h.x.conn.ID}
		if h.x.conn.DisplayName != "" {
			e["display_name"] = h.x.conn.DisplayName
		}
		avail = append(avail, e)
	}
	return &apiError{Code: "ambiguous_connection", RetryWith: "connection_id", AvailableConnections: avail,
		Message: what + " is present under more than one connection. Retry with `connection_id`."}
}

// locate finds a record among the slices in scope; hits in two connections
// without connection_id are ambiguous (docs/RS-CONTRACT.md §7, §12.1).
func locate(r *request) (located, *apiError) {
	sl, e := scope(r)
	if e != nil {
		return located{}, e
	}
	var hits []located
	for _, x := range sl {
		for _, rec := range x.s.Records {
			if rec.ConnectionID == x.conn.ID && rec.ID == r.params[1] {
				hits = append(hits, located{x, rec})
			}
		}
	}
	switch len(hits) {
	case 0:
		return located{}, errf("not_found", "", "Record not found")
	case 1:
		return hits[0], nil
	}
	return located{}, ambiguity("Record '"+r.params[1]+"'", hits)
}

func (rs *RS) recordDetail(r *request) (int, any) {
	if e := rejectClientQueries(r); e != nil {
		return 0, e
	}
	h, e := locate(r)
	if e != nil {
		return 0, e
	}
	var fields []string
	for _, v := range r.q["fields"] {
		fields = append(fields, strings.Split(v, ",")...)
	}
	for _, f := range fields {
		if r.fx.RealRS && h.x.s.Field(f) == nil {
			return 0, errf("unknown_field", "fields", "Unknown field: "+f).asReference("", "Unknown field: "+f)
		}
	}
	if r.client() && fields != nil { // out-of-grant fields simply do not appear here
		var kept []string
		for _, f := range fields {
			if slices.Contains(r.grantStream(h.x.s.Name).Fields, f) {
				kept = append(kept, f)
			}
		}
		fields = append([]string{}, kept...)
	}
	exps, e := parseExpand(r, h.x.s)
	if e != nil {
		return 0, e
	}
	m := r.recordJSON(h.rec, h.x, fields)
	if len(exps) > 0 {
		m["expanded"] = expandRecord(r, h.x, h.rec, exps)
	}
	m["connector_key"] = h.x.key
	if r.client() && r.fx.RealRS {
		m["connector_key"] = manifestURI(h.x.key) // M4: unlike schema and search, which say the key
	}
	raw, _ := json.Marshal(h.rec.Data)
	m["record_json_bytes"] = len(raw)
	return http.StatusOK, m
}

// windowInt parses an integer window parameter (docs/RS-CONTRACT.md §8).
func windowInt(r *request, key string, def int) (int, *apiError) {
	v := r.q.Get(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errf("invalid_window", key, key+" must be an integer")
	}
	return n, nil
}

// fieldWindow serves a bounded window of one top-level string field (docs/RS-CONTRACT.md §8).
func (rs *RS) fieldWindow(r *request) (int, any) {
	fields := r.q["field"]
	if len(fields) != 1 || fields[0] == "" || strings.ContainsRune(fields[0], 0) {
		return 0, errf("invalid_field_path", "field", "field must be one non-empty top-level field name").
			asReference("field", "field is required and must be a non-empty string")
	}
	field := fields[0]
	offset, e1 := windowInt(r, "offset_chars", 0)
	limit, e2 := windowInt(r, "limit_chars", 4096)
	before, e3 := windowInt(r, "before_chars", -1)
	after, e4 := windowInt(r, "after_chars", -1)
	for _, e := range []*apiError{e1, e2, e3, e4} {
		if e != nil {
			return 0, e
		}
	}
	q := r.q.Get("q")
	switch {
	case offset < 0 || limit < 1 || before > 8192 || after > 8192 || (r.q.Get("before_chars") != "" && before < 0) || (r.q.Get("after_chars") != "" && after < 0):
		e := errf("invalid_window", "", "window parameters out of range")
		if offset < 0 {
			e.asReference("", "offset_chars must be a non-negative integer")
		}
		return 0, e
	case q != "" && r.q.Get("offset_chars") != "":
		return 0, errf("invalid_window", "", "q is exclusive with offset_chars")
	case q == "" && (before >= 0 || after >= 0):
		return 0, errf("invalid_window", "", "before_chars and after_chars require q")
	}
	var warnings []any
	if limit > 16384 {
		limit = 16384
		warnings = append(warnings, map[string]any{"code": "limit_clamped", "message": "limit_chars clamped to 16384", "param": "limit_chars"})
	}
	h, e := locate(r)
	if e != nil {
		return 0, e
	}
	if r.client() && !slices.Contains(r.grantStream(h.x.s.Name).Fields, field) {
		return 0, errf("field_not_granted", "field", "Field not in grant: "+field).
			asReference("", "field '"+field+"' is not within the granted projection for this stream")
	}
	v, ok := h.rec.Data[field]
	if !ok {
		return 0, errf("field_not_found", "field", "Field '"+field+"' not found on the record")
	}
	text, ok := v.(string)
	if !ok {
		return 0, errf("field_not_text", "field", "Field '"+field+"' is not text").
			asReference("", "field '"+field+"' is "+jsonKind(v)+", not a readable text field; non-text and binary fields are metadata-only")
	}
	runes := []rune(text)
	total := len(runes)
	var matchStart, matchEnd any
	if q != "" {
		idx := strings.Index(strings.ToLower(text), strings.ToLower(q))
		if idx < 0 {
			return 0, errf("query_not_found", "q", "q not found in field").asReference("", "q was not found in field '"+field+"'")
		}
		ms := utf8.RuneCountInString(text[:idx])
		me := ms + utf8.RuneCountInString(q)
		matchStart, matchEnd = ms, me
		offset = max(0, ms-max(before, 0))
		if r.q.Get("limit_chars") == "" && (before >= 0 || after >= 0) {
			limit = min(max(before, 0)+(me-ms)+max(after, 0), 16384)
		}
	}
	start := min(offset, total)
	end := min(start+limit, total)
	w := map[string]any{"text": string(runes[start:end]), "total_chars": total, "start_chars": start, "end_chars": end, "limit_chars": limit,
		"complete": start == 0 && end >= total, "has_more": end < total, "match_start_chars": matchStart, "match_end_chars": matchEnd,
		"next_offset_chars": nil, "previous_offset_chars": nil}
	if end < total {
		w["next_offset_chars"] = end
	}
	if start > 0 {
		w["previous_offset_chars"] = max(0, start-limit)
	}
	return http.StatusOK, map[string]any{"object": "field_window", "stream": h.x.s.Name, "record_id": h.rec.ID,
		"field": map[string]any{"path": field, "type": "string"}, "url": r.URL.Path, "window": w, "meta": map[string]any{"warnings": nonNil(warnings)}}
}

// jsonKind names a value's JSON type, as the reference RS's field_not_text does.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}

// inlineMIME are served without Content-Disposition: attachment (docs/RS-CONTRACT.md §11).
var inlineMIME = map[string]bool{"application/pdf": true, "image/avif": true, "image/bmp": true, "image/gif": true, "image/jpeg": true,
	"image/png": true, "image/tiff": true, "image/webp": true, "image/x-icon": true}

// blob serves GET /v1/blobs/{id}: raw bytes of a blob that a readable
// record references through data.blob_ref (docs/RS-CONTRACT.md §11).
func (rs *RS) blob(r *request) (int, any) {
	id, conn := r.params[0], connectionParam(r)
	var hits []located
	var payload string
	var ref map[string]any
	for _, gs := range r.grant.Streams {
		for _, x := range r.slices(gs.Name, conn) {
			if r.client() && !slices.Contains(gs.Fields, "blob_ref") {
				continue
			}
			for _, rec := range x.s.Records {
				br, ok := rec.Data["blob_ref"].(map[string]any)
				if rec.ConnectionID == x.conn.ID && ok && br["blob_id"] == id {
					hits = append(hits, located{x, rec})
					ref = br
					payload, _ = rec.Data["payload"].(string)
				}
			}
		}
	}
	switch {
	case len(hits) == 0:
		return 0, errf("blob_not_found", "", "Blob not found")
	case len(hits) > 1:
		e := ambiguity("Blob '"+id+"'", hits)
		e.Message = "Blob '" + id + "' is exposed by records under more than one connection. Retry with `connection_id`."
		return 0, e
	}
	body, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || payload == "" {
		body = []byte(fmt.Sprintf("blob %s", id))
	}
	mime := fmt.Sprint(ref["mime_type"])
	h := r.w.Header()
	h.Set("Content-Type", mime)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if !inlineMIME[mime] {
		h.Set("Content-Disposition", "attachment")
	}
	r.w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = r.w.Write(body)
	}
	return http.StatusOK, nil
}
