package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var truncationRe = regexp.MustCompile(`(?i)truncat|preview_status|complete=false|…`)

// Large text, JSON objects and binary fields in a preview: each shows as a
// bounded, flagged preview with a continuation, never silently cut.
var s050 = &Check{ID: "S050", Slug: "large-binary-escalation", Mode: ModeBBD, Run: func(t *T) {
	judged := 0
	large, ok := scanRecords(t, func(r aRecord) bool { return longestString(r.Data) > 4096 })
	if ok {
		judged++
		field := longestField(large.Data)
		total := utf8.RuneCountInString(str(large.Data[field]))
		q := t.Call("query_records", map[string]any{"stream": large.Stream, "connection_id": large.Conn, "fields": []string{field}, "limit": 25})
		t.Expect(q.IsError()).To(BeFalse(), "query_records must work: %s", q.Describe())
		for _, line := range strings.Split(q.Text(), "\n") {
			id := large.ID[strings.LastIndex(large.ID, ":")+1:]
			if !strings.HasPrefix(line, "record[") || !strings.Contains(line, `"`+id+`"`) {
				continue
			}
			t.Expect(truncationRe.MatchString(line)).To(BeTrue(), "the preview of a %d-character field must be flagged as cut, never pass for complete: %s", total, clipText(line, 300))
		}
		var reads int
		for _, c := range continuationsIn(q.Text()) {
			if c.Tool == "read_record_field" && str(c.Args["field_path"]) == field {
				reads++
				r := t.Call(c.Tool, c.Args)
				t.Expect(r.IsError()).To(BeFalse(), "the continuation for %s must work: %s", field, r.Describe())
			}
		}
		t.Expect(reads).To(BeNumerically(">", 0), "a cut %d-character field must come with a read_record_field continuation in text", total)
	}
	binary, ok := scanRecords(t, func(r aRecord) bool {
		for _, v := range r.Data {
			if looksBinary(v) {
				return true
			}
		}
		return false
	})
	if ok {
		judged++
		q := t.Call("query_records", map[string]any{"stream": binary.Stream, "connection_id": binary.Conn, "limit": 5})
		t.Expect(q.IsError()).To(BeFalse())
		t.Expect(binaryWordRe.MatchString(q.Text())).To(BeTrue(), "binary fields must show as metadata in the preview")
	}
	if largeJSONField(t) {
		judged++
	}
	if judged == 0 {
		t.Skipf("no record of the target's grant holds a large text or a binary field")
	}
}}

var (
	jsonMarkerRe  = regexp.MustCompile(`(?i)json`)
	previewLineRe = regexp.MustCompile(`^record\[\d+\] `)
	sizeRe        = regexp.MustCompile(`(\d+) ?(?:chars|characters|bytes)`)
)

