package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

// Seen from a host that cannot read pdpp:// resources: every piece of
// evidence is still reachable through a tool call.
var s035 = &Check{ID: "S035", Slug: "resource-read-unavailable", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hitsWithEvidence(c)) == 0 {
		t.Skipf("no search of the target's own words returned evidence to reach")
	}
	for _, h := range hitsWithEvidence(c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			read, _ := xm["read"].(map[string]any)
			tool := str(read["tool"])
			t.Expect(tool).NotTo(BeEmpty(), "evidence of %s must name a tool to read it, not only a resource URI: %v", h.ID, read)
		}
	}
	lines := evidenceLines(c.Text())
	t.Expect(lines).NotTo(BeEmpty(), "the visible text must show the evidence it proves")
	for _, e := range lines {
		t.Expect(e.ID != "" && strings.Contains(e.Line, "read_record_field")).To(BeTrue(), "a visible evidence line must give a tool path (id and read_record_field), not only a resource: %s", e.Line)
		r := t.Call("read_record_field", map[string]any{"id": e.ID, "field_path": e.FieldPath})
		t.Expect(r.IsError()).To(BeFalse(), "the tool path must read the evidence without resources/read: %s", r.Describe())
	}
}}
