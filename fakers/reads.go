package fakers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

func (rs *RS) streams(r *request) (int, any) {
	var data []any
	for _, s := range rs.fx.Streams {
		conns := rs.visibleConnections(r, s)
		if c := r.q.Get("connection_id"); c != "" {
			conns = filterConn(conns, c)
		}
		for _, c := range conns {
			n := 0
			for _, rec := range s.Records {
				if rec.ConnectionID == c.ID {
					n++
				}
			}
			data = append(data, map[string]any{"object": "stream", "name": s.Name, "record_count": n, "connection_id": c.ID,
				"connector_instance_id": c.ID, "display_name": c.DisplayName, "freshness": map[string]any{"status": "current"}})
		}
	}
	return http.StatusOK, map[string]any{"object": "list", "has_more": false, "data": data}
}

func (rs *RS) streamDetail(r *request) (int, any) {
	s := rs.fx.Stream(r.params[0])
	if s == nil {
		return 0, errf("not_found", "", "Stream '"+r.params[0]+"' not found")
	}
	e := rs.streamEntry(r, s, rs.visibleConnections(r, s), false)
	delete(e, "granted_connections")
	return http.StatusOK, e
}

// scope resolves the connections a stream read covers (contract §2.5).
func (rs *RS) scope(r *request, s *Stream) ([]Connection, *apiError) {
	conns := rs.visibleConnections(r, s)
	if c := r.q.Get("connection_id"); c != "" {
		if conns = filterConn(conns, c); len(conns) == 0 {
			return nil, &apiError{Code: "connection_not_found", Param: "connection_id", Message: "connection_id '" + c + "' is not addressable under this grant."}
		}
	}
	if len(conns) == 0 {
		return nil, &apiError{Code: "connection_not_found", Param: "connection_id", Message: "The grant does not authorize any source instances for this stream."}
	}
	return conns, nil
}

var recordParams = map[string]bool{"changes_since": true, "connection_id": true, "connector_id": true, "connector_instance_id": true, "count": true,
	"cursor": true, "expand": true, "expand_limit": true, "fields": true, "filter": true, "limit": true, "order": true, "sort": true,
	"subject_id": true, "view": true, "window": true}

// topKey is a query key's top-level name after qs-style bracket parsing.
func topKey(k string) string {
	if i := strings.IndexByte(k, '['); i > 0 {
		return k[:i]
	}
	return k
}

