package adapter

import (
	"encoding/base64"
	"regexp"
	"sort"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"
)

// Evidence semantics shared by every tool (seed 002): what counts as binary,
// what is large, and how each escalates. Decisions read values, never field
// names, and promotion reads declared roles only.

const (
	// jsonPreviewChars bounds a JSON object field's preview.
	jsonPreviewChars = 512
	// base64MinLen is the shortest string treated as a base64 blob.
	base64MinLen = 256
)

var base64Re = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)

// isBase64Blob decides by value shape: long, padded to a multiple of four,
// of the base64 alphabet, and not a run of one repeated character.
func isBase64Blob(s string) bool {
	if len(s) < base64MinLen || len(s)%4 != 0 || !base64Re.MatchString(s) {
		return false
	}
	distinct := map[rune]bool{}
	for _, r := range s {
		distinct[r] = true
		if len(distinct) >= 4 {
			return true
		}
	}
	return false
}

// blobRef reports whether v is a stored-blob reference object.
func blobRef(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	_, id := m["blob_id"]
	_, u := m["fetch_url"]
	return m, id || u
}

// A fieldEvidence describes one field that a preview does not show inline.
type fieldEvidence struct {
	FieldPath     string         `json:"field_path"`
	PreviewStatus string         `json:"preview_status"` // binary-only, truncated, complete
	PreviewText   string         `json:"preview_text,omitempty"`
	TotalChars    int            `json:"total_chars,omitempty"`
	Binary        bool           `json:"binary_field,omitempty"`
	JSON          bool           `json:"json_field,omitempty"`
	TextLike      bool           `json:"text_like"`
	MimeType      string         `json:"mime_type,omitempty"`
	SizeBytes     int            `json:"size_bytes,omitempty"`
	Encoding      string         `json:"encoding,omitempty"`
	Digest        string         `json:"digest,omitempty"`
	BlobID        string         `json:"blob_id,omitempty"`
	BlobRoute     string         `json:"blob_route,omitempty"`
	Read          map[string]any `json:"read,omitempty"`
}

// inspectField classifies one top-level value. It returns nil for a value
// that is safe to show inline in full.
func inspectField(id string, path string, v any, baseURL string, t *Tuning) *fieldEvidence {
	cut := ellipsis(t.Ellipsis)
	if ref, ok := blobRef(v); ok {
		e := &fieldEvidence{FieldPath: path, PreviewStatus: "binary-only", Binary: true, MimeType: str(ref["mime_type"]), BlobID: str(ref["blob_id"]),
			Digest: firstOf(str(ref["sha256"]), str(ref["digest"]))}
		if n, ok := ref["size_bytes"].(float64); ok {
			e.SizeBytes = int(n)
		}
		if u := str(ref["fetch_url"]); u != "" {
			// The grant-scoped blob route: an export continuation, since the
			// normal MCP surface has no blob tool (catalog C3).
			e.BlobRoute = "GET " + baseURL + u
		}
		return e
	}
	switch x := v.(type) {
	case string:
		if isBase64Blob(x) {
			// No blob route serves an inline body, so its explicit read is
			// read_record_field over the encoded text (seed 004: binary
			// escalates through an explicit read, never inline by default).
			return &fieldEvidence{FieldPath: path, PreviewStatus: "binary-only", Binary: true, Encoding: "base64", SizeBytes: base64.StdEncoding.DecodedLen(len(x)),
				TotalChars: len(x), Read: map[string]any{"tool": "read_record_field", "args": map[string]any{"id": id, "field_path": path, "offset_chars": 0, "limit_chars": t.FieldWindow}}}
		}
		if n := utf8.RuneCountInString(x); n > t.FieldWindow {
			return &fieldEvidence{FieldPath: path, PreviewStatus: "truncated", TextLike: true, TotalChars: n, PreviewText: cut.clip(x, 240),
				Read: map[string]any{"tool": "read_record_field", "args": map[string]any{"id": id, "field_path": path, "offset_chars": 0, "limit_chars": t.FieldWindow}}}
		}
	case map[string]any, []any:
		raw := compactJSON(x)
		if n := utf8.RuneCountInString(raw); n > jsonPreviewChars/4 {
			status := "complete"
			if n > jsonPreviewChars {
				status = "truncated"
			}
			// fetch(fields) returns a JSON field whole up to the fetch text limit;
			// a larger one is read as windows of its compact JSON text.
			read := map[string]any{"tool": "fetch", "args": map[string]any{"id": id, "fields": []string{path}}}
			if n > t.FetchTextLimit {
				read = map[string]any{"tool": "read_record_field", "args": map[string]any{"id": id, "field_path": path, "offset_chars": 0, "limit_chars": t.FieldWindow}}
			}
			return &fieldEvidence{FieldPath: path, PreviewStatus: status, JSON: true, MimeType: "application/json", TotalChars: n,
				PreviewText: cut.clip(raw, jsonPreviewChars), Read: read}
		}
	}
	return nil
}

// safeRecord returns the record's data with every field that must not show
// inline (binary, large text, large JSON) replaced by its descriptor, and
// the descriptors in field order.
func safeRecord(id string, data map[string]any, baseURL string, t *Tuning) (map[string]any, []*fieldEvidence) {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(data))
	var ev []*fieldEvidence
	for _, k := range keys {
		e := inspectField(id, k, data[k], baseURL, t)
		if e == nil {
			out[k] = data[k]
			continue
		}
		ev = append(ev, e)
		out[k] = e
	}
	return out, ev
}

// A ladderRecord is one record's evidence ladder in structuredContent: what
// the visible preview left out, and the call that reads each piece.
type ladderRecord struct {
	ID           string           `json:"id"`
	ConnectionID string           `json:"connection_id,omitempty"`
	Stream       string           `json:"stream"`
	RecordID     string           `json:"record_id"`
	Fields       []*fieldEvidence `json:"fields"`
}

func rawObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}
