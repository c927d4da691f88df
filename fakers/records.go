package fakers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

func (rs *RS) streams(r *request) (int, any) {
	var data []any
	conn := connectionParam(r)
	if conn != "" && r.client() && !grantedConnection(r, conn) {
		return 0, errf("connection_not_found", "connection_id", "connection_id '"+conn+"' is not addressable under this grant.")
	}
	connector := ""
	if !r.client() {
		connector = r.q.Get("connector_id") // owner: narrow to one connector, else fan out
	}
	seen := map[string]bool{}
	for _, s := range r.fx.Streams {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		for _, x := range r.slices(s.Name, conn) {
			if connector != "" && x.key != connector {
				continue
			}
			n, last := 0, ""
			for _, rec := range x.s.Records {
				if rec.ConnectionID == x.conn.ID {
					n++
					last = max(last, rec.EmittedAt)
				}
			}
			e := map[string]any{"object": "stream", "name": s.Name, "record_count": n, "last_updated": nilIfEmpty(last), "connection_id": x.conn.ID,
				"connector_instance_id": x.conn.ID, "freshness": map[string]any{"status": "current", "captured_at": "2026-07-05T00:00:00Z"}}
			if x.conn.DisplayName != "" {
				e["display_name"] = x.conn.DisplayName
			}
			if !r.client() {
				e["connector_id"], e["source"] = x.key, map[string]any{"id": x.key, "kind": "connector"}
			}
			data = append(data, e)
		}
	}
	return http.StatusOK, map[string]any{"object": "list", "has_more": false, "data": nonNil(data)}
}

func (rs *RS) streamDetail(r *request) (int, any) {
	sl := r.slices(r.params[0], connectionParam(r))
	if len(sl) == 0 {
		return 0, errf("not_found", "", "Stream '"+r.params[0]+"' not found")
	}
	var conns []Connection
	for _, x := range sl {
		if x.s == sl[0].s {
			conns = append(conns, x.conn)
		}
	}
	e := rs.streamEntry(r, sl[0].s, conns, false)
	delete(e, "granted_connections")
	return http.StatusOK, e
}

// scope resolves the slices a stream read covers (docs/RS-CONTRACT.md §2.5). An owner
// in a multi-connector deployment must name connector_id or connection_id
// (docs/RS-CONTRACT.md §2.4, "polyfill owner access").
func scope(r *request) ([]slice, *apiError) {
	name, conn := r.params[0], connectionParam(r)
	if len(r.fx.StreamsNamed(name)) == 0 {
		return nil, errf("stream_not_declared", "", "Stream '"+name+"' is not declared")
	}
	if a, b := r.q.Get("connection_id"), r.q.Get("connector_instance_id"); a != "" && b != "" && a != b {
		return nil, errf("invalid_argument", "connector_instance_id", "connection_id and connector_instance_id disagree")
	}
	connector := ""
	if !r.client() && len(r.fx.Connectors) > 1 {
		connector = r.q.Get("connector_id")
		if connector == "" && conn == "" {
			return nil, errf("invalid_request", "connector_id", "connector_id must be a single non-empty string for polyfill owner access")
		}
	}
	var sl []slice
	for _, x := range r.slices(name, conn) {
		if connector == "" || x.key == connector {
			sl = append(sl, x)
		}
	}
	if len(sl) == 0 && conn != "" {
		return nil, errf("connection_not_found", "connection_id", "connection_id '"+conn+"' is not addressable under this grant.")
	}
	if len(sl) == 0 {
		return nil, errf("connection_not_found", "connection_id", "The grant does not authorize any source instances for this stream.")
	}
	return sl, nil
}

var recordParams = map[string]bool{"changes_since": true, "connection_id": true, "connector_id": true, "connector_instance_id": true, "count": true,
	"cursor": true, "expand": true, "expand_limit": true, "fields": true, "filter": true, "limit": true, "order": true, "sort": true,
	"subject_id": true, "view": true, "window": true}

