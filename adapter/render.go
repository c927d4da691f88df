package adapter

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// ---- RS body shapes the adapter reads ----

type record struct {
	Object       string          `json:"object"`
	ID           string          `json:"id"`
	Stream       string          `json:"stream"`
	Data         json.RawMessage `json:"data"`
	EmittedAt    string          `json:"emitted_at"`
	ConnectionID string          `json:"connection_id"`
	ConnectorKey string          `json:"connector_key"`
	DisplayName  string          `json:"display_name"`
}

type recordList struct {
	Data             []json.RawMessage `json:"data"`
	HasMore          bool              `json:"has_more"`
	NextCursor       string            `json:"next_cursor"`
	NextChangesSince string            `json:"next_changes_since"`
	Meta             struct {
		Count struct {
			Kind  string          `json:"kind"`
			Value json.RawMessage `json:"value"`
		} `json:"count"`
	} `json:"meta"`
}

type aggregation struct {
	Metric      string          `json:"metric"`
	Field       *string         `json:"field"`
	GroupBy     *string         `json:"group_by"`
	GroupByTime *string         `json:"group_by_time"`
	Granularity *string         `json:"granularity"`
	TimeZone    *string         `json:"time_zone"`
	Value       json.RawMessage `json:"value"`
	Groups      []struct {
		Key   json.RawMessage `json:"key"`
		Count json.RawMessage `json:"count"`
	} `json:"groups"`
	OtherCount *json.Number `json:"other_count"`
}

type searchHit struct {
	Stream       string          `json:"stream"`
	RecordKey    string          `json:"record_key"`
	ConnectionID string          `json:"connection_id"`
	ConnectorID  string          `json:"connector_id"`
	ConnectorKey string          `json:"connector_key"`
	DisplayName  string          `json:"display_name"`
	Title        string          `json:"title"`
	EmittedAt    string          `json:"emitted_at"`
	AuthoredAt   string          `json:"authored_at"`
	RecordURL    string          `json:"record_url"`
	Snippet      json.RawMessage `json:"snippet"`
	Evidence     []struct {
		FieldPath   string `json:"field_path"`
		PreviewText string `json:"preview_text"`
		Truncated   bool   `json:"truncated"`
	} `json:"evidence_excerpts"`
}

// A searchResult is one flattened hit in structuredContent.results.
type searchResult struct {
	ID           string            `json:"id"`
	Title        string            `json:"title"`
	URL          string            `json:"url"`
	Stream       string            `json:"stream,omitempty"`
	RecordKey    string            `json:"record_key,omitempty"`
	ConnectionID string            `json:"connection_id,omitempty"`
	ConnectorKey string            `json:"connector_key,omitempty"`
	DisplayName  string            `json:"display_name,omitempty"`
	Snippet      string            `json:"snippet,omitempty"`
	Evidence     []evidenceExcerpt `json:"evidence_excerpts,omitempty"`
}

type evidenceExcerpt struct {
	FieldPath     string         `json:"field_path"`
	PreviewText   string         `json:"preview_text"`
	PreviewStatus string         `json:"preview_status"`
	Read          map[string]any `json:"read"`
}

type fieldWindow struct {
	Stream   string `json:"stream"`
	RecordID string `json:"record_id"`
	Field    struct {
		Path string `json:"path"`
		Type string `json:"type"`
	} `json:"field"`
	Window struct {
		Text                string `json:"text"`
		TotalChars          int    `json:"total_chars"`
		StartChars          int    `json:"start_chars"`
		EndChars            int    `json:"end_chars"`
		LimitChars          int    `json:"limit_chars"`
		Complete            bool   `json:"complete"`
		HasMore             bool   `json:"has_more"`
		MatchStartChars     *int   `json:"match_start_chars"`
		MatchEndChars       *int   `json:"match_end_chars"`
		NextOffsetChars     *int   `json:"next_offset_chars"`
		PreviousOffsetChars *int   `json:"previous_offset_chars"`
	} `json:"window"`
}

// ---- schema ----

