package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// The scope is judged by the hits that come back, found by the fixture
// records they show, not by how the adapter asks the RS; the limit by the
// scoped set: a connection with more matches than the limit must fill it.
var s028 = &Check{ID: "S028", Slug: "search-connection-scoped", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.Grant(t)
	term, c, ok := probe.FanInTerm(t)
	if !ok {
		probe.SkipNoFanIn(t)
	}
	// The connection with the most hits, so a limit below them must be filled.
	conn, matches := busiestConnection(t, c)
	limit := min(2, matches)
	args := dialect.Args{dialect.Query: term, dialect.Connection: conn, dialect.Limit: limit}
	scoped, env := probe.CallWithEnvelope(t, "search", args, "/v1/search")
	if scoped.IsError() {
		t.Clause(1, func() {
			t.Works(scoped, conformance.Answers(conformance.TextOf(c), probe.GrantNames(t)), "a search scoped to granted connection %s must succeed", conn)
		})
		t.Skipf("the scoped search failed (S028.1)")
	}
	hs := probe.Hits(t, scoped)
	var in []probe.Hit
	for _, h := range hs {
		if h.Ref.Conn == conn {
			in = append(in, h)
		}
	}
	unscoped := conformance.Shown(fmt.Sprintf("the hits of %q in %s, from the unscoped search", term, conn), hitIDsIn(t, c, conn))
	t.Clause(1, func() {
		t.AssertWith(len(hs) > 0, func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts(unscoped.Strings()...), scoped)
		},
			"%q has %d hit(s) in %s, so the scoped search must return some", term, matches, conn)
		for _, h := range hs {
			t.AssertWith(h.Ref.Conn == conn, func() (conformance.Witness, error) {
				w, err := conformance.Present(h.Ref.ID, scoped)
				w.Fact = fmt.Sprintf("hit %s (of connection %s)", h.Ref, h.Ref.Conn)
				return w, err
			}, "with connection_id=%s every hit comes from that connection, not %s (%s)", conn, h.Ref.Conn, h.Ref)
		}
	})
	judgeScopedNextPage(t, scoped, args, conn, probe.HandlesOf(env).Cursor)
	t.Clause(2, func() {
		t.AssertWith(len(hs) <= limit, func() (conformance.Witness, error) {
			w, err := conformance.Present(hs[limit].Ref.ID, scoped)
			w.Fact = fmt.Sprintf("hit %d of %d (%s)", limit+1, len(hs), hs[limit].Ref)
			return w, err
		}, "limit %d applies to the scoped result set: %d hits came back", limit, len(hs))
		t.AssertWith(len(in) >= limit, func() (conformance.Witness, error) {
			var missing []string
			for _, id := range strings.Fields(unscoped.Strings()[0]) {
				if !slices.ContainsFunc(in, func(h probe.Hit) bool { return h.Ref.ID == id }) {
					missing = append(missing, id)
				}
			}
			return conformance.AbsentAll(facts(missing...), scoped)
		},
			"%s has %d hits for %q, so limit %d must be filled from that connection's hits, not applied before scoping: %d came back", conn, matches, term, limit, len(in))
	})
}}

// judgeScopedNextPage follows the cursor a scoped search's text shows
// (rsNext, the RS's, where it does): the next page must work and stay in
// conn (seed 002: a continuation "SHALL remain inside the same ...
// source ... scope"). A cursor the text does not show is S023's.
func judgeScopedNextPage(t *T, scoped *Call, args dialect.Args, conn, rsNext string) {
	if rsNext == "" {
		return
	}
	shows := func(c *Call) []probe.RecordRef { return probe.HitRefs(t, c) }
	cur, next := probe.VisibleCursor(t, scoped, args, shows(scoped), rsNext, shows)
	if cur == "" || next == nil {
		return
	}
	t.Clause(1, func() {
		if !t.Works(next, scoped, "the next page of a search scoped to %s, by the cursor its text shows, must work", conn) {
			return
		}
		for _, h := range probe.Hits(t, next) {
			t.AssertWith(h.Ref.Conn == conn, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: h.Ref.String(), In: []string{next.Describe() + " shows hit " + h.Ref.String(), "built from " + scoped.Describe()}}, nil
			}, "the next page of a search scoped to %s must keep to it, not show %s", conn, h.Ref)
		}
	})
}

// busiestConnection is the connection with the most hits in search c (the
// first by name of those tied), with its number of hits.
func busiestConnection(t *T, c *Call) (string, int) {
	if c == nil {
		return "", 0
	}
	counts := probe.ConnectionsOf(probe.Hits(t, c))
	var conn string
	for k, n := range counts {
		if m := counts[conn]; k != "" && (n > m || (n == m && k < conn)) {
			conn = k
		}
	}
	return conn, counts[conn]
}

// hitIDsIn are the record ids, one per line, of a search's hits of conn.
func hitIDsIn(t *T, c *Call, conn string) string {
	var out string
	for _, h := range probe.Hits(t, c) {
		if h.Ref.Conn == conn {
			out += h.Ref.ID + "\n"
		}
	}
	return out
}
