package main

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// ---------- record handles ----------
// A record handle is "connection_id/stream/record_id" with each segment
// URL-path-escaped; "_" stands for "no connection known".

func makeHandle(conn, stream, rec string) string {
	c := "_"
	if conn != "" {
		c = url.PathEscape(conn)
	}
	return c + "/" + url.PathEscape(stream) + "/" + url.PathEscape(rec)
}

func parseHandle(h string) (conn, stream, rec string, ok bool) {
	h = strings.TrimSpace(h)
	h = strings.TrimPrefix(h, "pdpp://record/")
	parts := strings.Split(h, "/")
	var err1, err2, err3 error
	switch len(parts) {
	case 3:
		conn, err1 = url.PathUnescape(parts[0])
		stream, err2 = url.PathUnescape(parts[1])
		rec, err3 = url.PathUnescape(parts[2])
		if conn == "_" {
			conn = ""
		}
	case 2:
		stream, err2 = url.PathUnescape(parts[0])
		rec, err3 = url.PathUnescape(parts[1])
	default:
		return "", "", "", false
	}
	if err1 != nil || err2 != nil || err3 != nil || stream == "" || rec == "" {
		return "", "", "", false
	}
	return conn, stream, rec, true
}

// resolveRecordArgs reads id | (stream, record_id) plus connection_id.
func resolveRecordArgs(a args) (conn, stream, rec string, te *ToolError) {
	id, te := a.str("id")
	if te != nil {
		return
	}
	conn, te = a.str("connection_id")
	if te != nil {
		return
	}
	stream, te = a.str("stream")
	if te != nil {
		return
	}
	rec, te = a.str("record_id")
	if te != nil {
		return
	}
	if id != "" {
		hc, hs, hr, ok := parseHandle(id)
		if !ok {
			if stream == "" {
				return "", "", "", argErr("id", "id must be a handle 'connection_id/stream/record_id' as returned by search (or pass stream and record_id).")
			}
			hr, hs = id, stream // a bare record id plus explicit stream
		}
		if conn != "" && hc != "" && conn != hc {
			return "", "", "", argErr("connection_id", "connection_id conflicts with the connection encoded in id.")
		}
		if conn == "" {
			conn = hc
		}
		stream, rec = hs, hr
	}
	if stream == "" || rec == "" {
		return "", "", "", argErr("id", "Pass id (from search) or both stream and record_id.")
	}
	return
}

// ---------- value rendering ----------

var b64re = regexp.MustCompile(`^[A-Za-z0-9+/=_\-\r\n]+$`)

func isBlobRef(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	if _, ok := m["blob_id"]; ok {
		return m, true
	}
	return nil, false
}

