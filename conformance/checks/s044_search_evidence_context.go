package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

var s044 = &Check{ID: "S044", Slug: "search-evidence-context", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hitsWithEvidence(c)) == 0 {
		t.Skipf("no search of the target's own words returned a proven evidence window")
	}
	for _, p := range shownPreviews(c) {
		at := markedRe.FindStringIndex(p.text)
		if at == nil {
			continue
		}
		before, after := plainText(p.text[:at[0]]), plainText(p.text[at[1]:])
		around := len(strings.Fields(before)) + len(strings.Fields(after))
		if around >= 2 {
			continue
		}
		// Short context is right only when the field holds no more text.
		want := 2
		if p.id != "" && p.field != "" {
			want = min(want, len(strings.Fields(fieldText(t, p.id, p.field)))-len(strings.Fields(plainText(p.text[at[0]:at[1]]))))
		}
		t.Expect(around).To(BeNumerically(">=", want),
			"the preview %q of %s %s must show text around the match, not only the highlighted term", clipText(p.text, 200), p.id, p.field)
	}
}}

// fieldText reads a field through read_record_field: the window's text when
// structuredContent carries it, else the visible text after its header line.
func fieldText(t *T, id, field string) string {
	r := t.Call("read_record_field", map[string]any{"id": id, "field_path": field, "limit_chars": 16384})
	t.Expect(r.IsError()).To(BeFalse(), "read_record_field on the evidence field %s of %s must work: %s", field, id, r.Describe())
	if w, ok := r.Structured()["window"].(map[string]any); ok {
		if s, ok := w["text"].(string); ok {
			return s
		}
	}
	_, body, _ := strings.Cut(r.Text(), "\n")
	return body
}
