package checks

import (
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// The hits of a fan-in search are counted in structuredContent, and each
// one's identity is compared, by value, with the hit the RS answered.
var s024 = &Check{ID: "S024", Slug: "search-fanin-limit-identity", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.ReadsIndex(t)
	term, wide, ok := probe.FanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	const n = 3
	if len(probe.Hits(wide)) <= n {
		t.Skipf("%q finds only %d hits; a global limit of %d cannot be told from a per-connection one", term, len(probe.Hits(wide)), n)
	}
	c, env := probe.CallWithEnvelope(t.Private(), "search", dialect.Args{dialect.Query: term, dialect.Limit: n}, "/v1/search")
	hs := probe.Hits(c)
	t.Clause(1, func() {
		if !t.Assert(!c.IsError(), "search with limit %d must succeed: %s", n, c.Describe()) {
			return
		}
		t.Assert(len(resultObjects(c)) <= n, "limit %d caps the merged hits across all connections, not the hits per connection: %d came back", n, len(resultObjects(c)))
		t.Assert(len(hs) > 0, "%q finds %d hits across connections, so a search with limit %d must return some", term, len(probe.Hits(wide)), n)
	})
	labels := connectionLabels(probe.ReadsIndex(t))
	rsHits := rsHitIdentities(env)
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("the search failed (S024.1)")
		}
		for _, h := range hs {
			t.Assert(h.Conn != "", "hit %s must carry connection_id", h.ID)
			t.Assert(h.Key != "", "hit %s must carry connector_key", h.ID)
			t.Assert(h.Stream != "", "hit %s must carry its stream", h.ID)
			rs, known := rsHits[h.Conn+"\x00"+h.Stream+"\x00"+h.Record]
			t.Assert(h.Record != "" || h.ID != "", "hit must carry its record id: %v", h.Raw)
			if len(rsHits) > 0 && h.Record != "" {
				if !t.Assert(known, "hit %s names connection %s, stream %s and record %s, which no hit of the RS answer has", h.ID, h.Conn, h.Stream, h.Record) {
					continue
				}
				t.Assert(rs.key == "" || h.Key == rs.key, "hit %s carries connector_key %q, the RS answered %q", h.ID, h.Key, rs.key)
			}
			want := probe.FirstNonEmpty(rs.label, labels[h.Conn])
			if want != "" {
				t.Assert(slices.Contains(probe.StringValues(h.Raw), want), "hit %s must carry the display label %q of connection %s: %v", h.ID, want, h.Conn, h.Raw)
			}
		}
	})
}}

// resultObjects are the entries of structuredContent's results, whatever
// they hold.
func resultObjects(c *Call) []any { return probe.HitList(c) }

// connectionLabels maps each connection of the index to its display name.
func connectionLabels(index []probe.SchemaRow) map[string]string {
	out := map[string]string{}
	for _, r := range index {
		for id, name := range r.ConnNames {
			if name != "" {
				out[id] = name
			}
		}
	}
	return out
}

type rsHit struct{ key, label string }

// rsHitIdentities indexes the hits of an RS search envelope by connection,
// stream and record key.
func rsHitIdentities(env map[string]any) map[string]rsHit {
	out := map[string]rsHit{}
	list, _ := env["data"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		if m == nil {
			continue
		}
		out[probe.String(m["connection_id"])+"\x00"+probe.String(m["stream"])+"\x00"+probe.String(m["record_key"])] = rsHit{
			key: probe.FirstNonEmpty(probe.String(m["connector_key"]), probe.String(m["connector_id"])), label: probe.String(m["display_name"])}
	}
	return out
}
