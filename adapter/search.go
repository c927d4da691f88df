package adapter

// The search tool: hits merged across connections, with self-contained ids,
// balanced highlights and bounded evidence.

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

type searchArgs struct {
	Q            string   `json:"q"`
	Streams      []string `json:"streams,omitempty"`
	ConnectionID string   `json:"connection_id,omitempty"`
	Limit        int      `json:"limit,omitempty"`
	Cursor       string   `json:"cursor,omitempty"`
}

const defaultSearchLimit = 25

func (c *call) search(in searchArgs) (*mcp.CallToolResult, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	q := url.Values{"q": {in.Q}, "limit": {strconv.Itoa(limit)}}
	for _, s := range in.Streams {
		q.Add("streams", s)
	}
	setIf(q, "connection_id", in.ConnectionID)
	skip, rsCursor, err := parseSkipCursor(in.Cursor)
	if err != nil {
		return nil, err
	}
	setIf(q, "cursor", rsCursor)
	body, reqID, err := c.get("/v1/search", q)
	if err != nil {
		return nil, err
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil || env == nil { // null decodes to a nil map
		return nil, &toolError{Code: "rs_malformed_body", Message: "search body is not a JSON object"}
	}
	var hits []searchHit
	_ = json.Unmarshal(env["data"], &hits)
	truncated := false
	if len(hits) > limit { // a global limit over merged hits, not per connection
		hits, truncated = hits[:limit], true
	}
	hits = hits[min(skip, len(hits)):]
	results := make([]searchResult, len(hits))
	for i := range hits {
		results[i] = c.resultFor(&hits[i])
	}
	delete(env, "data")
	env["result_count"] = json.RawMessage(strconv.Itoa(len(results)))
	env["results_ref"] = json.RawMessage(`"structuredContent.results"`)
	if truncated {
		env["has_more"] = json.RawMessage("true")
	}
	if reqID != "" {
		env["request_id"], _ = json.Marshal(reqID)
	}
	var meta struct {
		HasMore    bool
		NextCursor string
	}
	_ = json.Unmarshal(env["has_more"], &meta.HasMore) // small members: no second pass over the body
	_ = json.Unmarshal(env["next_cursor"], &meta.NextCursor)
	resume := func(shown int) string {
		next := in
		next.Limit, next.Cursor = limit, skipCursor(skip+shown, rsCursor)
		return "search " + compactJSON(next)
	}
	text := renderSearch(results, meta.HasMore || truncated, meta.NextCursor, c.t, resume)
	return textResult(text, map[string]any{"results": results, "data": env}), nil
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
		r.Title = c.t.FallbackTitle(firstOf(h.DisplayName, key, h.ConnectionID), h.Stream, firstOf(h.AuthoredAt, h.EmittedAt))
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