// shapeSchemaDoc makes the MCP schema document: no deprecated alias, no
// duplicated top-level stream list when connectors exist (S041). A scoped
// document keeps the RS rows and gains the flag legend; the global one
// becomes an index (S017).
func shapeSchemaDoc(doc map[string]any, scoped bool, legend map[string]string) map[string]any {
	dropKey(doc, "connector_instance_id")
	if cs, ok := doc["connectors"].([]any); ok && len(cs) > 0 {
		delete(doc, "streams")
	}
	if scoped {
		doc["field_capability_legend"] = legend
		return doc
	}
	return indexDoc(doc)
}

// indexDoc reduces the compact global document to an index: stream names
// grouped by connector, with connections where a stream's differ from its
// connector's. Everything per field, per relation or per sort key belongs to
// schema(stream), so the whole result stays bounded for large grants.
func indexDoc(doc map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"object", "detail", "connector_count", "stream_count", "bearer"} {
		if v, ok := doc[k]; ok {
			out[k] = v
		}
	}
	if meta, ok := doc["meta"].(map[string]any); ok {
		if w, _ := meta["warnings"].([]any); len(w) > 0 {
			out["meta"] = map[string]any{"warnings": w}
		}
	}
	reduceRows := func(v any, keep ...string) []any {
		list, _ := v.([]any)
		rows := make([]any, 0, len(list))
		for _, s := range list {
			row, _ := s.(map[string]any)
			r := map[string]any{"name": row["name"]}
			for _, k := range keep {
				if v, ok := row[k]; ok {
					r[k] = v
				}
			}
			if gc, ok := row["granted_connections"]; ok {
				r["granted_connections"] = gc
			}
			rows = append(rows, r)
		}
		return rows
	}
	if cs, ok := doc["connectors"].([]any); ok {
		conns := make([]any, 0, len(cs))
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			e := map[string]any{}
			for _, k := range []string{"connector_key", "display_name", "granted_connections", "stream_count"} {
				if v, ok := cm[k]; ok {
					e[k] = v
				}
			}
			e["streams"] = reduceRows(cm["streams"])
			conns = append(conns, e)
		}
		out["connectors"] = conns
	} else if _, ok := doc["streams"]; ok {
		out["streams"] = reduceRows(doc["streams"], "connector_key", "connection_id", "display_name")
	}
	return out
}

func dropKey(v any, key string) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, key)
		for _, c := range t {
			dropKey(c, key)
		}
	case []any:
		for _, c := range t {
			dropKey(c, key)
		}
	}
}

// A streamRow is one stream row of a schema document, with the connector
// it sits under (nil for a top-level row), whose key and connections it
// inherits when it has none of its own.
type streamRow struct {
	m         map[string]any
	connector map[string]any
}

func (r streamRow) get(k string) any {
	if v, ok := r.m[k]; ok {
		return v
	}
	if r.connector != nil && (k == "connector_key" || k == "granted_connections") {
		return r.connector[k]
	}
	return nil
}

func streamRows(doc map[string]any) []streamRow {
	var rows []streamRow
	add := func(v any, conn map[string]any) {
		list, _ := v.([]any)
		for _, s := range list {
			if row, ok := s.(map[string]any); ok {
				rows = append(rows, streamRow{m: row, connector: conn})
			}
		}
	}
	add(doc["streams"], nil)
	if cs, ok := doc["connectors"].([]any); ok {
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				add(cm["streams"], cm)
			}
		}
	}
	return rows
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const (
	maxSchemaRows  = 50
	maxConnsPerRow = 8
)

