package conformance

import (
	"strings"

	. "github.com/onsi/gomega"
)

var s044 = &Check{ID: "S044", Slug: "search-evidence-context", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hitsWithEvidence(c)) == 0 {
		t.Skipf("no search of the target's own words returned a proven evidence window")
	}
	previews := []string{}
	for _, e := range evidenceLines(c.Text()) {
		previews = append(previews, e.Preview)
	}
	for _, h := range hitsWithEvidence(c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			previews = append(previews, str(xm["preview_text"]))
		}
	}
	for _, p := range previews {
		at := markedRe.FindStringIndex(p)
		if at == nil {
			continue
		}
		before, after := plainText(p[:at[0]]), plainText(p[at[1]:])
		t.Expect(len(strings.Fields(before))+len(strings.Fields(after))).To(BeNumerically(">=", 2),
			"the preview %q must show text around the match, not only the highlighted term", clipText(p, 200))
	}
}}
