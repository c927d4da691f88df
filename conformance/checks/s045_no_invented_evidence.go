package checks

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var s045 = &Check{ID: "S045", Slug: "no-invented-evidence", Mode: ModeBBD, Run: func(t *T) {
	judged := evidenceIsInField(t)
	if !t.Target.Has(CapControlledRS) {
		if judged == 0 {
			t.Skipf("no search of the target's own words showed evidence to check against its field")
		}
		t.Record("metadata-only hits", "not exercised: "+CapControlledRS.SkipReason())
		return
	}
	term, ok := metadataOnlyTerm(t.RS().Fixture())
	if !ok {
		t.Skipf("the fixture has no term that matches only a metadata field")
	}
	c := t.Call("search", map[string]any{"q": term, "limit": 10})
	t.Expect(c.IsError()).To(BeFalse(), "search must succeed: %s", c.Describe())
	// What the RS proved: replay its answer to this search.
	var rsHits []map[string]any
	for _, r := range t.RS().RequestsTo("/v1/search") {
		if q, _ := url.ParseQuery(r.RawQuery); q.Get("q") == term {
			_, body := t.RS().Replay(r)
			var env struct {
				Data []map[string]any `json:"data"`
			}
			_ = json.Unmarshal(body, &env)
			rsHits = env.Data
		}
	}
	t.Expect(rsHits).NotTo(BeEmpty(), "the fixture RS must find %q", term)
	unproven := map[string]bool{}
	for _, h := range rsHits {
		if h["evidence_excerpts"] == nil {
			unproven[str(h["record_key"])] = true
		}
	}
	shown := false
	for _, h := range hits(c) {
		if !unproven[h.Record] {
			continue
		}
		t.Expect(h.Raw["evidence_excerpts"]).To(BeNil(), "hit %s matched metadata only; it must carry no evidence window", h.ID)
		if !shown {
			shown = true
			t.Expect(c.Text()).To(ContainSubstring(h.ID), "the top metadata-only hit %s must stay reachable by fetch from the text", h.ID)
		}
	}
	for _, e := range evidenceLines(c.Text()) {
		for _, h := range hits(c) {
			t.Expect(unproven[h.Record] && strings.HasSuffix(e.ID, ":"+h.Record)).To(BeFalse(), "evidence line invented for metadata-only hit %s: %s", h.ID, e.Line)
		}
	}
}}

// metadataOnlyTerm is a word that occurs in a metadata-role lexical field
// and in no other lexical field of the fixture.
func metadataOnlyTerm(fx *fakers.Fixture) (string, bool) {
	other := strings.Builder{}
	var candidates []string
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !f.Lexical {
				continue
			}
			for _, r := range s.Records {
				v, _ := r.Data[f.Name].(string)
				if f.Role == "metadata" {
					candidates = append(candidates, strings.ToLower(v))
				} else {
					other.WriteString(strings.ToLower(v) + " ")
				}
			}
		}
	}
	all := other.String()
	for _, c := range candidates {
		if c != "" && !strings.Contains(all, c) {
			return c, true
		}
	}
	return "", false
}

var (
	entityRe = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`)
	spacesRe = regexp.MustCompile(`\s+`)
)

// evidenceIsInField reads, through read_record_field, the field each shown
// evidence preview claims: the highlighted term must occur in it, and so
// must the preview's own text when the whole field fits one read. A window
// over a hit that matched metadata only would claim a field without the
// term. It returns how many previews it judged.
func evidenceIsInField(t *T) int {
	_, c, _ := fanInTerm(t)
	if c == nil {
		return 0
	}
	judged := 0
	seen := map[shownPreview]bool{}
	for _, cl := range shownPreviews(c) {
		if cl.id == "" || cl.field == "" || seen[cl] || judged == 8 {
			continue
		}
		seen[cl] = true
		judged++
		term := entityRe.Replace(highlighted(cl.text))
		if term != "" {
			r := t.Call("read_record_field", map[string]any{"id": cl.id, "field_path": cl.field, "q": term, "before_chars": 20, "after_chars": 20})
			t.Expect(r.IsError()).To(BeFalse(), "the evidence of %s claims %q in field %s, so a q read for it must find it: %s", cl.id, term, cl.field, r.Describe())
		}
		r := t.Call("read_record_field", map[string]any{"id": cl.id, "field_path": cl.field, "limit_chars": 16384})
		t.Expect(r.IsError()).To(BeFalse(), "the field %s that evidence of %s names must be readable: %s", cl.field, cl.id, r.Describe())
		w, _ := r.Structured()["window"].(map[string]any)
		if w["complete"] != true {
			continue
		}
		field := strings.ToLower(spacesRe.ReplaceAllString(str(w["text"]), " "))
		for _, part := range strings.Split(markTagRe.ReplaceAllString(cl.text, ""), "…") {
			part = strings.ToLower(strings.TrimSpace(spacesRe.ReplaceAllString(entityRe.Replace(part), " ")))
			t.Expect(strings.Contains(field, part)).To(BeTrue(), "the evidence preview %q of %s must be text of its field %s", clipText(cl.text, 200), cl.id, cl.field)
		}
	}
	return judged
}
