package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Bound says when a structuredContent string is large and how much of
// it a truncation descriptor keeps.
type Bound struct {
	MaxChars     int // strings longer than this (in characters) are bounded
	PreviewChars int // characters the descriptor's preview keeps
}

// DefaultBound keeps strings up to 512 characters and previews longer
// ones in 240, as the reference adapter's content ladder previews a field.
var DefaultBound = Bound{MaxChars: 512, PreviewChars: 240}

// BoundStructured is the offline model of a bounded structuredContent:
// every string longer than b.MaxChars becomes a truncation descriptor
// (its preview, its length, and a read_record_field continuation when the
// answer names the record it belongs to), the way the text bounds a
// field. It returns sc unchanged when nothing is bounded, else the
// re-encoded result, and how many strings it bounded. It is a pure
// function of sc: the tool surface is unchanged.
func BoundStructured(sc json.RawMessage, b Bound) (json.RawMessage, int, error) {
	if len(sc) == 0 {
		return sc, 0, nil
	}
	dec := json.NewDecoder(bytes.NewReader(sc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, fmt.Errorf("structuredContent is not JSON: %w", err)
	}
	w := &bounder{b: b, ids: map[string]string{}}
	w.learnIDs(v)
	v = w.walk(v, holder{}, nil)
	if w.n == 0 {
		return sc, 0, nil
	}
	out, err := json.Marshal(v) // HTML-escaped and key-sorted, as go-sdk writes maps
	return out, w.n, err
}

type bounder struct {
	b   Bound
	ids map[string]string // connection|stream|record key → the answer's own record id
	n   int
}

// A holder is the nearest enclosing object that names a record: the id a
// continuation reads, and fields the answer says stand behind its
// members ("text" behind fetch's metadata.text_field, say).
type holder struct {
	id     string
	record bool              // an RS record: its fields are under "data"
	behind map[string]string // member path → field path
}

// learnIDs maps RS record keys to the ids the answer itself uses for
// them: objects that carry both an id and a record_id or record_key.
func (w *bounder) learnIDs(v any) {
	switch v := v.(type) {
	case map[string]any:
		id, _ := v["id"].(string)
		key := cmp.Or(str(v["record_id"]), str(v["record_key"]))
		if id != "" && key != "" && id != key {
			w.ids[str(v["connection_id"])+"|"+str(v["stream"])+"|"+key] = id
		}
		for _, e := range v {
			w.learnIDs(e)
		}
	case []any:
		for _, e := range v {
			w.learnIDs(e)
		}
	}
}

func (w *bounder) walk(v any, h holder, path []string) any {
	switch v := v.(type) {
	case map[string]any:
		inRecord := h.record && len(path) > 0 && path[0] == "data" // a record's own fields may hold an "id"
		if next, ok := w.holderOf(v); ok && !inRecord {
			h, path = next, nil
		}
		for k, e := range v {
			v[k] = w.walk(e, h, append(slices.Clip(path), k))
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = w.walk(e, h, append(slices.Clip(path), "["+strconv.Itoa(i)+"]"))
		}
		return v
	case string:
		if utf8.RuneCountInString(v) > w.b.MaxChars {
			w.n++
			return w.descriptor(v, h, path)
		}
	}
	return v
}

// holderOf reports whether an object names a record: by its own id, or
// by a "record" member with one (read_record_field's answer).
func (w *bounder) holderOf(m map[string]any) (holder, bool) {
	if id, ok := m["id"].(string); ok && id != "" {
		h := holder{id: id, record: m["object"] == "record"}
		if full, ok := w.ids[str(m["connection_id"])+"|"+str(m["stream"])+"|"+id]; ok {
			h.id = full
		}
		if f, ok := dig(m, "metadata", "text_field").(string); ok && f != "" {
			h.behind = map[string]string{"text": f}
		}
		return h, true
	}
	if rec, ok := m["record"].(map[string]any); ok {
		if id, ok := rec["id"].(string); ok && id != "" {
			h := holder{id: id}
			if f, ok := dig(m, "field", "path").(string); ok && f != "" {
				h.behind = map[string]string{"window.text": f}
			}
			return h, true
		}
	}
	return holder{}, false
}

func (w *bounder) descriptor(s string, h holder, path []string) map[string]any {
	r := []rune(s)
	d := map[string]any{
		"preview_text":   string(r[:min(len(r), w.b.PreviewChars)]) + "…",
		"preview_status": "truncated",
		"total_chars":    len(r),
	}
	if h.id == "" {
		return d
	}
	field := joinPath(path)
	if h.record && len(path) > 1 && path[0] == "data" {
		field = joinPath(path[1:])
	}
	if f, ok := h.behind[field]; ok {
		field = f
	}
	d["read"] = map[string]any{"tool": "read_record_field", "args": map[string]any{"id": h.id, "field_path": field, "offset_chars": w.b.PreviewChars}}
	return d
}

func joinPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
