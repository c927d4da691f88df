package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

const defaultWindowChars = 4000

func (t *toolCtx) readRecordField(a args) (*toolOut, *ToolError) {
	if te := a.checkAllowed("id", "stream", "record_id", "connection_id", "field", "offset", "max_chars", "query", "context_chars"); te != nil {
		return nil, te
	}
	conn, stream, rec, te := resolveRecordArgs(a)
	if te != nil {
		return nil, te
	}
	field, te := a.reqStr("field")
	if te != nil {
		return nil, te
	}
	offset, hasOffset, te := a.intv("offset", 0, 1<<31-1)
	if te != nil {
		return nil, te
	}
	maxChars, hasMax, te := a.intv("max_chars", 1, 16384)
	if te != nil {
		return nil, te
	}
	query, te := a.str("query")
	if te != nil {
		return nil, te
	}
	ctxChars, hasCtx, te := a.intv("context_chars", 0, 8192)
	if te != nil {
		return nil, te
	}
	if query != "" && hasOffset {
		return nil, argErr("query", "query and offset are exclusive: use query to jump to a match, offset to continue reading.")
	}
	if hasCtx && query == "" {
		return nil, argErr("context_chars", "context_chars only applies together with query.")
	}
	q := url.Values{"field": {field}}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	if query != "" {
		q.Set("q", query)
		if !hasCtx {
			ctxChars = 500
		}
		q.Set("before_chars", strconv.Itoa(ctxChars))
		q.Set("after_chars", strconv.Itoa(ctxChars))
		if hasMax {
			q.Set("limit_chars", strconv.Itoa(maxChars))
		}
	} else {
		if !hasMax {
			maxChars = defaultWindowChars
		}
		q.Set("offset_chars", strconv.Itoa(offset))
		q.Set("limit_chars", strconv.Itoa(maxChars))
	}
	doc, rerr := t.get(streamPath(stream, "records", url.PathEscape(rec), "field-window"), q)
	if rerr != nil {
		te := t.rsErr(rerr, stream)
		switch te.Code {
		case "field_not_text":
			te.Message += " (read_record_field only serves text fields; use fetch or query_records with fields=[\"" + field + "\"] for other values)"
		case "query_not_found":
			te.Message += " (try a shorter query, or read by offset)"
		}
		return nil, te
	}
	w := mapOf(doc["window"])
	fd := mapOf(doc["field"])
	handle := makeHandle(conn, stream, firstNonEmpty(str(doc["record_id"]), rec))
	limitUsed := firstNonEmpty(str(w["limit_chars"]), strconv.Itoa(maxChars))
	mk := func(off any) map[string]any {
		if off == nil {
			return nil
		}
		m := map[string]any{"id": handle, "field": field, "offset": off}
		if n, err := strconv.Atoi(limitUsed); err == nil && query == "" {
			m["max_chars"] = n
		} else {
			m["max_chars"] = defaultWindowChars
		}
		return m
	}
	next, prev := mk(w["next_offset_chars"]), mk(w["previous_offset_chars"])
	text := str(w["text"])
	complete, _ := w["complete"].(bool)
	hasMore, _ := w["has_more"].(bool)
	out := map[string]any{"id": handle, "stream": stream, "record_id": firstNonEmpty(str(doc["record_id"]), rec), "field": firstNonEmpty(str(fd["path"]), field),
		"field_type": fd["type"], "text": text, "total_chars": w["total_chars"], "start_chars": w["start_chars"], "end_chars": w["end_chars"],
		"complete": complete, "has_more": hasMore}
	if conn != "" {
		out["connection_id"] = conn
	}
	if w["match_start_chars"] != nil {
		out["match_start_chars"] = w["match_start_chars"]
		out["match_end_chars"] = w["match_end_chars"]
	}
	if next != nil {
		out["next"] = map[string]any{"tool": "read_record_field", "arguments": next}
	}
	if prev != nil {
		out["previous"] = map[string]any{"tool": "read_record_field", "arguments": prev}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# `%s` of %s/%s", out["field"], stream, out["record_id"])
	if conn != "" {
		fmt.Fprintf(&b, " (connection %s)", conn)
	}
	fmt.Fprintf(&b, "\nchars %s–%s of %s · ", str(w["start_chars"]), str(w["end_chars"]), str(w["total_chars"]))
	switch {
	case complete:
		b.WriteString("complete field (nothing omitted)")
	case hasMore:
		b.WriteString("partial window, more text follows")
	default:
		b.WriteString("partial window (end of field reached; earlier text exists)")
	}
	if w["match_start_chars"] != nil {
		fmt.Fprintf(&b, " · match at %s–%s", str(w["match_start_chars"]), str(w["match_end_chars"]))
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	fmt.Fprintf(&b, "\n%stext\n%s\n%s\n", fence, text, fence)
	if next != nil {
		fmt.Fprintf(&b, "next: read_record_field %s\n", toJSON(next))
	}
	if prev != nil {
		fmt.Fprintf(&b, "previous: read_record_field %s\n", toJSON(prev))
	}
	if ws := listOf(mapOf(doc["meta"])["warnings"]); len(ws) > 0 {
		out["warnings"] = ws
		for _, x := range ws {
			fmt.Fprintf(&b, "warning %s: %s\n", str(mapOf(x)["code"]), str(mapOf(x)["message"]))
		}
	}
	return &toolOut{Text: b.String(), Structured: out}, nil
}
