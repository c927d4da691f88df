package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var aggregationRe = regexp.MustCompile(`(?i)aggregat`)

// minShownFields is mcpcheck's own number: a row long enough to cap still
// shows this many of its fields.
const minShownFields = 8

// S018 judges each row of a shared stream's text by value: the row's
// fields, aggregation kinds and connections as the RS (or, without a
// controlled RS, structuredContent) declares them; then again on the
// fixture's real-RS profile, where the grant offers no capability and the
// arguments the text must let a client choose are fewer.
var s018 = &Check{ID: "S018", Slug: "schema-shared-stream-detail", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	judgeSharedStreamDetail(t, "")
	probe.OnRealRS(t, func(on *T) { judgeSharedStreamDetail(on, "real-RS profile: ") })
}}

// judgeSharedStreamDetail is S018 on one target; profile prefixes its
// messages.
func judgeSharedStreamDetail(t *T, profile string) {
	_, index := probe.SchemaIndex(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		t.Skipf("%s", probe.NoSharedStream)
	}
	c := probe.SchemaCall(t, dialect.Args{dialect.Stream: name})
	if c.IsError() {
		t.Clause(1, func() { t.Fatalf("schema(stream: %q) must return its rows, not an error: %s", name, c.Describe()) })
		t.Skipf("schema(stream: %q) failed (S018.1)", name)
	}
	rows := probe.TruthRows(t, name, "", probe.RowsNamed(probe.SchemaRows(probe.SchemaDoc(c)), name))
	if !slices.ContainsFunc(rows, func(r probe.SchemaRow) bool { return len(r.FieldCaps) > 0 }) {
		t.Skipf("neither the RS nor structuredContent declares fields for the %q rows, so mcpcheck cannot tell which summaries to expect", name)
	}
	segs, missing := probe.RowSegments(c.Text(), rows)
	t.Clause(1, func() {
		t.Expect(missing).To(BeEmpty(), "%sthe text must identify every row of stream %q:\n%s", profile, name, clipText(c.Text(), 600))
		for _, seg := range segs {
			expectFieldSummaries(t, seg.Text, probe.FieldNames(seg.Row), "%sstream %s", profile, seg.Row.Ident())
			if kinds := probe.RowAggKinds(seg.Row); len(kinds) > 0 {
				shown := slices.ContainsFunc(kinds, func(k string) bool { return probe.ContainsToken(seg.Text, k) })
				t.Assert(shown || aggregationRe.MatchString(seg.Text), "the text for stream %s must summarise its aggregations (%s):\n%s",
					seg.Row.Ident(), strings.Join(kinds, ", "), clipText(seg.Text, 600))
			}
		}
	})
	t.Clause(2, func() {
		if len(segs) == 0 {
			t.Skipf("the text identifies no row of stream %q (S018.1)", name)
		}
		for _, seg := range segs {
			src := probe.Source{Stream: name}
			if len(seg.Row.Connections) > 0 {
				shown := probe.ShownFields(seg.Text, seg.Row.Connections)
				if !t.Assert(len(shown) > 0, "the text for stream %s must show its connection_id (%s) to retry with",
					seg.Row.Ident(), strings.Join(seg.Row.Connections, ", ")) {
					continue
				}
				src.Conn = shown[0]
			}
			probe.JudgeTextArgs(t, src, probe.DeriveArgs(seg.Text, probe.FieldNames(seg.Row)), probe.OffersOf(seg.Row), profile+"stream "+seg.Row.Ident())
		}
	})
}

// expectFieldSummaries wants the field names in text: some of them (the
// seed), and all of them or at least minShownFields when a row is long
// enough for an adapter to cap it (mcpcheck's number).
func expectFieldSummaries(t *T, text string, fields []string, what string, args ...any) {
	shown := probe.ShownFields(text, fields)
	var missing []string
	for _, f := range fields {
		if !slices.Contains(shown, f) {
			missing = append(missing, f)
		}
	}
	if len(fields) == 0 {
		return
	}
	label := fmt.Sprintf(what, args...)
	t.Assert(len(shown) > 0, "the text must summarise the fields of %s; it shows none of %v", label, fields)
	t.Threshold().Expect(len(shown)).To(BeNumerically(">=", min(len(fields), minShownFields)),
		"the text must summarise the fields of %s; missing %v", label, missing)
}
