package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S044 reads each evidence preview of a search of the target's own words:
// it shows text around the marked match (clause 1), not the highlighted
// term alone, unless its field holds no more text (2). The field's text
// is the fixture's, where mcpcheck holds it (else the target's own field
// read); a word of it beside the match, found nowhere in a preview that
// shows too little around the match, is the witness.
// On the evidence fork it also judges the previews of a search for a
// phrase deep inside a long primary text.
var s044 = &Check{ID: "S044", Slug: "search-evidence-context", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	_, c, _ := probe.FanInTerm(t)
	judged := c != nil && len(probe.ShownPreviews(t, c)) > 0
	if judged {
		judgeEvidenceContext(t, t, c)
	}
	if ev, deep, _ := probe.DeepEvidenceSearch(t); deep != nil && len(probe.ShownPreviews(ev, deep)) > 0 {
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
	query := probe.String(c.Role(dialect.Query))
	for _, p := range probe.ShownPreviews(on, c) {
		at := probe.HighlightedTerm.FindStringIndex(p.Text)
		if at == nil {
			if probe.HighlightTag.MatchString(p.Text) {
				continue // a mark cut open: S026 owns its balance
			}
			// Plain prose (S026 allows it): the match is the searched
			// word, found by value; a proven window's preview without it
			// shows no match to have text around.
			if at = termIndex(p.Text, query); at == nil {
				preview := conformance.Shown(fmt.Sprintf("the evidence preview %q of %s %s in %s", clipText(p.Text, 120), p.ID, p.Field, c.Describe()), p.Text)
				t.Clause(1, func() {
					t.AssertWith(false, func() (conformance.Witness, error) { return conformance.AbsentAll(facts(stems(query)...), preview) },
						"the preview %q of %s %s, a window the RS proved holds a match for %q, shows neither a marked match nor the searched words", clipText(p.Text, 200), p.ID, p.Field, query)
				})
				continue
			}
		}
		if marked := p.Text[at[0]:at[1]]; probe.HighlightTag.MatchString(marked) {
			judgeMarkedTerm(t, on, c, p, marked, query)
		}
		before, after := probe.WithoutMarks(p.Text[:at[0]]), probe.WithoutMarks(p.Text[at[1]:])
		around := len(strings.Fields(before)) + len(strings.Fields(after))
		term := probe.WithoutMarks(p.Text[at[0]:at[1]])
		want, field, ok := 2, "", false
		if around < want && (p.ID != "" || p.Ref.ID != "") && p.Field != "" {
			// Short context is right only when the field holds no more text.
			if field, ok = previewField(on, p); ok {
				want = min(want, len(strings.Fields(field))-len(strings.Fields(term)))
			}
		}
		preview := conformance.Shown(fmt.Sprintf("the evidence preview %q of %s %s in %s", clipText(p.Text, 120), p.ID, p.Field, c.Describe()), p.Text)
		for _, n := range []int{1, 2} {
			t.Clause(n, func() {
				t.AssertWith(around >= want, func() (conformance.Witness, error) {
					w := wordBeside(field, term, p.Text)
					if !ok || w == "" {
						return conformance.Witness{}, fmt.Errorf("the field's text beside the match could not be read")
					}
					return conformance.Absent(read.Text(w), preview)
				}, "the preview %q of %s %s must show text around the match, not only the highlighted term", clipText(p.Text, 200), p.ID, p.Field)
			})
		}
	}
}

// judgeMarkedTerm holds the term a preview marks to the match: a word of
// the search (or its stem), or a term the fixture RS itself marked in its
// windows of that record. Judged where mcpcheck holds the RS's answer.
func judgeMarkedTerm(t, on *T, c *Call, p probe.ShownPreview, marked, query string) {
	term := strings.ToLower(probe.WithoutMarks(marked))
	if termIndex(term, query) != nil || !on.Target.Has(CapControlledRS) {
		return
	}
	proven, _ := probe.Proven(on, query)
	var rsMarks []string
	for _, w := range proven {
		if p.Ref.ID != "" && w.Ref != p.Ref {
			continue
		}
		for _, m := range probe.HighlightedTerm.FindAllStringSubmatch(w.Preview, -1) {
			rsMarks = append(rsMarks, strings.ToLower(m[2]))
		}
	}
	if len(rsMarks) == 0 || slices.ContainsFunc(rsMarks, func(m string) bool { return strings.Contains(term, m) || strings.Contains(m, term) }) {
		return
	}
	preview := conformance.Shown(fmt.Sprintf("the evidence preview %q of %s %s in %s", clipText(p.Text, 120), p.ID, p.Field, c.Describe()), p.Text)
	t.Clause(1, func() {
		t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(marked, preview) },
			"the preview %q of %s %s marks %q, which is neither a word of the search %q nor what the RS marked in that record (%s): the marked match must be the match",
			clipText(p.Text, 200), p.ID, p.Field, term, query, strings.Join(rsMarks, ", "))
	})
}

// previewField is the text of the field a preview names: the fixture's
// value of the record its id names (found by following it), else the
// target's own read of it.
func previewField(t *T, p probe.ShownPreview) (string, bool) {
	if p.Ref.ID != "" {
		if rec, ok := probe.FindRecord(t, p.Ref); ok {
			if s, ok := rec.Data[p.Field].(string); ok {
				return s, true
			}
		}
	}
	if t.Target.Has(CapControlledRS) {
		if f := probe.Follow(t, p.ID); f.OK {
			if rec, ok := probe.FindRecord(t, f.Ref); ok {
				if s, ok := rec.Data[p.Field].(string); ok {
					return s, true
				}
			}
		}
	}
	return fieldText(t, p.ID, p.Field)
}

// wordBeside is a word of field right before or after the first match of
// term that the preview does not show: "" when there is none.
func wordBeside(field, term, preview string) string {
	low := strings.ToLower(field)
	i := strings.Index(low, strings.ToLower(term))
	if i < 0 {
		return ""
	}
	var near []string
	if b := strings.Fields(field[:i]); len(b) > 0 {
		near = append(near, b[len(b)-1])
	}
	if a := strings.Fields(field[i+len(term):]); len(a) > 0 {
		near = append(near, a[0])
	}
	for _, w := range near {
		w = strings.Trim(w, ".,;:!?\"'()[]")
		if len(w) >= 2 && !strings.Contains(strings.ToLower(preview), strings.ToLower(w)) {
			return w
		}
	}
	return ""
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

// termIndex is where a word of query (or its stem: a lexical index may
// match "invoices" for "invoice") first starts a word of text, in any
// case; nil when none does.
func termIndex(text, query string) []int {
	lower := strings.ToLower(text)
	for _, w := range stems(query) {
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordByte(lower[i-1]) {
				end := i + len(w)
				for end < len(lower) && isWordByte(lower[end]) {
					end++
				}
				return []int{i, end}
			}
			from = i + len(w)
		}
	}
	return nil
}

// stems are the words of query, lower-cased, each with its common English
// suffixes taken off where at least four letters stay.
func stems(query string) []string {
	var out []string
	for _, w := range probe.Words(strings.ToLower(query)) {
		stem := w
		for _, suf := range []string{"ing", "es", "ed", "s"} {
			if t, ok := strings.CutSuffix(w, suf); ok && len(t) >= 4 {
				stem = t
				break
			}
		}
		out = append(out, stem)
	}
	return out
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 0x80
}
