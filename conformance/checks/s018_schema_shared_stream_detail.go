package checks

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// minShownFields is mcpcheck's own number: a row long enough to cap still
// shows this many of its fields.
const minShownFields = 8

// S018 judges each row of a shared stream's text by value: the row's
// fields, aggregation kinds and connections as the RS (or, without a
// controlled RS, structuredContent) declares them; then again on the
// fixture's real-RS profile, where the grant offers no capability and the
// arguments the text must let a client choose are fewer. A field or
// connection of a row found nowhere in the text is the witness; so is a
// call built from the text alone that the target refuses.
var s018 = &Check{ID: "S018", Slug: "schema-shared-stream-detail", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	judgeSharedStreamDetail(t, "")
	probe.OnRealRS(t, func(on *T) { judgeSharedStreamDetail(on, "real-RS profile: ") })
}}

// judgeSharedStreamDetail is S018 on one target; profile prefixes its
// messages.
func judgeSharedStreamDetail(t *T, profile string) {
	index := probe.Grant(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		probe.SkipNoSharedStream(t)
	}
	c := probe.SchemaCall(t, dialect.Args{dialect.Stream: name})
	if c.IsError() {
		t.Clause(1, func() {
			t.Works(c, probe.GrantNames(t), "%sschema(stream: %q) must return its rows, not an error", profile, name)
		})
		t.Skipf("schema(stream: %q) failed (S018.1)", name)
	}
	rows := probe.TruthRows(t, name, "", probe.RowsNamed(probe.SchemaRows(probe.SchemaDoc(c)), name))
	if !slices.ContainsFunc(rows, func(r probe.SchemaRow) bool { return len(r.FieldCaps) > 0 }) {
		t.Skipf("neither the RS nor structuredContent declares fields for the %q rows, so mcpcheck cannot tell which summaries to expect", name)
	}
	text := conformance.TextOf(c)
	segs, _ := probe.RowSegments(c.Text(), rows)
	segOf := func(r probe.SchemaRow) (probe.RowSegment, bool) {
		i := slices.IndexFunc(segs, func(s probe.RowSegment) bool { return s.Row.Ident() == r.Ident() })
		if i < 0 {
			return probe.RowSegment{}, false
		}
		return segs[i], true
	}
	t.Clause(1, func() {
		for _, row := range rows {
			fields := probe.FieldNames(row)
			t.ShowsAny(text, facts(distinctiveFields(row, rows)...), "%sthe text must summarise the fields of every row of stream %q; it shows none of row %s's own fields", profile, name, row.Ident())
			seg, ok := segOf(row)
			if !ok {
				t.Inconclusive("%smcpcheck cannot tell which part of the text describes row %s of stream %q", profile, row.Ident(), name)
				continue
			}
			expectFieldSummaries(t, seg.Text, fields, "%sstream %s", profile, row.Ident())
			if kinds := probe.RowAggKinds(row); len(kinds) > 0 {
				t.ShowsAny(text, facts(append(kinds, "aggregat", "aggregate", "aggregation")...), "%sthe text for stream %s must summarise its aggregations (%s)", profile, row.Ident(), strings.Join(kinds, ", "))
			}
		}
	})
	t.Clause(2, func() {
		for _, row := range rows {
			src := probe.Source{Stream: name}
			if len(row.Connections) > 0 {
				if !t.ShowsAny(text, facts(row.Connections...), "%sthe text for stream %s must show its connection_id (%s) to retry with", profile, row.Ident(), strings.Join(row.Connections, ", ")) {
					continue
				}
				src.Conn = probe.ShownFields(c.Text(), row.Connections)[0]
			}
			seg, ok := segOf(row)
			if !ok {
				t.Inconclusive("%smcpcheck cannot tell which part of the text describes row %s of stream %q", profile, row.Ident(), name)
				continue
			}
			probe.JudgeTextArgsIn(t, src, seg.Text, c.Text(), probe.DeriveArgs(seg.Text, row), probe.OffersOf(row), profile+"stream "+row.Ident(), distinctiveFields(row, rows))
		}
	})
}

// distinctiveFields are a row's own fields (no other row of the stream has
// them) whose names are distinctive enough that finding them nowhere in a
// text witnesses the row left unsummarised: five characters or more, or
// compound. A row with none gives all its fields.
func distinctiveFields(row probe.SchemaRow, rows []probe.SchemaRow) []string {
	fields := probe.FieldNames(row)
	own := slices.DeleteFunc(slices.Clone(fields), func(f string) bool {
		return len(f) < 5 && !strings.ContainsAny(f, "_-.") || slices.ContainsFunc(rows, func(o probe.SchemaRow) bool {
			return o.Ident() != row.Ident() && slices.Contains(probe.FieldNames(o), f)
		})
	})
	if len(own) == 0 {
		return fields
	}
	return own
}

// expectFieldSummaries wants the field names in a row's part of the
// text: some of them (the seed), and all of them or at least
// minShownFields when a row is long enough for an adapter to cap it
// (mcpcheck's number). Where the row's part shows none, the reading of
// where it starts and ends is in doubt: the witness is the whole text's.
func expectFieldSummaries(t *T, text string, fields []string, what string, args ...any) {
	if len(fields) == 0 {
		return
	}
	label := fmt.Sprintf(what, args...)
	shown := probe.ShownFields(text, fields)
	var missing []string
	for _, f := range fields {
		if !slices.Contains(shown, f) {
			missing = append(missing, f)
		}
	}
	if len(shown) == 0 {
		t.Inconclusive("the part of the text read as %s's shows none of its fields %v", label, fields)
		return
	}
	t.Threshold().Expect(len(shown)).To(BeNumerically(">=", min(len(fields), minShownFields)),
		"the text must summarise the fields of %s; missing %v", label, missing)
}