func isBinaryString(s string) bool {
	if len(s) < 512 {
		return false
	}
	if strings.HasPrefix(s, "data:") && strings.Contains(s[:min(len(s), 200)], ";base64,") {
		return true
	}
	return !strings.ContainsAny(s[:min(len(s), 4096)], " \t") && b64re.MatchString(s[:min(len(s), 4096)])
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// blobSummary renders blob_ref metadata without content.
func (t *toolCtx) blobSummary(m map[string]any, handle string) string {
	conn, _, _, _ := parseHandle(handle)
	parts := []string{"blob " + str(m["blob_id"])}
	if mt := str(m["mime_type"]); mt != "" {
		parts = append(parts, mt)
	}
	if sz := str(m["size_bytes"]); sz != "" {
		parts = append(parts, sz+" bytes")
	}
	parts = append(parts, "binary not inlined", "MCP resource "+blobResourceURI(str(m["blob_id"]), conn), "grant-scoped REST read: GET "+t.blobURL(m))
	return "[" + strings.Join(parts, " · ") + "]"
}

func (t *toolCtx) blobURL(m map[string]any) string {
	if fu := str(m["fetch_url"]); strings.HasPrefix(fu, "/") {
		return t.s.rs.URL("", nil) + fu
	}
	return t.s.rs.URL("/v1/blobs/"+url.PathEscape(str(m["blob_id"])), nil)
}

// truncNote describes a value cut in visible/structured output and how to continue.
type truncNote struct {
	Field      string         `json:"field"`
	TotalChars int            `json:"total_chars"`
	ShownChars int            `json:"shown_chars"`
	Kind       string         `json:"kind"`
	Continue   map[string]any `json:"continue"`
}

// renderField renders one top-level field value for visible text, bounded to max chars.
func (t *toolCtx) renderField(handle, field string, v any, max int) (string, *truncNote) {
	if m, ok := isBlobRef(v); ok {
		return t.blobSummary(m, handle), nil
	}
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		x = strings.ReplaceAll(x, "\r\n", "\n")
		n := runeLen(x)
		if isBinaryString(x) {
			return fmt.Sprintf("[binary-like string · %d chars · not inlined · read_record_field {\"id\":%q,\"field\":%q} for a bounded window]", n, handle, field), &truncNote{Field: field, TotalChars: n, ShownChars: 0, Kind: "binary_like",
				Continue: map[string]any{"tool": "read_record_field", "arguments": map[string]any{"id": handle, "field": field, "offset": 0}}}
		}
		if n <= max {
			return oneLine(x), nil
		}
		shown := cutRunes(x, max)
		note := &truncNote{Field: field, TotalChars: n, ShownChars: max, Kind: "text",
			Continue: map[string]any{"tool": "read_record_field", "arguments": map[string]any{"id": handle, "field": field, "offset": max}}}
		return fmt.Sprintf("%s… ⟨cut: showing %d of %d chars; continue with read_record_field %s⟩", oneLine(shown), max, n, toJSON(note.Continue["arguments"])), note
	default:
		j := toJSON(x)
		n := runeLen(j)
		if n <= max {
			return j, nil
		}
		note := &truncNote{Field: field, TotalChars: n, ShownChars: max, Kind: "json",
			Continue: map[string]any{"tool": "query_records", "arguments": map[string]any{"fields": []string{field}}, "note": "full value is in structuredContent of query_records"}}
		return fmt.Sprintf("%s… ⟨cut: JSON value %d chars; the full value is in query_records structured records (narrow with fields=[%q])⟩", cutRunes(j, max), n, field), note
	}
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	s = strings.ReplaceAll(s, "\t", " ")
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}

// boundStructured bounds record data for structuredContent: very long strings
// are cut with a descriptor, binary-like strings become metadata.
func boundStructured(handle string, data map[string]any, max int) (map[string]any, []truncNote) {
	out := make(map[string]any, len(data))
	var notes []truncNote
	for _, k := range sortedKeys(data) {
		v := data[k]
		s, ok := v.(string)
		if !ok {
			out[k] = v
			continue
		}
		n := runeLen(s)
		switch {
		case isBinaryString(s):
			out[k] = map[string]any{"omitted": "binary_like_string", "chars": n}
			notes = append(notes, truncNote{Field: k, TotalChars: n, ShownChars: 0, Kind: "binary_like",
				Continue: map[string]any{"tool": "read_record_field", "arguments": map[string]any{"id": handle, "field": k, "offset": 0}}})
		case n > max:
			out[k] = cutRunes(s, max)
			notes = append(notes, truncNote{Field: k, TotalChars: n, ShownChars: max, Kind: "text",
				Continue: map[string]any{"tool": "read_record_field", "arguments": map[string]any{"id": handle, "field": k, "offset": max}}})
		default:
			out[k] = s
		}
	}
	return out, notes
}

// project keeps only the requested keys (nil fields = keep all).
func project(data map[string]any, fields []string) map[string]any {
	if fields == nil || data == nil {
		return data
	}
	out := map[string]any{}
	for _, f := range fields {
		if v, ok := data[f]; ok {
			out[f] = v
		}
	}
	return out
}

// balanceMarks keeps <mark>…</mark> highlighting only when balanced; else strips tags.
func balanceMarks(s string) string {
	open, cls := strings.Count(s, "<mark>"), strings.Count(s, "</mark>")
	if open == cls {
		depth := 0
		ok := true
		for i := 0; i < len(s); i++ {
			if strings.HasPrefix(s[i:], "<mark>") {
				depth++
				if depth > 1 {
					ok = false
				}
			} else if strings.HasPrefix(s[i:], "</mark>") {
				depth--
				if depth < 0 {
					ok = false
				}
			}
		}
		if ok {
			return s
		}
	}
	return strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s)
}

func mdCell(s string) string {
	s = oneLine(s)
	return strings.ReplaceAll(s, "|", "\\|")
}

func countBy(keys []string) []string {
	m := map[string]int{}
	var order []string
	for _, k := range keys {
		if m[k] == 0 {
			order = append(order, k)
		}
		m[k]++
	}
	sort.SliceStable(order, func(i, j int) bool { return m[order[i]] > m[order[j]] })
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return out
}
