package adapter

// The query_records tool: one bounded page of a stream's records, previewed
// in text with every paging handle and field continuation.

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

type queryArgs struct {
	Stream       string          `json:"stream"`
	ConnectionID string          `json:"connection_id,omitempty"`
	Fields       []string        `json:"fields,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
	Limit        int             `json:"limit,omitempty"`
	Cursor       string          `json:"cursor,omitempty"`
	Order        string          `json:"order,omitempty"`
	Sort         string          `json:"sort,omitempty"`
	Count        string          `json:"count,omitempty"`
	ChangesSince string          `json:"changes_since,omitempty"`
	Expand       []string        `json:"expand,omitempty"`
	ExpandLimit  json.RawMessage `json:"expand_limit,omitempty"`
}

func (c *call) queryRecords(in queryArgs) (*mcp.CallToolResult, error) {
	path, err := streamPath(in.Stream, "records")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if err := encodeFilter(q, in.Filter); err != nil {
		return nil, err
	}
	if err := encodeExpand(q, in.Expand, in.ExpandLimit); err != nil {
		return nil, err
	}
	if err := c.checkList(in.Stream, in.ConnectionID, in.ChangesSince != "", requestedRelations(q)); err != nil {
		return nil, err
	}
	for _, f := range in.Fields {
		q.Add("fields", f)
	}
	setIf(q, "connection_id", in.ConnectionID)
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	skip, rsCursor, err := parseSkipCursor(in.Cursor)
	if err != nil {
		return nil, err
	}
	setIf(q, "cursor", rsCursor)
	sortKeys, order, err := canonicalSort(in.Sort, in.Order)
	if err != nil {
		return nil, err
	}
	setIf(q, "sort", sortKeys)
	setIf(q, "order", order)
	setIf(q, "count", in.Count)
	setIf(q, "changes_since", in.ChangesSince)
	body, reqID, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	if len(in.Fields) > 0 && !c.t.RSProjects {
		body = projectEnvelope(body, in.Fields)
	}
	if skip > 0 {
		body = skipEnvelope(body, skip)
	}
	var env recordList
	_ = json.Unmarshal(body, &env)
	resume := func(shown int) string {
		next := in
		next.Cursor = skipCursor(skip+shown, rsCursor)
		return "query_records " + compactJSON(next)
	}
	text, ladder := renderRecords(in.Stream, &env, c.t, c.a.rs.BaseURL(), resume)
	structured := map[string]any{"data": body, "request_id": reqID}
	if len(ladder) > 0 {
		structured["content_ladder"] = map[string]any{"kind": "record_set", "records": ladder}
	}
	return textResult(text, structured), nil
}

// canonicalSort folds order into sort's signs (-field is descending), so the
// RS gets canonical sort alone: the RS contract refuses a sort and an order
// that disagree, and "sort: created_at, order: desc" is how agents write a
// descending read. order goes on only without sort (the RS then orders by
// the stream's cursor field), or when it is no direction the RS knows (its
// typed error then names it).
func canonicalSort(sort, order string) (string, string, error) {
	dir := strings.ToLower(order)
	if sort == "" || (dir != "asc" && dir != "desc") {
		return sort, order, nil
	}
	keys := strings.Split(sort, ",")
	for i, k := range keys {
		field := strings.TrimLeft(k, "+-")
		signed := "asc"
		if strings.HasPrefix(k, "-") {
			signed = "desc"
		}
		if field != k && signed != dir {
			return "", "", &toolError{Code: "invalid_sort", Param: "order",
				Message: fmt.Sprintf("sort %q is %s but order is %s: send sort alone (%s ascending, -%s descending)", k, signed, dir, field, field)}
		}
		if dir == "desc" {
			field = "-" + field
		}
		keys[i] = field
	}
	return strings.Join(keys, ","), "", nil
}

// projectedKeys are the operational keys a projected record keeps beside its
// requested fields: identity for fetch, paging and retry (seed 001). The
// fields argument's description declares them.
var projectedKeys = []string{"id", "stream", "connection_id"}

// projectEnvelope narrows every record of a list envelope to its
// operational keys plus data holding only the requested fields, whatever
// else the RS sent along.
func projectEnvelope(body json.RawMessage, fields []string) json.RawMessage {
	var env map[string]json.RawMessage
	var recs []map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env["data"], &recs) != nil {
		return body
	}
	out := make([]map[string]json.RawMessage, len(recs))
	for i, r := range recs {
		p := map[string]json.RawMessage{}
		for _, k := range projectedKeys {
			if v, ok := r[k]; ok {
				p[k] = v
			}
		}
		var data map[string]json.RawMessage
		if json.Unmarshal(r["data"], &data) == nil && data != nil {
			kept := map[string]json.RawMessage{}
			for _, f := range fields {
				if v, ok := data[f]; ok {
					kept[f] = v
				}
			}
			p["data"], _ = json.Marshal(kept)
		}
		out[i] = p
	}
	env["data"], _ = json.Marshal(out)
	b, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return b
}

// skipEnvelope drops the first n records of a list envelope: the ones an
// earlier answer already showed from the same RS page.
func skipEnvelope(body json.RawMessage, n int) json.RawMessage {
	var env map[string]json.RawMessage
	var recs []json.RawMessage
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env["data"], &recs) != nil {
		return body
	}
	env["data"], _ = json.Marshal(recs[min(n, len(recs)):])
	b, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return b
}

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
	e := ellipsis(t.Ellipsis)
	// The RS's warnings say what a page is not: a fanned-in page has more
	// records but no cursor, and says which argument pages it instead.
	for _, w := range env.Meta.Warnings {
		fmt.Fprintf(&b, " warning=%s %s", e.inline(w.Code, 40), q(e.clip(w.Message, 240)))
	}
	if len(env.Data) == 0 {
		return b.String(), nil
	}
	// Up to five records, and only as many as keep their field
	// continuations visible: a record whose continuations do not fit is left
	// to the resume call rather than shown with a hidden continuation.
	preview, maxConts := t.RecordPreviews, t.FieldContinuations
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
	case e.Binary && e.Read != nil:
		return fmt.Sprintf("binary-only %s %d bytes; explicit raw read: %s args=%s", firstOf(e.MimeType, e.Encoding), e.SizeBytes, e.Read["tool"], compactJSON(e.Read["args"]))
	case e.Binary:
		return fmt.Sprintf("binary-only %s %d bytes; metadata only", firstOf(e.MimeType, e.Encoding), e.SizeBytes)
	}
	tool, _ := e.Read["tool"].(string)
	return e.PreviewStatus + " " + tool + " args=" + compactJSON(e.Read["args"])
}
