package checks

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
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
	index := probe.Grant(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		probe.SkipNoSharedStream(t)
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
	truthAll := probe.TruthRows(t, "", "", index)
	t.Clause(1, func() {
		if !t.Works(c, probe.GrantNames(t), "%sschema(stream, connection_id) must return that connection's row, not an error", profile) {
			return
		}
		t.Shows(c, read.Text(conn), "%sschema(stream: %q, connection_id: %q) must hold that connection's capabilities", profile, name, conn)
		for _, other := range otherConnections(probe.RowsNamed(truthAll, name), conn) {
			if probe.Widens(t, c, other, probe.SchemaQuery(name, conn, false)) {
				t.ShowsNone(c, other, "%sschema(stream: %q, connection_id: %q) must hold capabilities for that connection only, not %s", profile, name, conn, other)
			} else {
				t.Held() // named no more than the RS's own answer to that scope names it
			}
		}
		for _, r := range probe.ShownRows(probe.SchemaDoc(c), truthAll) {
			t.AssertWith(r.Truth.Name == name, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: r.Truth.Name, In: []string{"schema(stream: " + name + ", connection_id: " + conn + ")'s structuredContent"}, Excerpt: clipText(probe.CompactJSON(r.Obj), 200)}, nil
			}, "%sschema(stream: %q, connection_id: %q) must hold that stream only; it also holds a row of %s", profile, name, conn, r.Truth.Ident())
		}
	})
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("schema(stream, connection_id) failed (S019.1)")
		}
		truth := probe.TruthRows(t, name, conn, nil)
		if len(truth) == 1 {
			row = truth[0]
		}
		text := conformance.TextOf(c)
		own := conformance.Shown("the text of "+c.Describe()+", legend aside", probe.WithoutLegend(c.Text()))
		for _, v := range [][2]string{{"connection_id", conn}, {"connector_key", row.ConnectorKey}, {"stream name", name}} {
			if v[1] != "" {
				t.Shows(text, read.Text(v[1]), "%sthe text must carry the %s %q", profile, v[0], v[1])
			}
		}
		if label := probe.FirstNonEmpty(row.ConnNames[conn], row.DisplayName); label != "" {
			t.AssertWith(containsLabel(c.Text(), label), func() (conformance.Witness, error) { return conformance.Absent(read.Text(label), text) },
				"%sthe text must carry the display label %q", profile, label)
		}
		expectFieldSummaries(t, probe.WithoutLegend(c.Text()), probe.FieldNames(row), "%sstream %q on %s", profile, name, conn)
		t.ShowsAny(own, facts(probe.FieldNames(row)...), "%sthe text must summarise the fields of stream %q on %s", profile, name, conn)
		offered := probe.OffersOf(row)
		for _, s := range probe.ScopeSupport {
			switch {
			case s.What == "sort" && !offered.Sort, s.What == "search modes" && !offered.Search:
				continue // the grant offers none: nothing to state (a truthful "none" is welcome)
			case s.What == "search modes" && probe.SearchFlagsExplained(c.Text(), probe.FieldNames(row)):
				continue // field flags the legend explains state the modes
			}
			t.AssertWith(s.Re.MatchString(probe.WithoutLegend(c.Text())), func() (conformance.Witness, error) { return conformance.AbsentAll(facts(s.Stems...), own) },
				"%sthe stream row, legend aside, must state %s support for the next read", profile, s.What)
		}
		for _, rel := range row.Expand {
			t.Shows(own, read.Text(rel), "%sthe stream row, legend aside, must name its expand relation %s", profile, rel)
		}
		if kinds := probe.RowAggKinds(row); len(kinds) > 0 {
			t.ShowsAny(own, facts(append(kinds, "aggregat", "aggregate", "aggregation")...), "%sthe stream row, legend aside, must state its aggregation support (%s)", profile, strings.Join(kinds, ", "))
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

var nonWordRe = regexp.MustCompile(`[^\pL\pN]+`)

// containsLabel reports whether text shows a display label, however its
// spaces and punctuation were written (Work Mail, Work_Mail).
func containsLabel(text, label string) bool {
	norm := func(s string) string {
		return " " + strings.ToLower(strings.TrimSpace(nonWordRe.ReplaceAllString(s, " "))) + " "
	}
	return strings.Contains(norm(text), norm(label))
}
