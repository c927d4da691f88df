package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// A grammarCase is a scoped schema text that annotates its fields: what
// S020 judges.
type grammarCase struct {
	src    probe.Source
	row    probe.SchemaRow // the truth row
	text   string
	fields []string
	notes  map[string]probe.FieldNote
}

// S020 judges whatever grammar the text uses by meaning: each abbreviation
// any shown stream's text uses must be explained outside the fields'
// annotations, and arguments built from the text alone (fields found by
// value, capabilities read through the legend) must be accepted by
// query_records and aggregate. It judges again on the fixture's real-RS
// profile, where the grant offers no capability.
var s020 = &Check{ID: "S020", Slug: "schema-legend", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	judgeLegend(t, "")
	probe.OnRealRS(t, func(on *T) { judgeLegend(on, "real-RS profile: ") })
}}

func judgeLegend(t *T, profile string) {
	c, index := probe.SchemaIndex(t)
	cases := grammarCases(t, c.Text(), index)
	if len(cases) == 0 {
		t.NotApplicable("no schema(stream) text annotates its fields with flags or a mini-grammar, so there is no legend to judge")
	}
	t.Clause(1, func() {
		// Every stream shown, not one sample: a flag one stream alone uses
		// needs its explanation too.
		for _, gc := range cases {
			missing := probe.Unexplained(gc.notes, probe.LegendText(gc.text, gc.notes), gc.fields)
			t.Assert(len(missing) == 0, "%sstream %s: the text must carry a legend that explains every abbreviation it uses; unexplained: %v\n%s",
				profile, gc.src.Stream, missing, clipText(gc.text, 800))
		}
	})
	gc := bestGrammarCase(cases)
	t.Clause(2, func() {
		probe.JudgeTextArgs(t, gc.src, probe.DeriveArgs(gc.text, gc.fields), probe.OffersOf(gc.row), profile+"stream "+gc.src.Stream)
	})
}

// grammarCases are, among the streams the global text names (at most
// maxStreamProbes), those whose scoped text annotates their fields.
func grammarCases(t *T, global string, index []probe.SchemaRow) []grammarCase {
	var out []grammarCase
	probes := 0
	for _, name := range probe.StreamNames(index) {
		if !probe.ContainsToken(global, name) {
			continue
		}
		if probes++; probes > probe.MaxStreamProbes {
			break
		}
		truth := probe.TruthRows(t, name, "", probe.RowsNamed(index, name))
		if len(truth) == 0 {
			continue
		}
		row := truth[0]
		src := probe.Source{Stream: name}
		args := dialect.Args{dialect.Stream: name}
		if len(row.Connections) > 0 {
			src.Conn = row.Connections[0]
			if shown := probe.ShownFields(global, row.Connections); len(shown) > 0 {
				src.Conn = shown[0]
			}
			args[dialect.Connection] = src.Conn
		}
		sc := probe.SchemaCall(t, args)
		if sc.IsError() {
			continue
		}
		fields := probe.FieldNames(row)
		if len(fields) == 0 {
			if scoped := probe.RowsNamed(probe.SchemaRows(probe.SchemaDoc(sc)), name); len(scoped) > 0 {
				fields = probe.FieldNames(scoped[0])
			}
		}
		notes := probe.FieldNotes(sc.Text(), fields)
		if len(notes) == 0 {
			continue
		}
		out = append(out, grammarCase{src: src, row: row, text: sc.Text(), fields: fields, notes: notes})
	}
	return out
}

// bestGrammarCase prefers a stream that declares an aggregation and a
// sort key, so every argument kind can be built.
func bestGrammarCase(cases []grammarCase) grammarCase {
	for _, gc := range cases {
		if len(probe.RowAggKinds(gc.row)) > 0 && strings.TrimSpace(probe.String(gc.row.Raw["cursor_field"])) != "" {
			return gc
		}
	}
	return cases[0]
}
