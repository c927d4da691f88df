package checks

import (
	"net/url"

	. "github.com/onsi/gomega"
)

var s028 = &Check{ID: "S028", Slug: "search-connection-scoped", Mode: ModeBBD, Run: func(t *T) {
	term, c, ok := fanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	var conn string
	for k := range connectionsOf(hits(c)) {
		if k != "" && (conn == "" || k < conn) {
			conn = k
		}
	}
	scoped := t.Call("search", map[string]any{"q": term, "connection_id": conn, "limit": 2})
	t.Expect(scoped.IsError()).To(BeFalse(), "a connection-scoped search must succeed: %s", scoped.Describe())
	hs := hits(scoped)
	t.Expect(hs).NotTo(BeEmpty(), "%q has hits in %s", term, conn)
	t.Expect(len(hs)).To(BeNumerically("<=", 2), "limit applies to the scoped result set")
	for _, h := range hs {
		t.Expect(h.Conn).To(Equal(conn), "with connection_id=%s every hit comes from that connection", conn)
	}
	if t.Target.Has(CapControlledRS) {
		found := false
		for _, r := range t.RS().RequestsTo("/v1/search") {
			q, _ := url.ParseQuery(r.RawQuery)
			found = found || (q.Get("q") == term && q.Get("connection_id") == conn)
		}
		t.Expect(found).To(BeTrue(), "the adapter must forward connection_id to the RS search")
	}
}}
