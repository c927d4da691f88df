package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// A grammarCase is a scoped schema text that annotates its fields: what
// S020 judges.
type grammarCase struct {
	src    source
	text   string
	fields []string
	notes  map[string]fieldNote
	row    schemaRow // the truth row: the RS's, else structuredContent's
}

// S020 judges whatever grammar the text uses by meaning: each abbreviation
// must be explained outside the fields' annotations, and arguments built
// from the text alone (fields found by value, capabilities read through
// the legend) must be accepted by query_records and aggregate.
var s020 = &Check{ID: "S020", Slug: "schema-legend", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	c, index := schemaIndex(t)
	gc, ok := findGrammarCase(t, c.Text(), index)
	if !ok {
		t.NotApplicable("no schema(stream) text annotates its fields with flags or a mini-grammar, so there is no legend to judge")
	}
	what := "stream " + gc.src.stream
	t.Clause(1, func() {
		missing := unexplained(gc.notes, legendText(gc.text, gc.notes), gc.fields)
		t.Assert(len(missing) == 0, "%s: the text must carry a legend that explains every abbreviation it uses; unexplained: %v\n%s",
			what, missing, clipText(gc.text, 800))
	})
	t.Clause(2, func() {
		if unjudged := judgeTextArgs(t, gc.src, deriveArgs(gc.text, gc.fields), what, gc.row); len(unjudged) > 0 {
			t.Skipf("%s", strings.Join(unjudged, "; "))
		}
	})
}}

// findGrammarCase picks, among the streams the global text names, one
// whose scoped text annotates its fields; preferably one that declares an
// aggregation and a sort key, so every argument kind can be built.
func findGrammarCase(t *T, global string, index []schemaRow) (grammarCase, bool) {
	var first *grammarCase
	probes := 0
	for _, name := range streamNames(index) {
		if !containsToken(global, name) {
			continue
		}
		if probes++; probes > maxStreamProbes {
			break
		}
		truth := truthRows(t, name, "", rowsNamed(index, name))
		if len(truth) == 0 {
			continue
		}
		row := truth[0]
		src := source{stream: name}
		args := dialect.Args{dialect.Stream: name}
		if len(row.Connections) > 0 {
			src.conn = row.Connections[0]
			if shown := shownFields(global, row.Connections); len(shown) > 0 {
				src.conn = shown[0]
			}
			args[dialect.Connection] = src.conn
		}
		sc := schemaCall(t, args)
		if sc.IsError() {
			continue
		}
		fields := fieldNames(row)
		if len(fields) == 0 {
			if scoped := rowsNamed(schemaRows(schemaDoc(sc)), name); len(scoped) > 0 {
				fields = fieldNames(scoped[0])
			}
		}
		notes := fieldNotes(sc.Text(), fields)
		if len(notes) == 0 {
			continue
		}
		gc := grammarCase{src: src, text: sc.Text(), fields: fields, notes: notes, row: row}
		if scoped := rowsNamed(schemaRows(schemaDoc(sc)), name); len(scoped) > 0 && !t.Target.Has(CapControlledRS) {
			gc.row = scoped[0] // the index row holds no capabilities
		}
		if len(rowAggKinds(row)) > 0 && str(row.Raw["cursor_field"]) != "" {
			return gc, true
		}
		if first == nil {
			first = &gc
		}
	}
	if first == nil {
		return grammarCase{}, false
	}
	return *first, true
}
