package checks

import (
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// The scope is judged by the hits that come back, not by how the adapter
// asks the RS; the limit by the scoped set: a connection with more matches
// than the limit must fill it.
var s028 = &Check{ID: "S028", Slug: "search-connection-scoped", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.ReadsIndex(t)
	term, c, ok := probe.FanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	// The connection with the most hits, so a limit below them must be filled.
	var conn string
	for k, n := range probe.ConnectionsOf(probe.Hits(c)) {
		if m := probe.ConnectionsOf(probe.Hits(c))[conn]; k != "" && (n > m || (n == m && k < conn)) {
			conn = k
		}
	}
	matches := probe.ConnectionsOf(probe.Hits(c))[conn]
	limit := min(2, matches)
	scoped := t.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Connection: conn, dialect.Limit: limit})
	if scoped.IsError() {
		t.Clause(1, func() { t.Fatalf("a search scoped to granted connection %s must succeed: %s", conn, scoped.Describe()) })
		t.Skipf("the scoped search failed (S028.1)")
	}
	hs := probe.Hits(scoped)
	t.Clause(1, func() {
		t.Assert(len(hs) > 0, "%q has %d hit(s) in %s, so the scoped search must return some", term, matches, conn)
		for _, h := range hs {
			if h.Conn == "" {
				t.BlockedBy("S024", "hit %s carries no connection_id to tell its source by", h.ID)
			}
			t.Assert(h.Conn == conn, "with connection_id=%s every hit comes from that connection, not %s (%s)", conn, h.Conn, h.ID)
		}
	})
	t.Clause(2, func() {
		t.Assert(len(hs) <= limit, "limit %d applies to the scoped result set: %d hits came back", limit, len(hs))
		in := 0
		for _, h := range hs {
			if h.Conn == conn {
				in++
			}
		}
		t.Assert(in >= limit, "%s has %d hits for %q, so limit %d must be filled from that connection's hits, not applied before scoping: %d came back",
			conn, matches, term, limit, in)
	})
}}
