package checks

import (
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S049: the bounded read of a small field holds its text inline with its
// size, and says it is whole: its total size found by value, and its
// completion state and continuation metadata by contrast with a window of
// a long field that is cut, which must read differently once the fields'
// own text is set aside.
var s049 = &Check{ID: "S049", Slug: "small-field-inline", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	f, ok := probe.SmallField(t)
	if !ok {
		t.Skipf("no record of the grant has a short text field whose handle a query_records text shows")
	}
	r := f.Read(t, nil)
	t.Clause(1, func() {
		if !t.Works(r, f.From(t), "the bounded read of %s's small field %s must work", f.Rec.Ref, f.Field) {
			return
		}
		if !t.Shows(conformance.TextOf(r), read.Text(f.Value), "the bounded read of a small field must hold its text inline") {
			return
		}
		total := utf8.RuneCountInString(f.Value)
		t.Shows(r, read.Number(total), "the read must show the field's total size")
		// A window shorter than the field tells its total from its end.
		if part := f.Read(t, dialect.Args{dialect.Length: total / 2}); !part.IsError() && !read.ContainsToken(part.Text(), f.Value) {
			t.Shows(part, read.Number(total), "a read of part of the small field must show the field's total size %d", total)
		}
		long, ok := probe.LongField(t)
		if !ok {
			t.Inconclusive("no long field of the grant to contrast a cut window with: the completion state of the whole read cannot be told")
			return
		}
		w := long.Read(t, dialect.Args{dialect.Length: 200})
		if w.IsError() {
			t.Inconclusive("a window of a long field failed, so there is no cut window to contrast the whole read with: %s", w.Describe())
			return
		}
		t.Differs(r, w, append(probe.FixtureStrings(t), f.Value, long.Value, f.Handle, long.Handle),
			"the read must show its completion state and continuation metadata: a whole small field and a cut window of a long one read the same")
	})
	t.Clause(2, func() { expectNotOnlyMaterialized(t, r, f.Value) })
}}
