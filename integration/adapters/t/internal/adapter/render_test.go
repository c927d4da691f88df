package adapter

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"example.com/pdppadapter-t/internal/ojson"
)

func TestHandleRoundTrip(t *testing.T) {
	cases := []recordRef{
		{ConnectionID: "cin_work", Stream: "messages", RecordID: "m007"},
		{ConnectionID: "", Stream: "notes", RecordID: "a/b:c?d e"},
		{ConnectionID: "cin:x/y", Stream: "s p", RecordID: "ü-1"},
	}
	for _, c := range cases {
		h := c.Handle()
		if strings.Count(h[len(recordScheme):], "/") != 2 {
			t.Errorf("handle %q must have exactly three segments", h)
		}
		got, err := parseHandle(h)
		if err != nil || got != c {
			t.Errorf("round trip %q: got %+v err %v, want %+v", h, got, err, c)
		}
	}
	if _, err := parseHandle("pdpp://record/a/b"); err == nil {
		t.Error("two-segment handle accepted")
	}
}

func TestBlobURI(t *testing.T) {
	u := blobURI("blob/1", "cin_a")
	id, conn, err := parseBlobURI(u)
	if err != nil || id != "blob/1" || conn != "cin_a" {
		t.Fatalf("blob uri %q -> %q %q %v", u, id, conn, err)
	}
}

func TestBoundMarkedBalanced(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	inputs := []string{
		"short <mark>hit</mark> text",
		long + "<mark>needle</mark>" + long,
		"<mark>start</mark>" + long,
		long + "<mark>end</mark>",
		long + "<mark>a</mark> b <mark>c</mark>" + long + "<mark>d</mark>",
		"unbalanced <mark>open " + long,
		"stray </mark> close " + long,
	}
	for _, in := range inputs {
		out := boundMarked(in, 200)
		if strings.Count(out, "<mark>") != strings.Count(out, "</mark>") {
			t.Errorf("unbalanced output %q", out)
		}
		if len([]rune(parseMarks(out).plain())) > 202 {
			t.Errorf("output too long: %d", len(out))
		}
		if strings.Contains(in, "needle") && !strings.Contains(out, "<mark>needle</mark>") {
			t.Errorf("first highlight lost: %q", out)
		}
		if strings.Contains(in, "needle") && len(parseMarks(out).plain()) < 100 {
			t.Errorf("preview collapsed to the term: %q", out)
		}
	}
}

func TestClassifyString(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("%PDF-1.7 binary\x00\x01", 20)))
	if bi, ok := classifyString(b64); !ok || bi.Encoding != "base64" || bi.MediaType != "application/pdf" {
		t.Errorf("base64 pdf not detected: %+v %v", bi, ok)
	}
	text := strings.Repeat("The quarterly budget review moved to Thursday. ", 20)
	if _, ok := classifyString(text); ok {
		t.Error("prose classified as binary")
	}
	if _, ok := classifyString("sunset over the bay"); ok {
		t.Error("short prose classified as binary")
	}
	if _, ok := classifyString(strings.Repeat("a", 500)); ok {
		t.Error("single-letter run classified as base64")
	}
	if bi, ok := classifyString("data:image/png;base64," + b64); !ok || bi.MediaType != "image/png" {
		t.Errorf("data URI not detected: %+v", bi)
	}
	hex := strings.Repeat("0123456789abcdef", 20)
	if _, ok := classifyString(hex); !ok {
		t.Error("long hex not detected")
	}
}

func TestPreviewAndRuneSlice(t *testing.T) {
	s := "héllo wörld, this is a test"
	p, shown, cut := preview(s, 12)
	if !cut || shown != runeLen(p) || !strings.HasPrefix(s, p) {
		t.Errorf("preview = %q %d %v", p, shown, cut)
	}
	if runeSlice(s, 1, 4) != "éll" {
		t.Errorf("runeSlice = %q", runeSlice(s, 1, 4))
	}
	if runeSlice(s, 100, 120) != "" {
		t.Error("out of range slice not empty")
	}
}

func TestEncodeFilter(t *testing.T) {
	q := url.Values{}
	raw := json.RawMessage(`{"label":"inbox","sent_at":{"gte":"2026-01-01T00:00:00Z","lt":"2026-02-01T00:00:00Z"},"n":3,"ok":true,"x":{"eq":"y"}}`)
	if e := encodeFilter(raw, q); e != nil {
		t.Fatal(e)
	}
	want := map[string]string{"filter[label]": "inbox", "filter[sent_at][gte]": "2026-01-01T00:00:00Z", "filter[sent_at][lt]": "2026-02-01T00:00:00Z", "filter[n]": "3", "filter[ok]": "true", "filter[x]": "y"}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	for _, bad := range []string{`{"a":[1,2]}`, `{"a":{"like":"x"}}`, `[1]`, `{"a":null}`} {
		if e := encodeFilter(json.RawMessage(bad), url.Values{}); e == nil {
			t.Errorf("filter %s accepted", bad)
		}
	}
}

func TestParseFlagString(t *testing.T) {
	f := &fieldInfo{Name: "sent_at", Granted: true}
	parseFlagString(f, "t=timestamp,role=primary-title,eq,r=gte|lt,lex,a=max|group_by_time")
	if f.Type != "timestamp" || f.Role != "primary-title" || !f.Exact || strings.Join(f.RangeOps, "|") != "gte|lt" || !f.Lex || strings.Join(f.Agg, ",") != "group_by_time,max" {
		t.Errorf("parsed %+v", f)
	}
}

func TestStructuredDataBounded(t *testing.T) {
	data := ojson.NewObject()
	data.Set("body", strings.Repeat("x y ", 5000))
	data.Set("payload", base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00\x01binary", 100))))
	data.Set("small", "ok")
	rv := &recordView{Ref: recordRef{ConnectionID: "c", Stream: "s", RecordID: "1"}, Data: data}
	rv.Handle = rv.Ref.Handle()
	out, cut := rv.structuredData()
	if len(cut) != 2 {
		t.Errorf("truncated fields = %v", cut)
	}
	js := compactJSON(out)
	if len(js) > 4000 {
		t.Errorf("structured data not bounded: %d bytes", len(js))
	}
	if !strings.Contains(js, `"read_record_field"`) {
		t.Error("no continuation in structured data")
	}
}
