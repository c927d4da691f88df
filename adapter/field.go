package adapter

// The read_record_field tool: bounded windows of one text field, and of
// JSON fields as compact JSON text (seed 004).

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

type fieldArgs struct {
	ID           string `json:"id"`
	FieldPath    string `json:"field_path"`
	ConnectionID string `json:"connection_id"`
	OffsetChars  *int   `json:"offset_chars"`
	LimitChars   int    `json:"limit_chars"`
	Cursor       string `json:"cursor"`
	Q            string `json:"q"`
	BeforeChars  *int   `json:"before_chars"`
	AfterChars   *int   `json:"after_chars"`
}

func (c *call) readRecordField(in fieldArgs) (*mcp.CallToolResult, error) {
	sel := func(msg string) error {
		return &toolError{Code: "invalid_field_window_selector", Message: msg}
	}
	switch {
	case in.Cursor != "" && in.OffsetChars != nil:
		return nil, sel("pass cursor or offset_chars, not both")
	case in.Q != "" && (in.Cursor != "" || in.OffsetChars != nil):
		return nil, sel("q places the window itself; do not combine it with cursor or offset_chars")
	case in.Q == "" && (in.BeforeChars != nil || in.AfterChars != nil):
		return nil, sel("before_chars and after_chars need q")
	}
	if rest, ok := strings.CutPrefix(in.ID, FieldWindowURIPrefix); ok {
		if err := in.fromWindowHandle(rest); err != nil {
			return nil, err
		}
	}
	ref, err := c.parseID(in.ID, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID), "field-window")
	if err != nil {
		return nil, err
	}
	if err := c.requireSource(ref.Stream, ref.ConnectionID); err != nil {
		return nil, err
	}
	q := url.Values{"field": {in.FieldPath}}
	setIf(q, "connection_id", ref.ConnectionID)
	switch {
	case in.Cursor != "":
		q.Set("offset_chars", in.Cursor)
	case in.OffsetChars != nil:
		q.Set("offset_chars", strconv.Itoa(*in.OffsetChars))
	}
	if in.LimitChars > 0 {
		q.Set("limit_chars", strconv.Itoa(in.LimitChars))
	}
	setIf(q, "q", in.Q)
	if in.BeforeChars != nil {
		q.Set("before_chars", strconv.Itoa(*in.BeforeChars))
	}
	if in.AfterChars != nil {
		q.Set("after_chars", strconv.Itoa(*in.AfterChars))
	}
	body, _, err := c.get(path, q)
	var re *rsclient.Error
	if errors.As(err, &re) && re.Code == "field_not_text" && in.Q == "" {
		if res, ok := c.jsonFieldWindow(ref, in); ok {
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	var fw fieldWindow
	if err := json.Unmarshal(body, &fw); err != nil {
		return nil, &toolError{Code: "rs_malformed_body", Message: "field-window body is not a JSON object"}
	}
	return renderFieldWindow(ref, in, &fw, c.t), nil
}

// FieldWindowURIPrefix starts a field-window handle. The adapter never
// emits one, but read_record_field takes one as its id wherever a record
// or a client shows it (seed 004: a field-window URI is accepted directly
// by the bounded field read, so a failed resource read is never the only
// next step).
const FieldWindowURIPrefix = "pdpp://field-window/"

// fromWindowHandle reads a field-window handle, base64url JSON of the
// record ({connection_id, stream, record_id}), its field_path and its
// window (offset_chars, limit_chars), into the call's arguments: the
// record as a pdpp://record/ handle, checked as any id is, and the window
// where the call names none of its own.
func (in *fieldArgs) fromWindowHandle(rest string) error {
	bad := func(msg string) error {
		return &toolError{Code: "invalid_id", Param: "id", Message: "malformed pdpp://field-window/ handle: " + msg}
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(rest, "="))
	if err != nil || len(raw) == 0 || raw[0] != '{' {
		return bad("not base64url JSON")
	}
	var h struct {
		ConnectionID string `json:"connection_id"`
		Stream       string `json:"stream"`
		RecordID     string `json:"record_id"`
		FieldPath    string `json:"field_path"`
		OffsetChars  *int   `json:"offset_chars"`
		LimitChars   int    `json:"limit_chars"`
	}
	if json.Unmarshal(raw, &h) != nil || h.Stream == "" || h.RecordID == "" || h.FieldPath == "" {
		return bad("it needs stream, record_id and field_path")
	}
	if in.FieldPath != h.FieldPath {
		return &toolError{Code: "invalid_field_window_selector", Param: "field_path",
			Message: "the handle reads field " + h.FieldPath + " but field_path is " + in.FieldPath + "; pass the handle's field"}
	}
	record, _ := json.Marshal(map[string]string{"connection_id": h.ConnectionID, "stream": h.Stream, "record_id": h.RecordID})
	in.ID = RecordURIPrefix + base64.RawURLEncoding.EncodeToString(record)
	if in.Cursor == "" && in.OffsetChars == nil && in.Q == "" {
		in.OffsetChars = h.OffsetChars
	}
	if in.LimitChars == 0 {
		in.LimitChars = h.LimitChars
	}
	return nil
}

// jsonFieldWindow reads a JSON object or array field, which the RS's field
// window refuses as not text, as windows of its compact JSON text: the
// continuation that makes a large JSON field reachable in full (seed 004).
func (c *call) jsonFieldWindow(ref RecordRef, in fieldArgs) (*mcp.CallToolResult, bool) {
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID))
	if err != nil {
		return nil, false
	}
	q := url.Values{"fields": {in.FieldPath}}
	setIf(q, "connection_id", ref.ConnectionID)
	body, _, err := c.get(path, q)
	if err != nil {
		return nil, false
	}
	var rec record
	if json.Unmarshal(body, &rec) != nil {
		return nil, false
	}
	v := rawObject(rec.Data)[in.FieldPath]
	switch v.(type) {
	case map[string]any, []any:
	default:
		return nil, false
	}
	text := []rune(compactJSON(v))
	offset, limit := 0, c.t.FieldWindow
	if in.OffsetChars != nil {
		offset = *in.OffsetChars
	} else if in.Cursor != "" {
		offset, _ = strconv.Atoi(in.Cursor)
	}
	if in.LimitChars > 0 {
		limit = min(in.LimitChars, 16384)
	}
	offset = min(max(offset, 0), len(text))
	end := min(offset+limit, len(text))
	var fw fieldWindow
	fw.Field.Path, fw.Field.Type = in.FieldPath, "json"
	w := &fw.Window
	w.Text, w.TotalChars, w.StartChars, w.EndChars, w.LimitChars = string(text[offset:end]), len(text), offset, end, limit
	w.Complete = offset == 0 && end == len(text)
	w.HasMore = end < len(text)
	if w.HasMore {
		w.NextOffsetChars = &end
	}
	if offset > 0 {
		prev := max(0, offset-limit)
		w.PreviousOffsetChars = &prev
	}
	return renderFieldWindow(ref, in, &fw, c.t), true
}

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