func (rs *RS) records(r *request) (int, any) {
	s := rs.fx.Stream(r.params[0])
	if s == nil {
		return 0, errf("stream_not_declared", "", "Stream '"+r.params[0]+"' is not declared")
	}
	if r.client() {
		for k := range r.q {
			if t := topKey(k); t == "filter" || t == "expand" || t == "expand_limit" {
				return 0, errf("invalid_request", t, t+"[...] is not supported for client-token reads in PDPP v0.1")
			}
		}
	}
	fields, perr := rs.fieldsParam(r, s)
	if perr != nil {
		return 0, perr
	}
	conns, aerr := rs.scope(r, s)
	if aerr != nil {
		return 0, aerr
	}
	var unknown []string
	for k := range r.q {
		if !recordParams[topKey(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return 0, errf("invalid_request", "", "Unsupported query parameter: "+strings.Join(unknown, ", "))
	}
	order := strings.ToLower(r.q.Get("order"))
	if order == "" {
		order = "desc"
	}
	if order != "asc" && order != "desc" {
		return 0, errf("invalid_request", "order", "order must be asc or desc")
	}
	if srt := r.q.Get("sort"); srt != "" {
		name := strings.TrimLeft(srt, "+-")
		if name != s.CursorField {
			return 0, errf("invalid_sort", "sort", "Only the cursor field '"+s.CursorField+"' is sortable")
		}
		if strings.HasPrefix(srt, "-") {
			order = "desc"
		} else {
			order = "asc"
		}
	}
	count := r.q.Get("count")
	if count != "" && count != "none" && count != "estimated" && count != "exact" {
		return 0, errf("invalid_request", "count", "count must be none, estimated or exact")
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "records")
	offset := 0
	if c := r.q.Get("cursor"); c != "" {
		var cerr *apiError
		if offset, cerr = decodeCursor(c, order); cerr != nil {
			return 0, cerr
		}
	}
	var data []any
	hasMore, total := false, 0
	for _, c := range conns {
		recs := s.recordsOf(c.ID, order)
		total += len(recs)
		end := min(offset+limit, len(recs))
		for _, rec := range recs[min(offset, len(recs)):end] {
			data = append(data, recordJSON(rec, s, c, fields))
		}
		hasMore = hasMore || end < len(recs)
	}
	body := map[string]any{"object": "list", "url": "/v1/streams/" + s.Name + "/records", "has_more": hasMore, "data": nonNil(data)}
	meta := map[string]any{}
	if len(conns) > 1 {
		if hasMore {
			warnings = append(warnings, map[string]any{"code": "partial_results", "param": "connection_id",
				"message": "has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."})
		}
	} else if hasMore {
		body["next_cursor"] = encodeCursor(offset+limit, order)
	}
	if count == "exact" || count == "estimated" {
		meta["count"] = map[string]any{"kind": "exact", "value": total}
	}
	meta["warnings"] = nonNil(warnings)
	body["meta"] = meta
	return http.StatusOK, body
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func pageLimit(raw, what string) (int, []any) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 25, nil
	}
	if n > 100 {
		return 100, []any{map[string]any{"code": "limit_clamped", "param": "limit", "detail": map[string]any{"max_limit": 100, "requested_limit": n},
			"message": fmt.Sprintf("Requested limit=%d exceeds the maximum page size of 100; returned 100 %s per page. Page forward with the returned cursor.", n, what)}}
	}
	return n, nil
}

type cursor struct {
	Kind   string `json:"kind"`
	Order  string `json:"order"`
	Offset int    `json:"offset"`
}

func encodeCursor(off int, order string) string {
	b, _ := json.Marshal(cursor{Kind: "page", Order: strings.ToUpper(order), Offset: off})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCursor(s, order string) (int, *apiError) {
	raw, err := base64.StdEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "page" || c.Offset < 0 {
		return 0, errf("invalid_cursor", "", "Malformed cursor")
	}
	if c.Order != strings.ToUpper(order) {
		return 0, errf("invalid_cursor", "", "Cursor order does not match request order")
	}
	return c.Offset, nil
}

// fieldsParam validates repeated and comma-separated fields.
func (rs *RS) fieldsParam(r *request, s *Stream) ([]string, *apiError) {
	vals, present := r.q["fields"]
	if !present {
		return nil, nil
	}
	var fields []string
	for _, v := range vals {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				fields = append(fields, f)
			}
		}
	}
	if len(fields) == 0 {
		return nil, errf("invalid_request", "fields", "fields must not be empty")
	}
	for _, f := range fields {
		if s.Field(f) == nil {
			return nil, errf("unknown_field", "fields", "Unknown field: "+f)
		}
	}
	if r.client() {
		gs := rs.grantStream(s.Name)
		var out []string
		for _, f := range fields {
			if !contains(gs.Fields, f) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return nil, errf("field_not_granted", "fields", "Fields not in grant: "+strings.Join(out, ", "))
		}
	}
	return fields, nil
}

// recordsOf returns one connection's records ordered by (cursor field, id).
func (s *Stream) recordsOf(conn, order string) []Record {
	var out []Record
	for _, r := range s.Records {
		if r.ConnectionID == conn {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := fmt.Sprint(out[i].Data[s.CursorField]), fmt.Sprint(out[j].Data[s.CursorField])
		if a == b {
			a, b = out[i].ID, out[j].ID
		}
		if order == "asc" {
			return a < b
		}
		return a > b
	})
	return out
}

func recordJSON(rec Record, s *Stream, c Connection, fields []string) map[string]any {
	data := map[string]any{}
	for k, v := range rec.Data {
		if fields == nil || contains(fields, k) {
			data[k] = v
		}
	}
	if br, ok := data["blob_ref"].(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range br {
			cp[k] = v
		}
		cp["fetch_url"] = "/v1/blobs/" + fmt.Sprint(br["blob_id"])
		data["blob_ref"] = cp
	}
	m := map[string]any{"object": "record", "id": rec.ID, "stream": s.Name, "data": data, "emitted_at": rec.EmittedAt,
		"connection_id": c.ID, "connector_instance_id": c.ID}
	if c.DisplayName != "" {
		m["display_name"] = c.DisplayName
	}
	return m
}