func renderSchema(doc map[string]any, stream, connectionID string, t *Tuning) string {
	rows := streamRows(doc)
	conns, _ := doc["connectors"].([]any)
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema: connectors=%d streams=%d\n", len(conns), len(rows))
	e := ellipsis(t.Ellipsis)
	if line, _ := t.Grammar.Legend(); stream != "" && line != "" {
		b.WriteString(line + "\n")
	}
	if connectionID != "" {
		fmt.Fprintf(&b, "schema_scope connection_id=%s\n", q(connectionID))
	}
	if stream == "" && len(rows) > maxSchemaRows {
		for _, g := range indexGroups(conns, rows, e) {
			fmt.Fprintf(&b, "stream_index connector_key=%s stream_count=%d streams=%s\n", q(g.key), len(g.names), strings.Join(g.names, "|"))
		}
	}
	for i, row := range rows {
		if stream == "" && i == maxSchemaRows {
			fmt.Fprintf(&b, "more_streams=%d\n", len(rows)-maxSchemaRows)
			break
		}
		fmt.Fprintf(&b, "stream name=%s connector_key=%s", q(str(row.get("name"))), q(str(row.get("connector_key"))))
		if dn := str(row.get("display_name")); dn != "" {
			fmt.Fprintf(&b, " display_name=%s", q(dn))
		}
		if list, ok := row.get("granted_connections").([]any); ok && len(list) > 0 {
			parts := []string{}
			for j, c := range list {
				if j == maxConnsPerRow {
					parts = append(parts, fmt.Sprintf("more:%d", len(list)-maxConnsPerRow))
					break
				}
				cm, _ := c.(map[string]any)
				p := "{connection_id:" + e.inline(str(cm["connection_id"]), 80)
				if dn := str(cm["display_name"]); dn != "" {
					p += ",display_name:" + e.inline(dn, 60)
				}
				parts = append(parts, p+"}")
			}
			b.WriteString(" connections=" + strings.Join(parts, "|"))
		}
		if stream != "" {
			if segs := t.Grammar.Row(row.m); len(segs) > 0 {
				b.WriteString(" " + strings.Join(segs, " "))
			}
		}
		b.WriteString("\n")
	}
	if stream == "" {
		b.WriteString("call schema(stream, connection_id?) for per-field capability flags (filter/sort/expand/fields/count/aggregate)")
	}
	return strings.TrimRight(b.String(), "\n")
}

type indexGroup struct {
	key   string
	names []string
}

// indexGroups lists stream names per connector: from connectors[] when the
// document has them, else from the flat rows grouped by connector_key.
func indexGroups(conns []any, rows []streamRow, e ellipsis) []indexGroup {
	var out []indexGroup
	if len(conns) > 0 {
		for _, c := range conns {
			cm, _ := c.(map[string]any)
			list, _ := cm["streams"].([]any)
			g := indexGroup{key: str(cm["connector_key"]), names: make([]string, 0, len(list))}
			for _, s := range list {
				sm, _ := s.(map[string]any)
				g.names = append(g.names, e.inline(str(sm["name"]), 60))
			}
			out = append(out, g)
		}
		return out
	}
	at := map[string]int{}
	for _, r := range rows {
		key := str(r.get("connector_key"))
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, indexGroup{key: key})
		}
		out[i].names = append(out[i].names, e.inline(str(r.get("name")), 60))
	}
	return out
}

// ---- records ----

