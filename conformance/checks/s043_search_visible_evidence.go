package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S043 reads a search whose hits carry proven evidence windows in
// structuredContent: the text shows a preview of the matched field
// (clause 1), with the id and field that a bounded read takes (2), and no
// hit's evidence is only in structuredContent (3). A preview is found by
// value: a line naming the field and holding the matched term.
// On the evidence fork it also searches a phrase deep inside a long
// primary text: the preview shown of it must be bounded (shorter than the
// field).
var s043 = &Check{ID: "S043", Slug: "search-visible-evidence", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	_, c, _ := probe.FanInTerm(t)
	judged := c != nil && len(probe.HitsWithEvidence(t, c)) > 0
	if judged {
		judgeVisibleEvidence(t, t, c, "")
	}
	if ev, deep, whole := probe.DeepEvidenceSearch(t); deep != nil && len(probe.HitsWithEvidence(ev, deep)) > 0 {
		judged = true
		judgeVisibleEvidence(t, ev, deep, whole)
	}
	if !judged {
		t.NotApplicable("no search of the target's own words returned a proven evidence window")
	}
}}

// judgeVisibleEvidence judges S043's clauses on search c, reading fields
// through on; whole, when known, is the matched field's full text, which
// the first hit's preview must not show in full.
func judgeVisibleEvidence(t, on *T, c *Call, whole string) {
	for i, h := range probe.HitsWithEvidence(t, c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		first, _ := ex[0].(map[string]any)
		field, term := probe.FieldIn(t, first), probe.Entities.Replace(probe.Highlighted(probe.String(first["preview_text"])))
		line := visibleEvidence(c.Text(), field, term)
		judge := func() {
			t.Assert(line != "", "hit %s carries proven evidence of %s (%q) in structuredContent, but no text line shows a preview of that field", h.ID, field, term)
		}
		t.Clause(3, judge)
		if i > 0 {
			continue
		}
		t.Clause(1, judge)
		if whole != "" && line != "" {
			t.Clause(1, func() {
				t.Assert(len(line) < len(whole), "the preview of %s shows the whole %d-character field: it must be bounded", field, len(whole))
			})
		}
		t.Clause(2, func() {
			if line == "" {
				t.Skipf("no visible preview to take the identity from")
			}
			id := h.ID
			if m := probe.EvidenceID.FindStringSubmatch(line); m != nil {
				id = strings.TrimRight(m[1], ".,;")
			} else if h.ID == "" || !strings.Contains(line, h.ID) {
				t.Fail("the preview of %s names no id to read the field with: %s", field, line)
				return
			}
			args := dialect.Args{dialect.RecordID: id, dialect.Field: field}
			if term != "" && on.HasRole("read_record_field", dialect.Query) {
				args[dialect.Query] = term
			}
			r := on.CallRoles("read_record_field", args)
			if !t.Assert(!r.IsError(), "the preview's id and field must work with read_record_field: %s", r.Describe()) {
				return
			}
			t.Assert(strings.Contains(probe.Plain(r.Text()), probe.Plain(term)), "the bounded read must show the matched text %q: %s", term, r.Describe())
		})
	}
}

// visibleEvidence is the text block (a line, or a hit with its indented
// lines) that shows evidence of field: it names
// the field and holds the matched term (or, with no term, names the field
// beside a quoted preview).
func visibleEvidence(text, field, term string) string {
	for _, line := range probe.Blocks(text) {
		if field == "" || !strings.Contains(line, field) {
			continue
		}
		if term == "" || strings.Contains(probe.Plain(line), probe.Plain(term)) {
			return line
		}
	}
	return ""
}
