package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S044 reads each evidence preview of a search of the target's own words:
// it shows text around the marked match (clause 1), not the probe.Highlighted
// term alone, unless its field holds no more text (2).
// On the evidence fork it also judges the previews of a search for a
// phrase deep inside a long primary text.
var s044 = &Check{ID: "S044", Slug: "search-evidence-context", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	_, c, _ := probe.FanInTerm(t)
	judged := c != nil && len(probe.HitsWithEvidence(t, c)) > 0
	if judged {
		judgeEvidenceContext(t, t, c)
	}
	if ev, deep, _ := probe.DeepEvidenceSearch(t); deep != nil && len(probe.HitsWithEvidence(ev, deep)) > 0 {
		judged = true
		judgeEvidenceContext(t, ev, deep)
	}
	if !judged {
		t.NotApplicable("no search of the target's own words returned a proven evidence window")
	}
}}

// judgeEvidenceContext judges S044's clauses on each preview of search c,
// reading fields through on.
func judgeEvidenceContext(t, on *T, c *Call) {
	for _, p := range probe.ShownPreviews(t, c) {
		at := probe.HighlightedTerm.FindStringIndex(p.Text)
		if at == nil {
			continue
		}
		before, after := probe.WithoutMarks(p.Text[:at[0]]), probe.WithoutMarks(p.Text[at[1]:])
		around := len(strings.Fields(before)) + len(strings.Fields(after))
		want := 2
		if around < want && p.ID != "" && p.Field != "" {
			// Short context is right only when the field holds no more text.
			if text, ok := fieldText(on, p.ID, p.Field); ok {
				want = min(want, len(strings.Fields(text))-len(strings.Fields(probe.WithoutMarks(p.Text[at[0]:at[1]]))))
			}
		}
		for _, n := range []int{1, 2} {
			t.Clause(n, func() {
				t.Assert(around >= want, "the preview %q of %s %s must show text around the match, not only the probe.Highlighted term", clipText(p.Text, 200), p.ID, p.Field)
			})
		}
	}
}

// fieldText reads a field through read_record_field: the window's text when
// structuredContent carries it, else the visible text after its header line.
func fieldText(t *T, id, field string) (string, bool) {
	r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: id, dialect.Field: field, dialect.Length: 16384})
	if r.IsError() {
		return "", false
	}
	if w, ok := r.Structured()["window"].(map[string]any); ok {
		if s, ok := w["text"].(string); ok {
			return s, true
		}
	}
	_, body, _ := strings.Cut(r.Text(), "\n")
	return body, true
}