// renderRecords previews the first records of a page; resume(n) is the call
// that continues after the first n records of this page.
func renderRecords(stream string, env *recordList, t *Tuning, baseURL string, resume func(shown int) string) (string, []ladderRecord) {
	var b strings.Builder
	fmt.Fprintf(&b, "records from stream %s: %d record(s).", q(stream), len(env.Data))
	if env.HasMore {
		b.WriteString(" has_more=true.")
	}
	if env.NextCursor != "" {
		fmt.Fprintf(&b, " next_cursor=%s", q(env.NextCursor))
	}
	if env.NextChangesSince != "" {
		fmt.Fprintf(&b, " next_changes_since=%s", q(env.NextChangesSince))
	}
	if k := env.Meta.Count.Kind; k != "" && k != "none" {
		fmt.Fprintf(&b, " count=%s:%s", k, strings.Trim(string(env.Meta.Count.Value), `"`))
	}
	if len(env.Data) == 0 {
		return b.String(), nil
	}
	// Up to five records, and only as many as keep their field
	// continuations visible: a record whose continuations do not fit is left
	// to the resume call rather than shown with a hidden continuation.
	preview, maxConts := t.RecordPreviews, t.FieldContinuations
	e := ellipsis(t.Ellipsis)
	type item struct {
		id   string
		line string
	}
	var (
		items  []item
		ladder []ladderRecord
		conts  []string
	)
	moreFields := ""
	for i := 0; i < min(preview, len(env.Data)); i++ {
		rec := rawObject(env.Data[i])
		ref := RecordRef{ConnectionID: str(rec["connection_id"]), Stream: firstOf(str(rec["stream"]), stream), RecordID: str(rec["id"])}
		id := t.IDs.Format(ref)
		delete(rec, "connector_instance_id")
		if data, ok := rec["data"].(map[string]any); ok {
			shown, ev := previewData(id, data, baseURL, t)
			if i > 0 && len(conts)+len(ev) > maxConts {
				break
			}
			rec["data"] = shown
			if len(ev) > 0 {
				ladder = append(ladder, ladderRecord{ID: id, ConnectionID: ref.ConnectionID, Stream: ref.Stream, RecordID: ref.RecordID, Fields: ev})
				for j, fe := range ev {
					if len(conts) == maxConts-1 && len(ev)-j > 1 {
						// One record with more fields than fit: its fetch
						// document lists every field descriptor.
						moreFields = fmt.Sprintf("\nmore_fields=%d; next: fetch %s", len(ev)-j, compactJSON(map[string]string{"id": id}))
						break
					}
					conts = append(conts, fmt.Sprintf("record[%d].%s %s", i, fe.FieldPath, continuation(fe)))
				}
			}
		}
		items = append(items, item{id: id, line: compactJSON(rec)})
	}
	n := len(items)
	fmt.Fprintf(&b, ". Showing up to %d:", n)
	footer := "machine envelope in structuredContent.data"
	if len(env.Data) > n {
		footer = fmt.Sprintf("more_records=%d; next: %s\n", len(env.Data)-n, resume(n)) + footer
	}
	section := ""
	if len(conts) > 0 {
		shown := conts[:min(maxConts, len(conts))]
		section = "\nFields not shown inline:\n" + strings.Join(shown, "\n") + moreFields
		if len(conts) > len(shown) {
			section += fmt.Sprintf("\nmore_fields=%d (structuredContent.content_ladder)", len(conts)-len(shown))
		}
	}
	const cutNote = "record_preview_truncated=true; followup=fetch(id) or query_records(fields); "
	// Budget each preview line so the whole text, with its framing, the
	// continuations and the longest footer, stays within the text budget.
	reserve := len(cutNote) + len(footer) + 1 + len(section)
	for _, it := range items {
		reserve += len("\nrecord[0] id= ") + len(it.id)
	}
	per := (t.TextBudget - b.Len() - reserve) / n
	cut := false
	for i, it := range items {
		line := it.line
		if len(line) > per {
			line, cut = e.clipBytes(line, max(per, 24)), true
		}
		if it.id != "" {
			fmt.Fprintf(&b, "\nrecord[%d] id=%s %s", i, it.id, line)
		} else {
			fmt.Fprintf(&b, "\nrecord[%d] %s", i, line)
		}
	}
	b.WriteString(section)
	if cut {
		footer = cutNote + footer
	}
	b.WriteString("\n" + footer)
	return b.String(), ladder
}

// previewData is a record's data as a preview shows it: large text cut
// with a marker, binary and JSON fields as markers; the descriptors say
// what each marker stands for and how to read it.
func previewData(id string, data map[string]any, baseURL string, t *Tuning) (map[string]any, []*fieldEvidence) {
	shown, ev := safeRecord(id, data, baseURL, t)
	cut := ellipsis(t.Ellipsis)
	for _, e := range ev {
		switch {
		case e.Binary:
			shown[e.FieldPath] = fmt.Sprintf("[binary-only: %s, %d bytes]", firstOf(e.MimeType, e.Encoding), e.SizeBytes)
		case e.JSON:
			shown[e.FieldPath] = fmt.Sprintf("[json_field: %s, %s, %d chars]", e.PreviewStatus, e.MimeType, e.TotalChars)
		default:
			shown[e.FieldPath] = cut.clip(str(data[e.FieldPath]), t.ValueChars) + fmt.Sprintf(" [truncated: %d chars]", e.TotalChars)
		}
	}
	return shown, ev
}

// continuation is the visible next step for a field not shown inline.
func continuation(e *fieldEvidence) string {
	switch {
	case e.Binary && e.BlobRoute != "":
		return fmt.Sprintf("binary-only %s %d bytes; export: %s", firstOf(e.MimeType, "application/octet-stream"), e.SizeBytes, e.BlobRoute)
	case e.Binary:
		return fmt.Sprintf("binary-only %s %d bytes; metadata only", firstOf(e.MimeType, e.Encoding), e.SizeBytes)
	}
	tool, _ := e.Read["tool"].(string)
	return e.PreviewStatus + " " + tool + " args=" + compactJSON(e.Read["args"])
}

