package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// The hits of a fan-in search are found by the fixture records they show,
// and each one's identity (connection, connector, stream, record, label)
// by the fixture's own values: a hit that shows one nowhere, in its object
// or in the text blocks that show it, is the witness.
var s024 = &Check{ID: "S024", Slug: "search-fanin-limit-identity", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.Grant(t)
	term, wide, ok := probe.FanInTerm(t)
	if !ok {
		probe.SkipNoFanIn(t)
	}
	const n = 3
	if len(probe.Hits(t, wide)) <= n {
		t.Skipf("%q finds only %d hits; a global limit of %d cannot be told from a per-connection one", term, len(probe.Hits(t, wide)), n)
	}
	c, env := probe.CallWithEnvelope(t.Private(), "search", dialect.Args{dialect.Query: term, dialect.Limit: n}, "/v1/search")
	hs := probe.Hits(t, c)
	t.Clause(1, func() {
		if !t.Works(c, probe.GrantNames(t), "search with limit %d must succeed", n) {
			return
		}
		t.AssertWith(len(hs) <= n, func() (conformance.Witness, error) {
			w, err := conformance.Present(hs[n].Ref.ID, c)
			w.Fact = fmt.Sprintf("hit %d of %d (%s)", n+1, len(hs), hs[n].Ref)
			return w, err
		}, "limit %d caps the merged hits across all connections, not the hits per connection: %d came back", n, len(hs))
		t.AssertWith(len(hs) > 0, func() (conformance.Witness, error) { return conformance.AbsentAll(facts(rsHitIDs(env)...), c) },
			"%q finds %d hits across connections, so a search with limit %d must return some", term, len(probe.Hits(t, wide)), n)
		// The limit holds on the page its text's cursor reaches too.
		args := dialect.Args{dialect.Query: term, dialect.Limit: n}
		shows := func(r *Call) []probe.RecordRef { return probe.HitRefs(t, r) }
		if rsNext := probe.HandlesOf(env).Cursor; rsNext != "" {
			if _, next := probe.VisibleCursor(t.Private(), c, args, shows(c), rsNext, shows); next != nil && !next.IsError() {
				nh := probe.Hits(t, next)
				t.AssertWith(len(nh) <= n, func() (conformance.Witness, error) {
					w, err := conformance.Present(nh[n].Ref.ID, next)
					w.Fact = fmt.Sprintf("hit %d of %d (%s)", n+1, len(nh), nh[n].Ref)
					return w, err
				}, "limit %d caps the next page too, reached by the cursor the first page's text shows: %d came back", n, len(nh))
			}
		}
	})
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("the search failed (S024.1)")
		}
		for _, h := range hs {
			r, ok := probe.FindRecord(t, h.Ref)
			if !ok {
				continue
			}
			in := conformance.Answers(conformance.Shown(fmt.Sprintf("hit %s's object", h.Ref), probe.CompactJSON(h.Raw)),
				conformance.Shown(fmt.Sprintf("the text blocks showing %s", h.Ref.ID), probe.BlocksWith(c.Text(), h.Ref.ID)))
			t.Shows(in, read.Text(h.Ref.Conn), "hit %s must carry its connection_id", h.Ref)
			t.Shows(in, read.Text(r.Stream.Connector), "hit %s must carry its connector_key", h.Ref)
			t.Shows(in, read.Text(h.Ref.Stream), "hit %s must carry its stream", h.Ref)
			if label := probe.ConnectionLabel(t, h.Ref.Conn); label != "" {
				t.Shows(in, read.Text(label), "hit %s must carry the display label %q of connection %s", h.Ref, label, h.Ref.Conn)
			}
			judgeTextConnector(t, c, hs, h, r.Stream.Connector)
			judgeHitSource(t, c, h)
		}
	})
}}

// judgeTextConnector holds the text about hit h to its source, as its
// object is: the lines about it that name another connector of the grant
// and not its own (key) show it under the wrong source.
func judgeTextConnector(t *T, c *Call, hs []probe.Hit, h probe.Hit, key string) {
	var others []string
	for _, o := range hs {
		if o.Ref != h.Ref {
			others = append(others, o.Ref.ID)
		}
	}
	seg := probe.Segment(c.Text(), h.Ref.ID, others)
	if seg == "" {
		return
	}
	judgeTextConnection(t, t, c.Text(), h, others)
	if read.ContainsToken(seg, key) {
		return
	}
	for _, cn := range t.RS().Fixture().Connectors {
		if cn.Key != key && read.ContainsToken(seg, cn.Key) {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Present(cn.Key, conformance.Shown("the text about hit "+h.Ref.String(), seg))
			}, "the text shows hit %s, a record of connector %s, under connector %s", h.Ref, key, cn.Key)
			return
		}
	}
}