// locate finds a record among the connections in scope; two hits without a
// connection_id is an ambiguity error (contract §7, §12.1).
func (rs *RS) locate(r *request) (*Stream, Record, Connection, *apiError) {
	s := rs.fx.Stream(r.params[0])
	if s == nil {
		return nil, Record{}, Connection{}, errf("stream_not_declared", "", "Stream '"+r.params[0]+"' is not declared")
	}
	conns, aerr := rs.scope(r, s)
	if aerr != nil {
		return nil, Record{}, Connection{}, aerr
	}
	type hit struct {
		rec  Record
		conn Connection
	}
	var hits []hit
	for _, c := range conns {
		for _, rec := range s.Records {
			if rec.ConnectionID == c.ID && rec.ID == r.params[1] {
				hits = append(hits, hit{rec, c})
			}
		}
	}
	switch len(hits) {
	case 0:
		return nil, Record{}, Connection{}, errf("not_found", "", "Record not found")
	case 1:
		return s, hits[0].rec, hits[0].conn, nil
	}
	avail := []map[string]any{}
	for _, h := range hits {
		e := map[string]any{"connection_id": h.conn.ID}
		if h.conn.DisplayName != "" {
			e["display_name"] = h.conn.DisplayName
		}
		avail = append(avail, e)
	}
	return nil, Record{}, Connection{}, &apiError{Code: "ambiguous_connection", RetryWith: "connection_id", AvailableConnections: avail,
		Message: "Record '" + r.params[1] + "' is present under more than one connection. Retry with `connection_id`."}
}

func (rs *RS) recordDetail(r *request) (int, any) {
	if r.client() {
		for k := range r.q {
			if t := topKey(k); t == "filter" || t == "expand" || t == "expand_limit" {
				return 0, errf("invalid_request", t, t+"[...] is not supported for client-token reads in PDPP v0.1")
			}
		}
	}
	s, rec, c, aerr := rs.locate(r)
	if aerr != nil {
		return 0, aerr
	}
	var fields []string
	if _, ok := r.q["fields"]; ok {
		for _, v := range r.q["fields"] {
			fields = append(fields, strings.Split(v, ",")...)
		}
	}
	m := recordJSON(rec, s, c, fields)
	m["connector_key"] = rs.fx.Connector.Key
	raw, _ := json.Marshal(rec.Data)
	m["record_json_bytes"] = len(raw)
	return http.StatusOK, m
}

func intParam(r *request, key string, def int) (int, *apiError) {
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

// fieldWindow serves a bounded window of one top-level string field (contract §8).
func (rs *RS) fieldWindow(r *request) (int, any) {
	fields := r.q["field"]
	if len(fields) != 1 || fields[0] == "" || strings.ContainsRune(fields[0], 0) {
		return 0, errf("invalid_field_path", "field", "field must be one non-empty top-level field name")
	}
	field := fields[0]
	offset, e1 := intParam(r, "offset_chars", 0)
	limit, e2 := intParam(r, "limit_chars", 4096)
	before, e3 := intParam(r, "before_chars", -1)
	after, e4 := intParam(r, "after_chars", -1)
	for _, e := range []*apiError{e1, e2, e3, e4} {
		if e != nil {
			return 0, e
		}
	}
	q := r.q.Get("q")
	switch {
	case offset < 0 || limit < 1 || before > 8192 || after > 8192:
		return 0, errf("invalid_window", "", "window parameters out of range")
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
	s, rec, _, aerr := rs.locate(r)
	if aerr != nil {
		return 0, aerr
	}
	if r.client() && !contains(rs.grantStream(s.Name).Fields, field) {
		return 0, errf("field_not_granted", "field", "Field not in grant: "+field)
	}
	v, ok := rec.Data[field]
	if !ok {
		return 0, errf("field_not_found", "field", "Field '"+field+"' not found on the record")
	}
	text, ok := v.(string)
	if !ok {
		return 0, errf("field_not_text", "field", "Field '"+field+"' is not text")
	}
	runes := []rune(text)
	total := len(runes)
	var matchStart, matchEnd any
	if q != "" {
		idx := strings.Index(strings.ToLower(text), strings.ToLower(q))
		if idx < 0 {
			return 0, errf("query_not_found", "q", "q not found in field")
		}
		ms := utf8.RuneCountInString(text[:idx])
		me := ms + utf8.RuneCountInString(q)
		matchStart, matchEnd = ms, me
		b := max(before, 0)
		offset = max(0, ms-b)
		if r.q.Get("limit_chars") == "" && (before >= 0 || after >= 0) {
			limit = min(b+(me-ms)+max(after, 0), 16384)
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
	return http.StatusOK, map[string]any{"object": "field_window", "stream": s.Name, "record_id": rec.ID,
		"field": map[string]any{"path": field, "type": "string"}, "url": r.URL.Path, "window": w, "meta": map[string]any{"warnings": nonNil(warnings)}}
}