// ---- aggregate ----

func renderAggregate(stream string, a *aggregation, t *Tuning) string {
	head := a.Metric + "(" + stream + ")"
	if a.Field != nil && *a.Field != "" {
		head += " field=" + *a.Field
	}
	if a.GroupBy == nil && a.GroupByTime == nil {
		return head + " = " + strings.Trim(string(a.Value), `"`) + ". canonical envelope in structuredContent.data"
	}
	var b strings.Builder
	b.WriteString(head)
	if a.GroupBy != nil {
		fmt.Fprintf(&b, " group_by=%s", q(*a.GroupBy))
	} else {
		fmt.Fprintf(&b, " group_by_time=%s granularity=%s", q(*a.GroupByTime), q(deref(a.Granularity)))
		if a.TimeZone != nil {
			fmt.Fprintf(&b, " time_zone=%s", q(*a.TimeZone))
		}
	}
	fmt.Fprintf(&b, ": %d group(s)", len(a.Groups))
	var parts []string
	shown := t.AggregateGroups
	for _, g := range a.Groups[:min(shown, len(a.Groups))] {
		parts = append(parts, ellipsis(t.Ellipsis).clip(string(g.Key), 40)+"="+string(g.Count))
	}
	if len(parts) > 0 {
		b.WriteString(" [" + strings.Join(parts, ", ") + "]")
	}
	if len(a.Groups) > shown {
		fmt.Fprintf(&b, " more_groups=%d;", len(a.Groups)-shown)
	}
	if a.OtherCount != nil {
		fmt.Fprintf(&b, " other_count=%s;", a.OtherCount.String())
	}
	b.WriteString(" canonical envelope in structuredContent.data")
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ---- search ----

func (c *call) resultFor(h *searchHit) searchResult {
	ref := RecordRef{ConnectionID: h.ConnectionID, Stream: h.Stream, RecordID: h.RecordKey}
	cut := ellipsis(c.t.Ellipsis)
	key := h.ConnectorKey
	if key == "" {
		key = h.ConnectorID
	}
	r := searchResult{ID: c.t.IDs.Format(ref), Stream: h.Stream, RecordKey: h.RecordKey, ConnectionID: h.ConnectionID,
		ConnectorKey: key, DisplayName: h.DisplayName}
	r.URL = c.a.rs.BaseURL() + "/v1/streams/" + h.Stream + "/records/" + h.RecordKey
	if h.ConnectionID != "" {
		r.URL += "?connection_id=" + h.ConnectionID
	}
	var snip struct{ Text string }
	var s string
	if json.Unmarshal(h.Snippet, &snip) == nil && snip.Text != "" {
		s = snip.Text
	} else {
		_ = json.Unmarshal(h.Snippet, &s)
	}
	if s != "" {
		r.Snippet = cut.clipMarked(s, 320)
	}
	r.Title = h.Title
	if r.Title == "" {
		r.Title = fallbackTitle(firstOf(h.DisplayName, key, h.ConnectionID), h.Stream, firstOf(h.AuthoredAt, h.EmittedAt))
	}
	for _, e := range h.Evidence {
		status := "complete"
		if e.Truncated {
			status = "truncated"
		}
		r.Evidence = append(r.Evidence, evidenceExcerpt{FieldPath: e.FieldPath, PreviewText: cut.clipMarked(e.PreviewText, 320), PreviewStatus: status,
			Read: map[string]any{"tool": "read_record_field", "args": map[string]any{"id": r.ID, "field_path": e.FieldPath}}})
	}
	return r
}

// fallbackTitle names a hit by source, stream and its authored time, never by
// its snippet (seed 001).
func fallbackTitle(source, stream, ts string) string {
	parts := []string{}
	for _, p := range []string{source, stream, ts} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " / ")
}

