package checks

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S019 judges schema(stream, connection_id) on a shared stream: the
// answer holds that connection's row and names no other connection
// anywhere (rows, connector-level lists, text), and its text states what
// the next read needs; then again on the fixture's real-RS profile, where
// the grant offers no sort or search to state.
var s019 = &Check{ID: "S019", Slug: "schema-stream-connection-scope", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	judgeConnectionScope(t, "")
	probe.OnRealRS(t, func(on *T) { judgeConnectionScope(on, "real-RS profile: ") })
}}

// judgeConnectionScope is S019 on one target; profile prefixes its
// messages.
func judgeConnectionScope(t *T, profile string) {
	_, index := probe.SchemaIndex(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		t.Skipf("%s", probe.NoSharedStream)
	}
	var row probe.SchemaRow
	for _, r := range probe.TruthRows(t, name, "", probe.RowsNamed(index, name)) {
		if len(r.Connections) > 0 {
			row = r
			break
		}
	}
	if len(row.Connections) == 0 {
		t.BlockedBy("S017", "neither the RS nor the index names a connection of the shared stream %q", name)
	}
	conn := row.Connections[0]
	c := probe.SchemaCall(t, dialect.Args{dialect.Stream: name, dialect.Connection: conn})
	t.Clause(1, func() {
		if c.IsError() {
			t.Fatalf("schema(stream, connection_id) must return that connection's row, not an error: %s", c.Describe())
		}
		rows := probe.SchemaRows(probe.SchemaDoc(c))
		var others []string
		for _, r := range rows {
			if r.Name != name {
				others = append(others, r.Ident())
			}
		}
		t.Assert(len(others) == 0, "schema(stream: %q, connection_id: %q) must hold that stream only; it also holds %v", name, conn, others)
		named := probe.RowsNamed(rows, name)
		if !t.Assert(len(named) == 1, "schema(stream, connection_id) must return the matching stream row only; got %d rows of %q", len(named), name) {
			return
		}
		if len(named[0].Connections) > 0 {
			t.Assert(probe.SameSet(named[0].Connections, []string{conn}), "the row must hold capabilities for connection %s only; it covers %v", conn, named[0].Connections)
		} else {
			t.Assert(named[0].ConnectorKey == row.ConnectorKey, "the row must be connection %s's (connector %q), not connector %q's", conn, row.ConnectorKey, named[0].ConnectorKey)
		}
		expectNoWiderIdentity(t, c, conn, otherConnections(probe.TruthRows(t, "", "", index), conn), profile)
	})
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("schema(stream, connection_id) failed (S019.1)")
		}
		truth := probe.TruthRows(t, name, conn, nil)
		if len(truth) == 1 {
			row = truth[0]
		}
		text, own := c.Text(), probe.WithoutLegend(c.Text())
		for _, v := range [][2]string{{"connection_id", conn}, {"connector_key", row.ConnectorKey}, {"stream name", name}} {
			t.Assert(v[1] == "" || probe.ContainsToken(text, v[1]), "%sthe text must carry the %s %q:\n%s", profile, v[0], v[1], clipText(text, 800))
		}
		if label := probe.FirstNonEmpty(row.ConnNames[conn], row.DisplayName); label != "" {
			t.Assert(containsLabel(text, label), "the text must carry the display label %q:\n%s", label, clipText(text, 800))
		}
		expectFieldSummaries(t, own, probe.FieldNames(row), "%sstream %q on %s", profile, name, conn)
		offered := probe.OffersOf(row)
		for _, s := range probe.ScopeSupport {
			switch {
			case s.What == "sort" && !offered.Sort, s.What == "search modes" && !offered.Search:
				continue // the grant offers none: nothing to state (a truthful "none" is welcome)
			case s.What == "search modes" && probe.SearchFlagsExplained(text, probe.FieldNames(row)):
				continue // field flags the legend explains state the modes
			}
			t.Assert(s.Re.MatchString(own), "%sthe stream row, legend aside, must state %s support for the next read:\n%s", profile, s.What, clipText(own, 800))
		}
		var missing []string
		for _, rel := range row.Expand {
			if !probe.ContainsToken(own, rel) {
				missing = append(missing, rel)
			}
		}
		t.Assert(len(missing) == 0, "%sthe stream row, legend aside, must name its expand relations %v:\n%s", profile, missing, clipText(own, 800))
		if kinds := probe.RowAggKinds(row); len(kinds) > 0 {
			shown := slices.ContainsFunc(kinds, func(k string) bool { return probe.ContainsToken(own, k) })
			t.Assert(shown || aggregationRe.MatchString(own), "the stream row, legend aside, must state its aggregation support (%s):\n%s",
				strings.Join(kinds, ", "), clipText(own, 800))
		}
	})
}

// otherConnections are the connection ids rows cover, but conn.
func otherConnections(rows []probe.SchemaRow, conn string) []string {
	var out []string
	for _, r := range rows {
		for _, id := range r.Connections {
			if id != conn && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// expectNoWiderIdentity wants a result scoped to conn to name no other
// connection anywhere: no connection list or connection_id in
// structuredContent (rows, connectors, wherever) holds another, and the
// text names none of the grant's other connections.
func expectNoWiderIdentity(t *T, c *Call, conn string, others []string, profile string) {
	var wider []string
	probe.EachObject(probe.SchemaDoc(c), func(m map[string]any) {
		if list, ok := m["granted_connections"].([]any); ok {
			for _, id := range probe.ConnectionIDs(list) {
				if id != conn {
					wider = append(wider, id)
				}
			}
		}
	})
	probe.EachObject(probe.SchemaDoc(c), func(m map[string]any) {
		if id := probe.String(m["connection_id"]); id != "" && id != conn {
			wider = append(wider, id)
		}
	})
	t.Assert(len(wider) == 0, "%sschema(stream, connection_id: %q) must not widen source identity; structuredContent also lists connections %v",
		profile, conn, probe.SortedCopy(wider))
	var named []string
	for _, id := range others {
		if probe.ContainsToken(c.Text(), id) {
			named = append(named, id)
		}
	}
	t.Assert(len(named) == 0, "%sschema(stream, connection_id: %q) must not widen source identity; its text also names connections %v:\n%s",
		profile, conn, named, clipText(c.Text(), 800))
}

var nonWordRe = regexp.MustCompile(`[^\pL\pN]+`)

// containsLabel reports whether text shows a display label, however its
// spaces and punctuation were written (Work Mail, Work_Mail).
func containsLabel(text, label string) bool {
	norm := func(s string) string {
		return " " + strings.ToLower(strings.TrimSpace(nonWordRe.ReplaceAllString(s, " "))) + " "
	}
	return strings.Contains(norm(text), norm(label))
}
