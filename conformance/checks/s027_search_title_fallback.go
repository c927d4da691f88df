package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var (
	markOrEllipsis = regexp.MustCompile(`</?mark>|…|\.\.\.`)
	titleKeys      = []string{"title", "name", "subject", "summary"}
	authoredKeys   = []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"}
)

func plainText(s string) string { return strings.TrimSpace(markOrEllipsis.ReplaceAllString(s, "")) }

var s027 = &Check{ID: "S027", Slug: "search-title-fallback", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil {
		t.Skipf("no word from the target's records finds any hit")
	}
	for _, h := range hits(c) {
		t.Expect(strings.TrimSpace(h.Title)).NotTo(BeEmpty(), "hit %s needs a human-readable title", h.ID)
		if h.Snippet != "" {
			t.Expect(plainText(h.Title)).NotTo(Equal(plainText(h.Snippet)), "hit %s is titled by its snippet", h.ID)
		}
	}
	if !t.Target.Has(CapControlledRS) {
		t.Record("authored-time fallback", "not exercised: "+CapControlledRS.SkipReason())
		return
	}
	// A record with no title-like field and an authored time unlike its
	// emitted_at: its fallback title must carry the authored time.
	rec, s, authored, ok := untitledRecord(t.RS().Fixture())
	if !ok {
		t.Skipf("the fixture has no untitled record with an authored time")
	}
	q := strings.Join(words(lexicalText(s, rec))[:3], " ")
	r := t.Call("search", map[string]any{"q": q, "connection_id": rec.ConnectionID, "limit": 25})
	for _, h := range hits(r) {
		if h.Record == rec.ID || strings.HasSuffix(h.ID, ":"+rec.ID) {
			t.Expect(h.Title).To(ContainSubstring(authored), "the fallback title of %s must prefer its authored time %s", rec.ID, authored)
			t.Expect(h.Title).NotTo(ContainSubstring(rec.EmittedAt), "the fallback title of %s must not use emitted_at (%s)", rec.ID, rec.EmittedAt)
			return
		}
	}
	t.Expect(false).To(BeTrue(), "searching %q did not return record %s: %s", q, rec.ID, r.Describe())
}}

func untitledRecord(fx *fakers.Fixture) (fakers.Record, *fakers.Stream, string, bool) {
	for _, s := range fx.Streams {
		for _, rec := range s.Records {
			if lexicalText(s, rec) == "" || len(words(lexicalText(s, rec))) < 3 {
				continue
			}
			titled := false
			for _, k := range titleKeys {
				if v, ok := rec.Data[k].(string); ok && v != "" {
					titled = true
				}
			}
			if titled {
				continue
			}
			for _, k := range authoredKeys {
				if v, ok := rec.Data[k].(string); ok && v != "" && v != rec.EmittedAt {
					return rec, s, v, true
				}
			}
		}
	}
	return fakers.Record{}, nil, "", false
}

func lexicalText(s *fakers.Stream, rec fakers.Record) string {
	for _, f := range s.Fields {
		if v, ok := rec.Data[f.Name].(string); ok && f.Lexical && f.Role != "metadata" {
			return v
		}
	}
	return ""
}

var wordsRe = regexp.MustCompile(`[A-Za-z0-9]+`)

func words(s string) []string { return wordsRe.FindAllString(s, -1) }
