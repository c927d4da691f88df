package conformance

import (
	"regexp"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/gomega"
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
	if judged == 0 {
		t.Skipf("no record of the target's grant holds a large text or a binary field")
	}
}}
