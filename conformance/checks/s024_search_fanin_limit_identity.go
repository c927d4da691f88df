package checks

import (
	. "github.com/onsi/gomega"
)

var s024 = &Check{ID: "S024", Slug: "search-fanin-limit-identity", Mode: ModeBBD, Run: func(t *T) {
	term, wide, ok := fanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	all := hits(wide)
	const n = 3
	if len(all) <= n {
		t.Skipf("%q finds only %d hits; a global limit of %d cannot be told from a per-connection one", term, len(all), n)
	}
	c := t.Call("search", map[string]any{"q": term, "limit": n})
	t.Expect(c.IsError()).To(BeFalse(), "search must succeed: %s", c.Describe())
	hs := hits(c)
	t.Expect(len(hs)).To(BeNumerically("<=", n), "limit %d caps the merged hits across all connections, not the hits per connection", n)
	t.Expect(hs).NotTo(BeEmpty())
	_, index := schemaIndex(t)
	labels := map[string]string{}
	for _, r := range index {
		for id, name := range r.ConnNames {
			labels[id] = name
		}
	}
	for _, h := range hs {
		t.Expect(h.Conn).NotTo(BeEmpty(), "hit %s must carry connection_id", h.ID)
		t.Expect(h.Key).NotTo(BeEmpty(), "hit %s must carry connector_key", h.ID)
		t.Expect(h.Stream).NotTo(BeEmpty(), "hit %s must carry its stream", h.ID)
		t.Expect(h.Record != "" || h.ID != "").To(BeTrue(), "hit must carry its record id")
		if want := labels[h.Conn]; want != "" {
			t.Expect(h.Label).To(Equal(want), "hit %s must carry the display label of connection %s", h.ID, h.Conn)
		}
	}
	t.Expect(c.Text()).To(ContainSubstring(hs[0].ID), "the visible text must carry the top hit's id")
}}
