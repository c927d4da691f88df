package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

var s043 = &Check{ID: "S043", Slug: "search-visible-evidence", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hitsWithEvidence(c)) == 0 {
		t.Skipf("no search of the target's own words returned a proven evidence window")
	}
	text := c.Text()
	lines := evidenceLines(text)
	t.Expect(lines).NotTo(BeEmpty(), "hits carry proven evidence, so content[] text must show a bounded preview of the matched field:\n%s", clipText(text, 800))
	if top := strings.Index(text, "Top results"); top >= 0 {
		t.Expect(strings.Index(text, lines[0].Line)).To(BeNumerically("<", top), "evidence excerpts come before the result list")
	}
	e := lines[0]
	t.Expect(e.ID).NotTo(BeEmpty(), "an evidence line must carry the id to read the field with: %s", e.Line)
	t.Expect(highlighted(e.Preview)).NotTo(BeEmpty(), "the preview must show the matched term: %s", e.Line)
	r := t.Call("read_record_field", map[string]any{"id": e.ID, "field_path": e.FieldPath, "q": highlighted(e.Preview)})
	t.Expect(r.IsError()).To(BeFalse(), "the evidence line's id and field_path must work with read_record_field: %s", r.Describe())
	t.Expect(strings.ToLower(r.Text())).To(ContainSubstring(strings.ToLower(highlighted(e.Preview))), "the bounded read must show the matched text")
	for _, h := range hitsWithEvidence(c) {
		if h.ID == e.ID {
			ex, _ := h.Raw["evidence_excerpts"].([]any)
			first, _ := ex[0].(map[string]any)
			t.Expect(str(first["preview_text"])).To(ContainSubstring(highlighted(e.Preview)), "structuredContent must hold the same preview")
		}
	}
}}