// renderSearch shows the evidence and top hits that fit; resume(n) is the
// call that continues after the first n hits of this page.
func renderSearch(results []searchResult, hasMore bool, next string, t *Tuning, resume func(shown int) string) string {
	cut := ellipsis(t.Ellipsis)
	var b strings.Builder
	fmt.Fprintf(&b, "search: %d hit(s).", len(results))
	if hasMore {
		b.WriteString(" has_more=true.")
	}
	if next != "" {
		fmt.Fprintf(&b, " next_cursor=%s.", q(next))
	}
	if len(results) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, " first_fetch_id=%s", results[0].ID)
	if mix := sourceMix(results, t); mix != "" {
		b.WriteString(" source_mix=" + mix + ".")
	}
	// Evidence first, then the top hits; the closing guidance always fits,
	// and lines that do not fit are dropped whole, never cut mid-handle.
	const tail = "\nFetch a hit with `fetch` using its id as-is (ids are self-contained); read an evidence field with `read_record_field` {id, field_path}."
	var ev, top []string
	for i, r := range results {
		for _, e := range r.Evidence {
			if len(ev) < 3 {
				ev = append(ev, fmt.Sprintf("%d. result=%d field_path=%s snippet=%s id=%s complete=%t read=read_record_field",
					len(ev)+1, i+1, e.FieldPath, q(cut.centerMarked(e.PreviewText, t.SnippetChars)), r.ID, e.PreviewStatus == "complete"))
			}
		}
		if i < 3 {
			line := fmt.Sprintf("%d. id=%s title=%s", i+1, r.ID, q(cut.clip(r.Title, 80)))
			if r.Snippet != "" {
				line += " snippet=" + q(cut.centerMarked(r.Snippet, t.SnippetChars))
			}
			top = append(top, line)
		}
	}
	// Hits not shown are reached by a call that resumes after the shown ones.
	more := func(shown int) string {
		if shown >= len(results) {
			return ""
		}
		return fmt.Sprintf("\nmore_results=%d; next: %s", len(results)-shown, resume(shown))
	}
	room := t.TextBudget - b.Len() - len(tail) - len("\nTop results:") - len("\nEvidence excerpts:") - len(more(len(top))) - 2
	for _, l := range top {
		room -= len(l) + 1
	}
	for len(ev) > 0 && len(strings.Join(ev, "\n"))+1 > room {
		ev = ev[:len(ev)-1]
	}
	for len(top) > 1 && room < 0 {
		room += len(top[len(top)-1]) + 1
		top = top[:len(top)-1]
	}
	if len(ev) > 0 {
		b.WriteString("\nEvidence excerpts:\n" + strings.Join(ev, "\n"))
	}
	b.WriteString("\nTop results:\n" + strings.Join(top, "\n"))
	// Past the budget, hits go before the call that resumes after them.
	keep := more(len(top)) + tail
	if len(keep) > t.TextBudget/2 {
		b.WriteString(more(len(top)))
		keep = tail
	}
	return cut.fitLines(b.String(), keep, t.TextBudget)
}

// sourceMix counts hits per connection, computed from the hits themselves
// whenever more than one connection contributed (seed 001, C8).
func sourceMix(results []searchResult, t *Tuning) string {
	type src struct {
		conn, key string
		n         int
	}
	var order []*src
	by := map[string]*src{}
	for _, r := range results {
		s, ok := by[r.ConnectionID]
		if !ok {
			s = &src{conn: r.ConnectionID, key: r.ConnectorKey}
			by[r.ConnectionID] = s
			order = append(order, s)
		}
		s.n++
	}
	if len(order) < 2 {
		return ""
	}
	// Every contributing connection is named with its count (up to the
	// cap, when one is set); past eight, in the short form
	// {connection_id:count} to keep the line bounded.
	limit := t.SourceMixCap
	cut := ellipsis(t.Ellipsis)
	parts := make([]string, 0, len(order))
	for i, s := range order {
		switch {
		case limit > 0 && i == limit:
			parts = append(parts, fmt.Sprintf("more:%d", len(order)-limit))
		case limit > 0 && i > limit:
		case len(order) > 8:
			parts = append(parts, fmt.Sprintf("{%s:%d}", cut.inline(s.conn, 80), s.n))
		default:
			parts = append(parts, fmt.Sprintf("{connection_id:%s,connector_key:%s,count:%d}", cut.inline(s.conn, 80), cut.inline(s.key, 60), s.n))
		}
	}
	return strings.Join(parts, "|")
}

