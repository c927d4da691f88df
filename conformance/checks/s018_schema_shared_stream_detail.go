package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

var aggregationRe = regexp.MustCompile(`(?i)aggregat`)

// minShownFields is mcpcheck's own number: a row long enough to cap still
// shows this many of its fields.
const minShownFields = 8

// S018 judges each row of a shared stream's text by value: the row's
// fields, aggregation kinds and connections as the RS (or, without a
// controlled RS, structuredContent) declares them.
var s018 = &Check{ID: "S018", Slug: "schema-shared-stream-detail", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	_, index := schemaIndex(t)
	name, ok := sharedStream(index)
	if !ok {
		t.Skipf("%s", noSharedStream)
	}
	c := schemaCall(t, dialect.Args{dialect.Stream: name})
	if c.IsError() {
		t.Clause(1, func() { t.Fatalf("schema(stream: %q) must return its rows, not an error: %s", name, c.Describe()) })
		t.Skipf("schema(stream: %q) failed (S018.1)", name)
	}
	rows := truthRows(t, name, "", rowsNamed(schemaRows(schemaDoc(c)), name))
	if !slices.ContainsFunc(rows, func(r schemaRow) bool { return len(r.FieldCaps) > 0 }) {
		t.Skipf("neither the RS nor structuredContent declares fields for the %q rows, so mcpcheck cannot tell which summaries to expect", name)
	}
	segs, missing := rowSegments(c.Text(), rows)
	t.Clause(1, func() {
		t.Expect(missing).To(BeEmpty(), "the text must identify every row of stream %q:\n%s", name, clipText(c.Text(), 600))
		for _, seg := range segs {
			expectFieldSummaries(t, seg.text, fieldNames(seg.row), "stream %s", seg.row.ident())
			if kinds := rowAggKinds(seg.row); len(kinds) > 0 {
				shown := slices.ContainsFunc(kinds, func(k string) bool { return containsToken(seg.text, k) })
				t.Assert(shown || aggregationRe.MatchString(seg.text), "the text for stream %s must summarise its aggregations (%s):\n%s",
					seg.row.ident(), strings.Join(kinds, ", "), clipText(seg.text, 600))
			}
		}
	})
	t.Clause(2, func() {
		if len(segs) == 0 {
			t.Skipf("the text identifies no row of stream %q (S018.1)", name)
		}
		var unjudged []string
		for _, seg := range segs {
			src := source{stream: name}
			if len(seg.row.Connections) > 0 {
				shown := shownFields(seg.text, seg.row.Connections)
				if !t.Assert(len(shown) > 0, "the text for stream %s must show its connection_id (%s) to retry with",
					seg.row.ident(), strings.Join(seg.row.Connections, ", ")) {
					continue
				}
				src.conn = shown[0]
			}
			unjudged = append(unjudged, judgeTextArgs(t, src, deriveArgs(seg.text, fieldNames(seg.row)), "stream "+seg.row.ident(), seg.row)...)
		}
		if len(unjudged) > 0 {
			t.Skipf("%s", strings.Join(unjudged, "; "))
		}
	})
}}

func fieldNames(r schemaRow) []string {
	out := make([]string, 0, len(r.FieldCaps))
	for f := range r.FieldCaps {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// expectFieldSummaries wants the field names in text: some of them (the
// seed), and all of them or at least minShownFields when a row is long
// enough for an adapter to cap it (mcpcheck's number).
func expectFieldSummaries(t *T, text string, fields []string, what string, args ...any) {
	shown := shownFields(text, fields)
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
