package checks

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
	// The second window leads back as well as on: its previous arguments
	// read the first window again.
	var prev []continuation
	for _, c := range continuationsIn(n.Text()) {
		if strings.Contains(c.At, "previous") {
			prev = append(prev, c)
		}
	}
	t.Expect(prev).NotTo(BeEmpty(), "a second window must show ready-made previous read_record_field arguments:\n%s", clipText(n.Text(), 400))
	p := t.Call(prev[0].Tool, prev[0].Args)
	t.Expect(p.IsError()).To(BeFalse(), "the previous arguments must work: %s", p.Describe())
	t.Expect(windowBody(p.Text())).To(And(Not(BeEmpty()), Equal(windowBody(text))), "the previous arguments of the second window must read the first window again")

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

// windowBody is a window's visible text without its header and continuation
// lines: the lines after the last line that names a continuation or offset.
func windowBody(text string) string {
	lines := strings.Split(text, "\n")
	last := 0
	for i, l := range lines {
		if offsetsRe.MatchString(l) || continuationRe.MatchString(l) || strings.Contains(l, "offset_chars=") {
			last = i + 1
		}
	}
	return strings.Join(lines[last:], "\n")
}
