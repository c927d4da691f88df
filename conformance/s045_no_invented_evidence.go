package conformance

import (
	"encoding/json"
	"net/url"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var s045 = &Check{ID: "S045", Slug: "no-invented-evidence", Mode: ModeCTRL, Needs: []Capability{CapControlledRS}, Run: func(t *T) {
	term, ok := metadataOnlyTerm(t.Target.RS.Fixture())
	if !ok {
		t.Skipf("the fixture has no term that matches only a metadata field")
	}
	c := t.Call("search", map[string]any{"q": term, "limit": 10})
	t.Expect(c.IsError()).To(BeFalse(), "search must succeed: %s", c.Describe())
	// What the RS proved: replay its answer to this search.
	var rsHits []map[string]any
	for _, r := range t.Target.RS.RequestsTo("/v1/search") {
		if q, _ := url.ParseQuery(r.RawQuery); q.Get("q") == term {
			_, body := t.Target.RS.Replay(r)
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
