package checks

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// A grammarCase is a scoped schema text that annotates its fields: what
// S020 judges.
type grammarCase struct {
	src   probe.Source
	row   probe.SchemaRow // the truth row
	text  string
	notes map[string]probe.FieldNote
	flags map[string][]string // capability -> the tokens that flag it
}

// S020 judges whatever grammar the text uses, learnt by value: a token of
// the field annotations that stands on exactly the fields the grant gives
// a capability is the text's flag for it. Each capability flagged only by
// abbreviations must have one of them explained outside the fields'
// annotations (a legend); a flag found nowhere else is the witness. Then
// arguments built from the text alone must be accepted by query_records
// and aggregate. It judges again on the fixture's real-RS profile, where
// the grant offers no capability.
var s020 = &Check{ID: "S020", Slug: "schema-legend", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	judgeLegend(t, "")
	probe.OnRealRS(t, func(on *T) { judgeLegend(on, "real-RS profile: ") })
}}

func judgeLegend(t *T, profile string) {
	c, index := probe.IndexCall(t), probe.Grant(t)
	cases := grammarCases(t, c.Text(), index)
	if len(cases) == 0 {
		t.NotApplicable("no schema(stream) text flags its fields' capabilities in a grammar of its own, so there is no legend to judge")
	}
	t.Clause(1, func() {
		// Every stream shown, not one sample: a flag one stream alone uses
		// needs its explanation too.
		for _, gc := range cases {
			outside := conformance.Shown("the schema(stream: "+gc.src.Stream+") text outside its field annotations", probe.LegendText(gc.text, gc.notes))
			abbrevs := probe.Abbreviations(gc.flags)
			if len(abbrevs) == 0 {
				t.Held() // its flags are plain words: nothing to explain
			}
			for _, tok := range abbrevs {
				t.AssertWith(read.Find(outside.Strings(), read.Text(tok)).Seen(), func() (conformance.Witness, error) { return conformance.Absent(read.Text(tok), outside) },
					"%sstream %s: the text must carry a legend that explains its flag %q (%s):\n%s", profile, gc.src.Stream, tok, capsFlaggedBy(gc.flags, tok), clipText(gc.text, 800))
			}
		}
	})
	gc := bestGrammarCase(cases)
	t.Clause(2, func() {
		probe.JudgeTextArgs(t, gc.src, gc.text, probe.DeriveArgs(gc.text, gc.row), probe.OffersOf(gc.row), profile+"stream "+gc.src.Stream)
	})
}

// grammarCases are, among the streams the global text names (at most
// maxStreamProbes), those whose scoped text flags some capability on its
// fields, in words or abbreviations.
func grammarCases(t *T, global string, index []probe.SchemaRow) []grammarCase {
	var out []grammarCase
	probes := 0
	for _, name := range probe.StreamNames(index) {
		if !read.ContainsToken(global, name) {
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
		if scoped := probe.TruthRows(t, name, src.Conn, nil); len(scoped) == 1 {
			row = scoped[0]
		}
		notes := probe.FieldAnnotations(sc.Text(), probe.FieldNames(row))
		flags := probe.LearnFlags(notes, row)
		if len(flags) == 0 {
			continue
		}
		out = append(out, grammarCase{src: src, row: row, text: sc.Text(), notes: notes, flags: flags})
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

// capsFlaggedBy names the capabilities tok flags.
func capsFlaggedBy(flags map[string][]string, tok string) string {
	var out []string
	for c, toks := range flags {
		if slices.Contains(toks, tok) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