// connectionClaimRe is a connection a text states under its label:
// connection_id=cin_home, "connection_id":"cin_home", connection cin_home.
var connectionClaimRe = regexp.MustCompile(`(?i)\bconnection(?:_id)?["']?\s*[:=]?\s*["']?([A-Za-z0-9_.:-]+)`)

// judgeTextConnection holds the source a text states for hit h to the
// hit's, line by line: a line that names the hit (its record id) and no
// other hit, and states one connection of the grant, or shows one
// connection's display label, that is another's shows the hit under the
// wrong source. A line naming several (a source mix) states no one hit's.
// on holds the fixture the hit is of.
func judgeTextConnection(t, on *T, text string, h probe.Hit, others []string) {
	ids, labels := map[string]string{}, map[string]string{}
	for _, cn := range on.RS().Fixture().Connectors {
		for _, o := range cn.Connections {
			ids[o.ID] = o.ID
			if o.DisplayName != "" {
				labels[o.DisplayName] = o.ID
			}
		}
	}
	// A label inside a record's own text (a preview that mentions "Home
	// Mail") states no source: record values are set aside first.
	var content []string
	for _, r := range probe.FixtureRecords(on) {
		for _, v := range probe.StringValues(r.Data) {
			if labels[v] == "" && ids[v] == "" {
				content = append(content, v)
			}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if !read.ContainsToken(line, h.Ref.ID) || slices.ContainsFunc(others, func(o string) bool { return o != h.Ref.ID && read.ContainsToken(line, o) }) {
			continue
		}
		claimed := map[string]string{} // connection id → what the line shows
		for _, m := range connectionClaimRe.FindAllStringSubmatch(line, -1) {
			if id, ok := ids[m[1]]; ok {
				claimed[id] = m[0]
			}
		}
		own := read.WithoutContent(line, content)
		for label, id := range labels {
			if strings.Contains(own, label) && claimed[id] == "" {
				claimed[id] = label
			}
		}
		if len(claimed) != 1 {
			continue
		}
		for id, shown := range claimed {
			if id == h.Ref.Conn {
				continue
			}
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Present(shown, conformance.Shown("the text line about hit "+h.Ref.String(), line))
			}, "the text shows hit %s, a record of connection %s, under connection %s (%s)", h.Ref, h.Ref.Conn, id, shown)
			return
		}
	}
}

// judgeHitSource holds the source hit h's object states to its record's,
// learned by following its handle: a whole value of the object that is
// another connection's id or display label of the grant, where none is its
// own, shows the hit under the wrong source.
func judgeHitSource(t *T, c *Call, h probe.Hit) {
	handle := probe.HitHandle(t, c, h)
	if handle == "" || probe.Follow(t, handle).Ref != h.Ref {
		return
	}
	own := map[string]bool{h.Ref.Conn: true, probe.ConnectionLabel(t, h.Ref.Conn): true}
	values := probe.StringValues(h.Raw)
	if slices.ContainsFunc(values, func(v string) bool { return own[v] }) {
		return
	}
	for _, cn := range t.RS().Fixture().Connectors {
		for _, o := range cn.Connections {
			for _, v := range []string{o.ID, o.DisplayName} {
				if v == "" || own[v] || !slices.Contains(values, v) {
					continue
				}
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Present(v, conformance.Shown(fmt.Sprintf("hit %s's object", h.Ref), probe.CompactJSON(h.Raw)))
				}, "hit %s, a record of connection %s (its handle %s fetches it), states its source as %s", h.Ref, h.Ref.Conn, handle, v)
				return
			}
		}
	}
}

// rsHitIDs are the record ids of the hits of an RS search envelope.
func rsHitIDs(env map[string]any) []string {
	var out []string
	list, _ := env["data"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			if id := probe.String(m["record_key"]); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}