// records serves GET /v1/streams/{s}/records. When a request has several
// faults, the first in the implementation's order wins (docs/RS-CONTRACT.md §6.1).
func (rs *RS) records(r *request) (int, any) {
	if e := rejectClientQueries(r); e != nil {
		return 0, e
	}
	if _, ok := r.q["view"]; ok {
		if _, both := r.q["fields"]; both {
			return 0, errf("invalid_request", "view", "view and fields are mutually exclusive")
		}
		if r.client() {
			return 0, errf("invalid_request", "view", "Client record reads must use explicit fields; views are resolved when the grant is issued").
				asReference("", "Client record reads must use explicit fields; views are resolved when the grant is issued")
		}
	}
	name := r.params[0]
	if len(r.fx.StreamsNamed(name)) == 0 {
		return 0, errf("stream_not_declared", "", "Stream '"+name+"' is not declared")
	}
	fields, e := fieldsParam(r)
	if e != nil {
		return 0, e
	}
	for _, f := range append(append([]string(nil), fields...), filterFieldNames(r)...) {
		if r.fx.declaredField(name, f) == nil {
			return 0, errf("unknown_field", "fields", "Unknown field: "+f).asReference("", "Unknown field: "+f)
		}
	}
	sl, e := scope(r)
	if e != nil {
		return 0, e
	}
	changes := r.q.Get("changes_since")
	if changes != "" && len(sl) > 1 {
		return 0, (&apiError{Code: "invalid_argument", Param: "changes_since", RetryWith: "connection_id", AvailableConnections: availableConnections(sl),
			Message: "changes_since needs one connection; retry with `connection_id`."}).
			asReference("changes_since", "`changes_since` is not supported across multiple connections. Retry with `connection_id` to bind the cursor to a single connection.")
	}
	if e := unsupportedParams(r, recordParams); e != nil {
		return 0, e
	}
	if changes != "" || isChangesCursor(r.q.Get("cursor")) {
		for _, p := range []string{"sort", "count", "order", "window"} {
			if r.q.Get(p) != "" {
				return 0, errf("invalid_request", p, p+" is not supported with changes_since").asReference("", p+" is not supported with changes_since")
			}
		}
	}
	count, window := r.q.Get("count"), r.q.Get("window")
	if count != "" && count != "none" && count != "estimated" && count != "exact" {
		return 0, errf("invalid_request", "count", "count must be none, estimated or exact").asReference("", "count must be one of: none, estimated, exact")
	}
	if window != "" && window != "none" && window != "exact" {
		return 0, errf("invalid_request", "window", "window must be none or exact")
	}
	order, e := orderParam(r, sl[0].s)
	if e != nil {
		return 0, e
	}
	if e := fieldsGranted(r, name, fields); e != nil {
		return 0, e
	}
	filters, e := parseFilters(r, name)
	if e != nil {
		return 0, e
	}
	if changes != "" && (len(r.q["expand"]) > 0 || len(r.q["expand[]"]) > 0) {
		return 0, errf("invalid_expand", "expand", "expand is not supported with changes_since")
	}
	expand, e := parseExpand(r, sl[0].s)
	if e != nil {
		return 0, e
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "records")
	if changes != "" || isChangesCursor(r.q.Get("cursor")) {
		return rs.changes(r, sl[0], fields, changes, limit, warnings)
	}
	offset := 0
	if c := r.q.Get("cursor"); c != "" {
		if offset, e = decodeCursor(c, "records", order); e != nil {
			return 0, e
		}
	}
	var data []any
	var all []Record
	hasMore, total := false, 0
	for _, x := range sl {
		recs := filterRecords(r.rs.sortedRecords(x.s, x.conn.ID, order), filters)
		all = append(all, recs...)
		total += len(recs)
		end := min(offset+limit, len(recs))
		for _, rec := range recs[min(offset, len(recs)):end] {
			m := r.recordJSON(rec, x, fields)
			if len(expand) > 0 {
				m["expanded"] = expandRecord(r, x, rec, expand)
			}
			data = append(data, m)
		}
		hasMore = hasMore || end < len(recs)
	}
	body := map[string]any{"object": "list", "url": "/v1/streams/" + name + "/records", "has_more": hasMore, "data": nonNil(data)}
	meta := map[string]any{}
	if len(sl) > 1 {
		if hasMore {
			warnings = append(warnings, map[string]any{"code": "partial_results", "param": "connection_id",
				"message": "has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."})
		}
	} else if hasMore {
		body["next_cursor"] = encodeCursor("records", offset+limit, order)
	}
	if count == "exact" || count == "estimated" { // estimated is silently upgraded
		meta["count"] = map[string]any{"kind": "exact", "value": total}
	}
	if window == "exact" {
		meta["window"] = timeWindow(sl[0].s, all)
	}
	meta["warnings"] = nonNil(warnings)
	body["meta"] = meta
	return http.StatusOK, body
}

func availableConnections(sl []slice) []map[string]any {
	var avail []map[string]any
	for _, x := range sl {
		e := map[string]any{"connection_id": x.conn.ID}
		if x.conn.DisplayName != "" {
			e["display_name"] = x.conn.DisplayName
		}
		avail = append(avail, e)
	}
	return avail
}

// timeWindow is meta.window for window=exact: the filtered corpus's size and
// time span by the stream's consent-time (here: cursor) field.
func timeWindow(s *Stream, recs []Record) map[string]any {
	w := map[string]any{"total": len(recs)}
	if f := s.Field(s.CursorField); f == nil || f.Format != "date-time" {
		return w
	}
	earliest, latest := "", ""
	for _, rec := range recs {
		v, _ := rec.Data[s.CursorField].(string)
		if v == "" {
			continue
		}
		if earliest == "" || v < earliest {
			earliest = v
		}
		latest = max(latest, v)
	}
	if earliest != "" {
		w["earliest_at"], w["latest_at"] = earliest, latest
	}
	return w
}

// recordJSON is the record object of docs/RS-CONTRACT.md §3: data projected to fields,
// with fetch_url injected into a blob_ref.
func (r *request) recordJSON(rec Record, x slice, fields []string) map[string]any {
	m := map[string]any{"object": "record", "id": rec.ID, "stream": x.s.Name, "data": r.rs.dataJSON(x.s, rec, fields), "emitted_at": rec.EmittedAt,
		"connection_id": x.conn.ID, "connector_instance_id": x.conn.ID}
	if x.conn.DisplayName != "" {
		m["display_name"] = x.conn.DisplayName
	}
	return m
}

// dataJSON encodes a record's data. Unprojected encodings are cached until
// the next Update, so serving a page does not re-encode every record.
func (rs *RS) dataJSON(s *Stream, rec Record, fields []string) json.RawMessage {
	key := recordKey{s.Connector, s.Name, rec.ConnectionID, rec.ID}
	if fields == nil {
		if raw, ok := rs.dataCache.Load(key); ok {
			return raw.(json.RawMessage)
		}
	}
	data := map[string]any{}
	for k, v := range rec.Data {
		if fields == nil || slices.Contains(fields, k) || slices.Contains(rs.fx.ProjectionAddsFields, k) {
			data[k] = v
		}
	}
	if br, ok := data["blob_ref"].(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range br {
			cp[k] = v
		}
		cp["fetch_url"] = "/v1/blobs/" + url.PathEscape(fmt.Sprint(br["blob_id"]))
		data["blob_ref"] = cp
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(data)
	raw := json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if fields == nil {
		rs.dataCache.Store(key, raw)
	}
	return raw
}