// largeJSONField judges JSON object fields over the preview bound on a fork
// whose records hold them at two sizes: one that fetch(fields) can return
// whole and one beyond any single read. Each marker shows the size and the
// media type, and its continuation, followed, yields the whole value.
func largeJSONField(t *T) bool {
	if !t.Target.Has(CapFixture) {
		return false
	}
	fx := t.BaseFixture()
	var stream, conn, field string
	for _, st := range fx.Streams {
		for _, f := range st.Fields {
			if f.Type == "object" && field == "" && len(st.Records) > 0 {
				stream, conn, field = st.Name, st.Records[0].ConnectionID, f.Name
				for i, r := range st.Records {
					r.Data[field] = bigObject(i, 2000)
				}
			}
		}
	}
	if field == "" {
		return false
	}
	on := t.On(t.Fork(fx))
	args := map[string]any{"stream": stream, "connection_id": conn, "fields": []string{field}, "limit": 5}
	shown := map[string]int{}
	for i, r := range records(on.Call("query_records", args)) {
		shown[str(r["id"])] = i
	}
	// Every other record of the first page grows past any single read.
	on.RS().Update(func(fx *fakers.Fixture) {
		for _, st := range fx.StreamsNamed(stream) {
			for i, r := range st.Records {
				if at, ok := shown[r.ID]; ok && r.ConnectionID == conn && at%2 == 0 {
					r.Data[field] = bigObject(i, 20000)
				}
			}
		}
	})
	q := on.Call("query_records", args)
	t.Expect(q.IsError()).To(BeFalse(), "query_records must work: %s", q.Describe())
	want := map[string]any{}
	for _, r := range records(q) {
		d, _ := r["data"].(map[string]any)
		want[conn+"/"+stream+":"+str(r["id"])] = d[field]
	}
	followed := 0
	for _, line := range strings.Split(q.Text(), "\n") {
		if !previewLineRe.MatchString(line) || !strings.Contains(line, `"`+field+`"`) {
			continue
		}
		at := strings.Index(line, `"`+field+`":`)
		t.Expect(at).To(BeNumerically(">=", 0), "the preview must show the requested field %s: %s", field, clipText(line, 300))
		marker := clipText(line[at:], 120)
		id := strings.TrimRight(evIDRe.FindStringSubmatch(line)[1], ".,;")
		size := utf8.RuneCountInString(compactJSONOf(want[id]))
		t.Expect(jsonMarkerRe.MatchString(marker)).To(BeTrue(), "the preview of a %d-character JSON field must name its media type: %s", size, marker)
		m := sizeRe.FindStringSubmatch(marker)
		t.Expect(m).NotTo(BeNil(), "the preview of a %d-character JSON field must show its size: %s", size, marker)
		n, _ := strconv.Atoi(m[1])
		t.Expect(n).To(BeNumerically("~", size, size/10), "the marker's size must be the field's size (%d characters): %s", size, marker)
	}
	for _, c := range continuationsIn(q.Text()) {
		id := str(c.Args["id"])
		v, ok := want[id]
		if !ok || !(str(c.Args["field_path"]) == field || fmt.Sprint(c.Args["fields"]) == "["+field+"]") {
			continue
		}
		followed++
		t.Expect(readWholeJSON(on, c, field)).To(Equal(v), "following %s %v must yield the whole JSON field %s of %s", c.Tool, c.Args, field, id)
	}
	t.Expect(followed).To(BeNumerically(">=", 2), "each large JSON field must come with a continuation in text:\n%s", clipText(q.Text(), 800))
	return true
}

// readWholeJSON follows a continuation for a JSON field to its end: a fetch
// document whose text is the projection, or read_record_field windows.
func readWholeJSON(t *T, c continuation, field string) any {
	var text strings.Builder
	for step := 0; step < 20; step++ {
		r := t.Call(c.Tool, c.Args)
		t.Expect(r.IsError()).To(BeFalse(), "the continuation %s %v must work: %s", c.Tool, c.Args, r.Describe())
		if c.Tool == "fetch" {
			var doc struct{ Text string }
			t.Expect(json.Unmarshal([]byte(r.Text()), &doc)).To(Succeed(), "fetch text must be the document")
			var proj map[string]any
			t.Expect(json.Unmarshal([]byte(doc.Text), &proj)).To(Succeed(), "fetch(fields:[%s]) must return the field whole as JSON: %s", field, clipText(doc.Text, 300))
			return proj[field]
		}
		w, _ := r.Structured()["window"].(map[string]any)
		text.WriteString(str(w["text"]))
		next := continuationsIn(r.Text())
		c = continuation{}
		for _, n := range next {
			if n.Tool == "read_record_field" && strings.HasPrefix(n.At, "next") {
				c = n
			}
		}
		if c.Tool == "" {
			break
		}
	}
	var v any
	t.Expect(json.Unmarshal([]byte(text.String()), &v)).To(Succeed(), "the windows of %s must join into the whole JSON value", field)
	return v
}

func bigObject(seed, chars int) map[string]any {
	m := map[string]any{}
	for i := 0; len(compactJSONOf(m)) < chars; i++ {
		m[fmt.Sprintf("k%04d", i)] = fmt.Sprintf("value %d of record %d", i, seed)
	}
	return m
}

func compactJSONOf(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
