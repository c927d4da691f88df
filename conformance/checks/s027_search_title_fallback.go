package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var (
	titleKeys    = []string{"title", "name", "subject", "summary"}
	authoredKeys = []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"}
)

// Only hits without a title of their own are judged: where the fixture
// tells, hits whose record declares no primary-title value; elsewhere,
// every hit, for a title holding the snippet as shown.
var s027 = &Check{ID: "S027", Slug: "search-title-fallback", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.Grant(t)
	term, c, _ := probe.FanInTerm(t)
	if c == nil {
		t.Skipf("no word from the target's records finds any hit")
	}
	var fx *fakers.Fixture
	if t.Target.Has(CapControlledRS) {
		fx = t.RS().Fixture()
	}
	judgeHitTitles(t, fx, c, term)
	if fx == nil {
		t.Clause(2, func() {
			t.SkipFor(CapControlledRS, "the authored-time fallback needs a record of known times")
		})
		return
	}
	// A record with no title-like field and an authored time unlike its
	// emitted_at: its fallback title must prefer the authored time.
	rec, s, authored, ok := untitledRecord(fx)
	if !ok {
		t.Clause(2, func() { t.Skipf("the fixture has no untitled record with an authored time") })
		return
	}
	q := strings.Join(probe.Words(lexicalText(s, rec))[:3], " ")
	r := t.CallRoles("search", dialect.Args{dialect.Query: q, dialect.Connection: rec.ConnectionID, dialect.Limit: 25})
	judgeHitTitles(t, fx, r, q)
	t.Clause(2, func() {
		for _, h := range probe.Hits(t, r) {
			if h.Ref.ID != rec.ID || h.Ref.Conn != rec.ConnectionID {
				continue
			}
			byAuthored, byEmitted := timeShownIn(h.Title, authored), timeShownIn(h.Title, rec.EmittedAt)
			if !byAuthored && !byEmitted {
				t.Skipf("the fallback title of %s shows no timestamp: nothing to prefer (%q)", rec.ID, h.Title)
			}
			t.AssertWith(byAuthored && !byEmitted, func() (conformance.Witness, error) {
				if byAuthored {
					return conformance.Witness{}, fmt.Errorf("the title shows both times")
				}
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: rec.EmittedAt, In: []string{fmt.Sprintf("the title %q of hit %s, which shows its emitted_at and not its authored time %s", h.Title, h.Ref, authored)}}, nil
			}, "the fallback title of %s must prefer its authored time %s over emitted_at %s: %q", rec.ID, authored, rec.EmittedAt, h.Title)
			return
		}
		t.Inconclusive("searching %q in %s did not return record %s, whose title falls back: %s", q, rec.ConnectionID, rec.ID, r.Describe())
	})
}}

// judgeHitTitles judges clause 1 on the hits of search answer c for term:
// a hit whose record has no title of its own needs a title, and not its
// matched snippet.
func judgeHitTitles(t *T, fx *fakers.Fixture, c *Call, term string) {
	for _, h := range probe.Hits(t, c) {
		titled, known := ownTitle(fx, h)
		if known && titled {
			continue
		}
		hitEv := conformance.Shown(fmt.Sprintf("hit %s's object", h.Ref), probe.CompactJSON(h.Raw))
		snippet := h.Snippet
		if snippet == "" {
			snippet = matchedSnippet(h, term)
		}
		t.Clause(1, func() {
			if !t.AssertWith(strings.TrimSpace(probe.WithoutMarks(h.Title)) != "", func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a title", In: []string{hitEv.Describe()}, Excerpt: clipText(hitEv.Strings()[0], 200)}, nil
			}, "hit %s has no title of its own, so it needs a human-readable one: %q", h.Ref, h.Title) || snippet == "" {
				return
			}
			bySnippet := h.Title == snippet
			if known {
				bySnippet = titledBySnippet(h.Title, snippet)
			}
			t.AssertWith(!bySnippet, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: h.Title, In: []string{hitEv.Describe() + ": its title is its snippet " + clipText(snippet, 120)}}, nil
			}, "hit %s has no title of its own and is titled by its snippet: %q", h.Ref, h.Title)
		})
	}
}

// matchedSnippet is the string of a hit's object that shows its match,
// where the hit names no snippet under the seed's key: one that marks a
// highlight, else the longest that holds the searched term. The title
// itself is never its own snippet.
func matchedSnippet(h probe.Hit, term string) string {
	var marked, holding string
	for _, v := range probe.StringValues(h.Raw) {
		if v == h.Title || len(probe.WithoutMarks(v)) < 20 {
			continue
		}
		switch {
		case probe.HighlightTag.MatchString(v) && marked == "":
			marked = v
		case term != "" && strings.Contains(strings.ToLower(v), strings.ToLower(term)) && len(v) > len(holding):
			holding = v
		}
	}
	return probe.FirstNonEmpty(marked, holding)
}

// ownTitle reports whether the record behind a hit has a title of its
// own: a value in a field that declares the primary-title role. known is
// false when the fixture cannot tell.
func ownTitle(fx *fakers.Fixture, h probe.Hit) (titled, known bool) {
	if fx == nil || h.Ref.ID == "" {
		return false, false
	}
	for _, s := range fx.StreamsNamed(h.Ref.Stream) {
		for _, rec := range s.Records {
			if rec.ID != h.Ref.ID || rec.ConnectionID != h.Ref.Conn {
				continue
			}
			for _, f := range s.Fields {
				if v, _ := rec.Data[f.Name].(string); f.Role == "primary-title" && strings.TrimSpace(v) != "" {
					return true, true
				}
			}
			return false, true
		}
	}
	return false, false
}

// titledBySnippet reports a title that is the snippet, or a long part of
// it, once highlights and ellipses are set aside.
func titledBySnippet(title, snippet string) bool {
	t, s := probe.WithoutMarks(title), probe.WithoutMarks(snippet)
	return t == s || (len(t) >= 20 && strings.Contains(s, t)) || (len(s) >= 20 && strings.Contains(t, s))
}

// timeShownIn reports whether text shows the instant ts (RFC 3339): as
// written, or its date in a common layout.
func timeShownIn(text, ts string) bool {
	if ts == "" {
		return false
	}
	if strings.Contains(text, ts) {
		return true
	}
	at, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return false
	}
	for _, layout := range []string{"2006-01-02", "Jan 2, 2006", "2 Jan 2006", "January 2, 2006", "02/01/2006", "01/02/2006"} {
		if strings.Contains(text, at.Format(layout)) {
			return true
		}
	}
	return false
}

func untitledRecord(fx *fakers.Fixture) (fakers.Record, *fakers.Stream, string, bool) {
	for _, s := range fx.Streams {
		for _, rec := range s.Records {
			if lexicalText(s, rec) == "" || len(probe.Words(lexicalText(s, rec))) < 3 {
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
