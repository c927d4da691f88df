package bench

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestBoundStructured(t *testing.T) {
	long := strings.Repeat("a", 600) // over the bound
	edge := strings.Repeat("é", 12)  // 12 characters, 24 bytes: counted in characters
	b := Bound{MaxChars: 12, PreviewChars: 4}
	cases := []struct {
		name, in string
		want     any // decoded; nil: unchanged bytes
		n        int
	}{
		{name: "nothing large: the bytes as received", in: `{"b":1, "a":"` + edge + `","x":1.50}`},
		{name: "a record of a list, its id from the answer's own record ids",
			in: `{"ladder":[{"id":"c/s:r1","record_id":"r1","connection_id":"c","stream":"s"}],` +
				`"data":[{"object":"record","id":"r1","connection_id":"c","stream":"s","data":{"id":"r1","body":"` + long + `","n":2}}]}`,
			want: map[string]any{
				"ladder": []any{map[string]any{"id": "c/s:r1", "record_id": "r1", "connection_id": "c", "stream": "s"}},
				"data": []any{map[string]any{"object": "record", "id": "r1", "connection_id": "c", "stream": "s", "data": map[string]any{
					"id": "r1", "n": 2.0, "body": descriptor("aaaa", 600, "c/s:r1", "body"),
				}}},
			}, n: 1},
		{name: "fetch: text stands for metadata.text_field",
			in:   `{"id":"c/s:r1","text":"` + long + `","metadata":{"text_field":"body"}}`,
			want: map[string]any{"id": "c/s:r1", "metadata": map[string]any{"text_field": "body"}, "text": descriptor("aaaa", 600, "c/s:r1", "body")},
			n:    1},
		{name: "read_record_field: window.text stands for field.path",
			in: `{"record":{"id":"c/s:r1"},"field":{"path":"notes.0"},"window":{"text":"` + long + `"}}`,
			want: map[string]any{"record": map[string]any{"id": "c/s:r1"}, "field": map[string]any{"path": "notes.0"},
				"window": map[string]any{"text": descriptor("aaaa", 600, "c/s:r1", "notes.0")}},
			n: 1},
		{name: "no record named: a descriptor without a continuation; array paths",
			in:   `{"list":["` + long + `","short"]}`,
			want: map[string]any{"list": []any{map[string]any{"preview_text": "aaaa…", "preview_status": "truncated", "total_chars": 600.0}, "short"}},
			n:    1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, n, err := BoundStructured(json.RawMessage(tc.in), b)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.n {
				t.Errorf("bounded %d strings, want %d", n, tc.n)
			}
			if tc.want == nil {
				if string(out) != tc.in {
					t.Errorf("got %s, want the input unchanged", out)
				}
				return
			}
			var got any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", out, mustJSON(tc.want))
			}
		})
	}
	if _, _, err := BoundStructured(json.RawMessage(`{"a":`), b); err == nil {
		t.Error("no error for truncated JSON")
	}
	if out, n, err := BoundStructured(nil, b); err != nil || n != 0 || out != nil {
		t.Errorf("empty: %s %d %v", out, n, err)
	}
}

func descriptor(preview string, total int, id, field string) map[string]any {
	return map[string]any{"preview_text": preview + "…", "preview_status": "truncated", "total_chars": float64(total),
		"read": map[string]any{"tool": "read_record_field", "args": map[string]any{"id": id, "field_path": field, "offset_chars": 4.0}}}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
