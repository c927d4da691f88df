package checks

import (
	"fmt"
	"slices"
	"strings"
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
// own text is set aside. A continuation it offers past the whole value is
// followed: one that reads nothing further says, falsely, that more exists.
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
		judgeNoMoreAfterWhole(t, r, f)
		judgeStateFlags(t, r, f.Value, true, fmt.Sprintf("the read of all %d characters of %s's field %s", total, f.Rec.Ref, f.Field))
		judgeWindowNumbers(t, r, f.Value, f.Value, 0, fmt.Sprintf("the read of all of %s's %s", f.Rec.Ref, f.Field))
		// A window shorter than the field tells its total from its end.
		if part := f.Read(t, dialect.Args{dialect.Length: total / 2}); !part.IsError() && !read.ContainsToken(part.Text(), f.Value) {
			t.Shows(part, read.Number(total), "a read of part of the small field must show the field's total size %d", total)
			judgeWindowNumbers(t, part, f.Value, string([]rune(f.Value)[:total/2]), 0, fmt.Sprintf("the read of the first %d characters of %s's %s", total/2, f.Rec.Ref, f.Field))
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

// judgeNoMoreAfterWhole follows each read_record_field continuation the
// whole read r of small field f prints for that field: the fixture holds
// nothing past what r shows, so a continuation that is refused or reads
// none of the field's words claims more where there is none.
func judgeNoMoreAfterWhole(t *T, r *Call, f probe.FieldRead) {
	words := probe.Words(strings.ToLower(f.Value))
	for _, nc := range probe.NextCalls(r) {
		if nc.Tool != "read_record_field" || probe.RoleOf(t, nc, dialect.Field) != f.Field {
			continue
		}
		next := t.Follow(nc)
		if !next.IsError() && slices.ContainsFunc(words, func(w string) bool { return len(w) >= 4 && read.ContainsToken(strings.ToLower(next.Text()), w) }) {
			continue // it reads the field again: not a claim of more
		}
		t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(nc.At, r) },
			"the read shows all %d characters of %s's field %s, yet offers %s to read more, which reads nothing further (%s): its completion state must say the value is whole",
			utf8.RuneCountInString(f.Value), f.Rec.Ref, f.Field, clipText(nc.At, 160), clipText(next.Describe(), 200))
	}
}