// ---- fetch ----

// A document is the MCP/OpenAI search-fetch document, and nothing more.
type document struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	URL      string         `json:"url"`
	Metadata map[string]any `json:"metadata"`
}

const fetchFallbackText = 1024

// documentFor builds the fetch document. With fields it shows only those
// (and the stream's declared key fields), whatever else the RS sent.
func (c *call) documentFor(id string, ref RecordRef, rec *record, sc streamScope, fields []string) document {
	data := rawObject(rec.Data)
	projected := len(fields) > 0
	if projected {
		data = projectData(data, append(append([]string(nil), fields...), sc.keys...))
	}
	if ref.ConnectionID == "" {
		ref.ConnectionID = rec.ConnectionID
	}
	doc := document{ID: id, Metadata: map[string]any{"stream": ref.Stream, "record_id": ref.RecordID}}
	if !strings.Contains(id, ":") {
		doc.ID = c.t.IDs.Format(ref)
	}
	for k, v := range map[string]string{"connection_id": rec.ConnectionID, "connector_key": rec.ConnectorKey, "display_name": rec.DisplayName, "emitted_at": rec.EmittedAt} {
		if v != "" {
			doc.Metadata[k] = v
		}
	}
	doc.URL = c.a.rs.BaseURL() + "/v1/streams/" + ref.Stream + "/records/" + ref.RecordID
	if rec.ConnectionID != "" {
		doc.URL += "?connection_id=" + rec.ConnectionID
	}
	// Title and text come from declared display roles only (seed 002): a
	// field merely named like a title is not promoted.
	titleField, textField := sc.fieldWithRole("primary-title"), sc.fieldWithRole("primary-text")
	if s, ok := data[titleField].(string); ok && s != "" {
		doc.Title = s
	} else {
		ts := ""
		for _, k := range []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"} {
			if s, ok := data[k].(string); ok && s != "" {
				ts = s
				break
			}
		}
		doc.Title = fallbackTitle(firstOf(rec.DisplayName, rec.ConnectorKey, rec.ConnectionID), ref.Stream, firstOf(ts, rec.EmittedAt))
	}
	rest := map[string]any{}
	for k, v := range data {
		if k != textField {
			rest[k] = v
		}
	}
	safe, ev := safeRecord(c.t.IDs.Format(ref), rest, c.a.rs.BaseURL(), c.t)
	if projected {
		ev = inlineRequestedJSON(safe, ev, rest, fields, c.t)
	}
	if len(ev) > 0 {
		doc.Metadata["fields"] = ev
	}
	if s, ok := data[textField].(string); ok && s != "" && !isBase64Blob(s) {
		doc.Text = s
		c.boundDocumentText(&doc, ref, textField)
		return doc
	}
	if projected {
		// The requested fields are the answer: the text is their JSON.
		doc.Text = compactJSON(safe)
		return doc
	}
	suffix := " [no field declares the primary-text role; use query_records or fetch(fields) for structured records]"
	doc.Text = ellipsis(c.t.Ellipsis).clipBytes(compactJSON(safe), fetchFallbackText-len(suffix)) + suffix
	return doc
}

// projectData keeps the keep fields of data.
func projectData(data map[string]any, keep []string) map[string]any {
	out := map[string]any{}
	for k, v := range data {
		if slices.Contains(keep, k) {
			out[k] = v
		}
	}
	return out
}

// inlineRequestedJSON puts requested JSON fields back whole in place of
// their descriptors, as long as together they stay within the fetch text
// limit; larger ones keep a descriptor with a windowed read.
func inlineRequestedJSON(safe map[string]any, ev []*fieldEvidence, data map[string]any, fields []string, t *Tuning) []*fieldEvidence {
	room := t.FetchTextLimit
	var kept []*fieldEvidence
	for _, e := range ev {
		if e.JSON && slices.Contains(fields, e.FieldPath) && e.TotalChars <= room {
			room -= e.TotalChars
			safe[e.FieldPath] = data[e.FieldPath]
			continue
		}
		if e.JSON && e.Read["tool"] == "fetch" {
			e.Read = map[string]any{"tool": "read_record_field", "args": map[string]any{"id": e.Read["args"].(map[string]any)["id"], "field_path": e.FieldPath, "offset_chars": 0, "limit_chars": t.FieldWindow}}
		}
		kept = append(kept, e)
	}
	return kept
}

