package conformance

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	offsetsRe = regexp.MustCompile(`\b(chars|start_chars)\s*[=:]`)
	totalRe   = regexp.MustCompile(`\btotal_chars\s*[=:]`)
	matchRe   = regexp.MustCompile(`\bmatch_start_chars\s*[=:]\s*"?(\d+)`)
)

var s048 = &Check{ID: "S048", Slug: "bounded-read-hides-fw-uris", Mode: ModeBBD, Run: func(t *T) {
	rec, ok := scanRecords(t, func(r aRecord) bool { return longestString(r.Data) > 600 })
	if !ok {
		t.Skipf("no record of the target's grant has a text field over 600 characters")
	}
	field := longestField(rec.Data)
	w := t.Call("read_record_field", map[string]any{"id": rec.ID, "field_path": field, "limit_chars": 256})
	t.Expect(w.IsError()).To(BeFalse(), "read_record_field must work: %s", w.Describe())
	text := w.Text()
	t.Expect(offsetsRe.MatchString(text) && totalRe.MatchString(text)).To(BeTrue(), "the text must show the window's offsets and total size:\n%s", clipText(text, 300))
	t.Expect(text).To(ContainSubstring("complete=false"), "a partial window must say complete=false")
	var next []continuation
	for _, c := range continuationsIn(text) {
		if strings.Contains(c.At, "next") {
			next = append(next, c)
		}
	}
	t.Expect(next).NotTo(BeEmpty(), "the text must show ready-made next read_record_field arguments:\n%s", clipText(text, 400))
	n := t.Call(next[0].Tool, next[0].Args)
	t.Expect(n.IsError()).To(BeFalse(), "the next arguments must work: %s", n.Describe())

	full := str(rec.Data[field])
	words := strings.Fields(string([]rune(full)[len([]rune(full))/2:]))
	if len(words) > 2 {
		q := words[1]
		m := t.Call("read_record_field", map[string]any{"id": rec.ID, "field_path": field, "q": q, "before_chars": 20, "after_chars": 20})
		t.Expect(m.IsError()).To(BeFalse(), "a q window must work: %s", m.Describe())
		t.Expect(matchRe.MatchString(m.Text())).To(BeTrue(), "a q window must show match_start_chars:\n%s", clipText(m.Text(), 300))
	}
	for _, c := range []*Call{w, n} {
		t.Expect(handleURIs(c, "field-window")).To(BeEmpty(), "ordinary bounded reads must not expose pdpp://field-window/ URIs")
	}
}}
