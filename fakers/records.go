package fakers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func (rs *RS) streams(r *request) (int, any) {
	var data []any
	conn := connectionParam(r)
	if conn != "" && r.client() && !grantedConnection(r, conn) {
		return 0, errf("connection_not_found", "connection_id", "connection_id '"+conn+"' is not addressable under this grant.")
	}
	seen := map[string]bool{}
	for _, s := range r.fx.Streams {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		for _, x := range r.slices(s.Name, conn) {
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
			data = append(data, e)
		}
	}
	return http.StatusOK, map[string]any{"object": "list", "has_more": false, "data": nonNil(data)}
}

func grantedConnection(r *request, id string) bool {
	for _, gs := range r.fx.Grant.Streams {
		if contains(gs.InstanceIDs, id) {
			return true
		}
	}
	return false
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

// scope resolves the slices a stream read covers (contract §2.5).
func scope(r *request) ([]slice, *apiError) {
	name, conn := r.params[0], connectionParam(r)
	if len(r.fx.StreamsNamed(name)) == 0 {
		return nil, errf("stream_not_declared", "", "Stream '"+name+"' is not declared")
	}
	if a, b := r.q.Get("connection_id"), r.q.Get("connector_instance_id"); a != "" && b != "" && a != b {
		return nil, errf("invalid_argument", "connector_instance_id", "connection_id and connector_instance_id disagree")
	}
	sl := r.slices(name, conn)
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

// topKey is a query key's top-level name after qs-style bracket parsing.
func topKey(k string) string {
	if i := strings.IndexByte(k, '['); i > 0 {
		return k[:i]
	}
	return k
}

// rejectClientQueries enforces contract §2.4 unless the fixture reads as the spec.
func rejectClientQueries(r *request) *apiError {
	if !r.client() || r.fx.SpecClientReads {
		return nil
	}
	for k := range r.q {
		if t := topKey(k); t == "filter" || t == "expand" || t == "expand_limit" {
			return errf("invalid_request", t, t+"[...] is not supported for client-token reads in PDPP v0.1")
		}
	}
	return nil
}

func (rs *RS) records(r *request) (int, any) {
	if e := rejectClientQueries(r); e != nil {
		return 0, e
	}
	if _, ok := r.q["view"]; ok {
		if _, both := r.q["fields"]; both {
			return 0, errf("invalid_request", "view", "view and fields are mutually exclusive")
		}
		if r.client() {
			return 0, errf("invalid_request", "view", "Client record reads must use explicit fields; views are resolved when the grant is issued")
		}
	}
	sl, e := scope(r)
	if e != nil {
		return 0, e
	}
	fields, e := fieldsParam(r, sl[0].s)
	if e != nil {
		return 0, e
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
	changes := r.q.Get("changes_since")
	if changes != "" {
		return rs.changes(r, sl, fields, changes)
	}
	order, e := orderParam(r, sl[0].s)
	if e != nil {
		return 0, e
	}
	count := r.q.Get("count")
	if count != "" && count != "none" && count != "estimated" && count != "exact" {
		return 0, errf("invalid_request", "count", "count must be none, estimated or exact")
	}
	filters, e := parseFilters(r, sl[0].s)
	if e != nil {
		return 0, e
	}
	expand, e := parseExpand(r, sl[0].s)
	if e != nil {
		return 0, e
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "records")
	offset := 0
	if c := r.q.Get("cursor"); c != "" {
		if offset, e = decodeCursor(c, "records", order); e != nil {
			return 0, e
		}
	}
	var data []any
	hasMore, total := false, 0
	for _, x := range sl {
		recs := filterRecords(x.s.recordsOf(x.conn.ID, order), filters)
		total += len(recs)
		end := min(offset+limit, len(recs))
		for _, rec := range recs[min(offset, len(recs)):end] {
			m := recordJSON(rec, x, fields)
			if len(expand) > 0 {
				m["expanded"] = expandRecord(r, x, rec, expand)
			}
			data = append(data, m)
		}
		hasMore = hasMore || end < len(recs)
	}
	body := map[string]any{"object": "list", "url": "/v1/streams/" + r.params[0] + "/records", "has_more": hasMore, "data": nonNil(data)}
	meta := map[string]any{}
	if len(sl) > 1 {
		if hasMore {
			warnings = append(warnings, map[string]any{"code": "partial_results", "param": "connection_id",
				"message": "has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."})
		}
	} else if hasMore {
		body["next_cursor"] = encodeCursor("records", offset+limit, order)
	}
	if count == "exact" || count == "estimated" {
		meta["count"] = map[string]any{"kind": "exact", "value": total}
	}
	meta["warnings"] = nonNil(warnings)
	body["meta"] = meta
	return http.StatusOK, body
}

// changes serves the changes feed: "beginning" returns every record, paged;
// the horizon token returns nothing new until the fixture is updated.
func (rs *RS) changes(r *request, sl []slice, fields []string, since string) (int, any) {
	for _, p := range []string{"sort", "count", "order", "window"} {
		if r.q.Get(p) != "" {
			return 0, errf("invalid_request", p, p+" is not supported with changes_since")
		}
	}
	if r.q.Get("expand") != "" {
		return 0, errf("invalid_expand", "expand", "expand is not supported with changes_since")
	}
	if len(sl) > 1 {
		var avail []map[string]any
		for _, x := range sl {
			avail = append(avail, map[string]any{"connection_id": x.conn.ID, "display_name": x.conn.DisplayName})
		}
		return 0, &apiError{Code: "invalid_argument", Param: "changes_since", RetryWith: "connection_id", AvailableConnections: avail,
			Message: "changes_since needs one connection; retry with `connection_id`."}
	}
	horizon := rs.version
	from := 0
	if since != "beginning" {
		v, ok := decodeChangesSince(since)
		if !ok {
			return 0, errf("invalid_cursor", "changes_since", "Malformed changes_since cursor; pass `beginning` or a next_changes_since value.")
		}
		from = v
	}
	recs := sl[0].s.recordsOf(sl[0].conn.ID, "asc")
	if from >= horizon {
		recs = nil
	}
	limit, warnings := pageLimit(r.q.Get("limit"), "records")
	offset := 0
	if c := r.q.Get("cursor"); c != "" {
		var e *apiError
		if offset, e = decodeCursor(c, "changes", "asc"); e != nil {
			return 0, e
		}
	}
	end := min(offset+limit, len(recs))
	var data []any
	for _, rec := range recs[min(offset, len(recs)):end] {
		data = append(data, recordJSON(rec, sl[0], fields))
	}
	b, _ := json.Marshal(map[string]any{"kind": "changes_since", "version": horizon})
	body := map[string]any{"object": "list", "url": "/v1/streams/" + r.params[0] + "/records", "has_more": end < len(recs), "data": nonNil(data),
		"next_changes_since": base64.StdEncoding.EncodeToString(b), "meta": map[string]any{"warnings": nonNil(warnings)}}
	if end < len(recs) {
		body["next_cursor"] = encodeCursor("changes", end, "asc")
	}
	return http.StatusOK, body
}

func decodeChangesSince(s string) (int, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	var c struct {
		Kind    string `json:"kind"`
		Version int    `json:"version"`
	}
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "changes_since" {
		return 0, false
	}
	return c.Version, true
}

func orderParam(r *request, s *Stream) (string, *apiError) {
	order := strings.ToLower(r.q.Get("order"))
	if order == "" {
		order = "desc"
	}
	if order != "asc" && order != "desc" {
		return "", errf("invalid_request", "order", "order must be asc or desc")
	}
	if srt := r.q.Get("sort"); srt != "" {
		parts := strings.Split(srt, ",")
		sign := ""
		for _, p := range parts {
			if strings.TrimLeft(p, "+-") != s.CursorField {
				return "", errf("invalid_sort", "sort", "Only the cursor field '"+s.CursorField+"' is sortable")
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
			return "", errf("invalid_sort", "sort", "sort and order disagree")
		}
		order = sign
	}
	return order, nil
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
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
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Order   string `json:"order"`
	Offset  int    `json:"offset"`
}

func encodeCursor(session string, off int, order string) string {
	b, _ := json.Marshal(cursor{Kind: "page", Session: session, Order: strings.ToUpper(order), Offset: off})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCursor(s, session, order string) (int, *apiError) {
	raw, err := base64.StdEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "page" || c.Offset < 0 || c.Session != session {
		return 0, errf("invalid_cursor", "", "Malformed cursor")
	}
	if c.Order != strings.ToUpper(order) {
		return 0, errf("invalid_cursor", "", "Cursor order does not match request order")
	}
	return c.Offset, nil
}

// fieldsParam validates repeated and comma-separated fields.
func fieldsParam(r *request, s *Stream) ([]string, *apiError) {
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
		var out []string
		for _, f := range fields {
			if !contains(r.fx.grantStream(s.Name).Fields, f) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return nil, errf("field_not_granted", "fields", "Fields not in grant: "+strings.Join(out, ", "))
		}
	}
	return fields, nil
}

type filter struct {
	field *Field
	op    string // "" for exact
	value string
}

var filterKeyRe = regexp.MustCompile(`^filter\[([^\[\]]+)\](?:\[([^\[\]]+)\])?$`)

// parseFilters reads filter[f]=v and filter[f][op]=v (contract §6.1).
func parseFilters(r *request, s *Stream) ([]filter, *apiError) {
	var out []filter
	keys := make([]string, 0, len(r.q))
	for k := range r.q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if topKey(k) != "filter" {
			continue
		}
		m := filterKeyRe.FindStringSubmatch(k)
		if m == nil {
			return nil, errf("invalid_request", "filter", "filter must be filter[field]=value or filter[field][op]=value")
		}
		f := s.Field(m[1])
		if f == nil {
			return nil, errf("unknown_field", "filter", "Unknown field: "+m[1])
		}
		if r.client() && !contains(r.fx.grantStream(s.Name).Fields, f.Name) {
			return nil, errf("field_not_granted", "filter", "Fields not in grant: "+f.Name)
		}
		scalar := f.Type == "string" || f.Type == "integer" || f.Type == "number" || f.Type == "boolean"
		switch {
		case m[2] == "" && !scalar:
			return nil, errf("invalid_request", "filter", "exact filters need a scalar field; "+f.Name+" is "+f.Type)
		case m[2] != "" && !contains([]string{"gte", "gt", "lte", "lt"}, m[2]):
			return nil, errf("invalid_request", "filter", "Unsupported filter operator '"+m[2]+"'; use gte, gt, lte or lt")
		case m[2] != "" && !contains(f.Range, m[2]):
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

type expansion struct {
	rel   Relationship
	limit int
}

// parseExpand validates expand and expand_limit (contract §6.1): unknown or
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
			for _, child := range t.s.recordsOf(x.conn.ID, "asc") {
				if fmt.Sprint(child.Data[e.rel.ForeignKey]) != rec.ID {
					continue
				}
				if len(data) == e.limit {
					more = true
					break
				}
				data = append(data, recordJSON(child, t, nil))
			}
		}
		out[e.rel.Name] = map[string]any{"object": "list", "data": nonNil(data), "has_more": more}
	}
	return out
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

func recordJSON(rec Record, x slice, fields []string) map[string]any {
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
	m := map[string]any{"object": "record", "id": rec.ID, "stream": x.s.Name, "data": data, "emitted_at": rec.EmittedAt,
		"connection_id": x.conn.ID, "connector_instance_id": x.conn.ID}
	if x.conn.DisplayName != "" {
		m["display_name"] = x.conn.DisplayName
	}
	return m
}