// boundDocumentText cuts a text longer than the fetch text limit and says
// so, in the text and in metadata, with the read_record_field call that
// continues it: never a silent cut that passes for the whole (seeds 002, 004).
func (c *call) boundDocumentText(doc *document, ref RecordRef, field string) {
	limit := c.t.FetchTextLimit
	runes := []rune(doc.Text)
	if len(runes) <= limit {
		return
	}
	doc.Text = string(runes[:limit])
	next := map[string]any{"id": c.t.IDs.Format(ref), "field_path": field, "offset_chars": limit}
	doc.Metadata["text_truncated"] = true
	doc.Metadata["text_field"] = field
	doc.Metadata["text_total_chars"] = len(runes)
	doc.Metadata["text_continuation"] = map[string]any{"tool": "read_record_field", "args": next}
	doc.Text += fmt.Sprintf("%s [text truncated at %d of %d characters; continue with read_record_field %s]", c.t.Ellipsis, limit, len(runes), compactJSON(next))
}

// ---- read_record_field ----

func renderFieldWindow(ref RecordRef, in fieldArgs, fw *fieldWindow, t *Tuning) *mcp.CallToolResult {
	w := fw.Window
	id := t.IDs.Format(ref)
	var b strings.Builder
	fmt.Fprintf(&b, "record=%s field=%s chars=%q..%q total_chars=%q complete=%t", id, in.FieldPath,
		strconv.Itoa(w.StartChars), strconv.Itoa(w.EndChars), strconv.Itoa(w.TotalChars), w.Complete)
	if fw.Field.Type == "json" {
		b.WriteString(" media_type=application/json")
	}
	next, prev := any(nil), any(nil)
	if w.NextOffsetChars != nil {
		next = strconv.Itoa(*w.NextOffsetChars)
		fmt.Fprintf(&b, " next_cursor=%d", *w.NextOffsetChars)
	}
	if w.PreviousOffsetChars != nil {
		prev = strconv.Itoa(*w.PreviousOffsetChars)
		fmt.Fprintf(&b, " previous_cursor=%d", *w.PreviousOffsetChars)
	}
	if w.MatchStartChars != nil && w.MatchEndChars != nil {
		fmt.Fprintf(&b, " match_start_chars=%d match_end_chars=%d", *w.MatchStartChars, *w.MatchEndChars)
	}
	args := func(off int) string {
		a := map[string]any{"id": id, "field_path": in.FieldPath, "offset_chars": off}
		if in.LimitChars > 0 {
			a["limit_chars"] = in.LimitChars
		}
		return compactJSON(a)
	}
	if w.NextOffsetChars != nil {
		fmt.Fprintf(&b, "\nnext_offset_chars=%d\nnext read_record_field args=%s", *w.NextOffsetChars, args(*w.NextOffsetChars))
	}
	if w.PreviousOffsetChars != nil {
		fmt.Fprintf(&b, "\nprevious_offset_chars=%d\nprevious read_record_field args=%s", *w.PreviousOffsetChars, args(*w.PreviousOffsetChars))
	}
	window := map[string]any{"text": w.Text, "total_chars": w.TotalChars, "start_chars": w.StartChars, "end_chars": w.EndChars,
		"limit_chars": w.LimitChars, "complete": w.Complete, "has_more": w.HasMore, "match_start_chars": w.MatchStartChars,
		"match_end_chars": w.MatchEndChars, "next_cursor": next, "previous_cursor": prev}
	field := map[string]any{"path": in.FieldPath, "type": fw.Field.Type, "text_like": true}
	if fw.Field.Type == "json" {
		field["text_like"], field["media_type"] = false, "application/json"
	}
	structured := map[string]any{
		"record": map[string]any{"id": id, "connection_id": ref.ConnectionID, "stream": ref.Stream, "record_id": ref.RecordID},
		"field":  field,
		"window": window,
	}
	b.WriteString("\n" + w.Text)
	return textResult(b.String(), structured)
}
