package checks

import (
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Shared by S033 and S050: the read_record_field calls a page's text
// offers for the values it cuts, found by following them.

// followCutValues judges the records a page's text shows with a text
// value left out or shown only in part (by the fixture's value): the text
// must offer a read_record_field call that goes on in that field, or a
// handle fetch takes for the record.
func followCutValues(t *T, c *Call, s probe.Source) int {
	text := c.Text()
	judged := 0
	for _, ref := range probe.RecordsShownIn(t, text, s.Stream) {
		rec, _ := probe.FindRecord(t, ref)
		var cut []string
		for field, x := range rec.Data {
			if v, ok := x.(string); ok && len(v) >= 8 && v != ref.ID && !probe.LooksBinary(v) && !probe.ShownIn(text, v) {
				cut = append(cut, field)
			}
		}
		if len(cut) == 0 {
			continue
		}
		slices.Sort(cut)
		judged++
		reads := fieldReadsFor(t, c, rec)
		for _, field := range cut {
			done := false
			for _, fr := range reads {
				if fr.field == field {
					done = true
					t.Clause(1, func() {
						if t.Works(fr.r, textOnly(c), "the read_record_field call the text prints for %s's %s must work", ref, field) {
							judgeGoesOnFromCut(t, c, fr, rec.Data[field])
						}
					})
				}
			}
			if !done {
				t.Clause(1, func() {
					handle := probe.Handles(t, c, []probe.RecordRef{ref})[ref]
					if handle != "" && read.ContainsToken(text, handle) {
						t.Held()
						return
					}
					t.AssertWith(false, func() (conformance.Witness, error) {
						return conformance.AbsentAll(facts(continuationTools(t, c)...), textOnly(c))
					}, "record %s shows %s only in part or not at all; the text must offer read_record_field arguments for it or a handle fetch takes for the record:\n%s",
						ref, field, clipText(text, 600))
				})
			}
		}
		// Every field read the text offers for the record must stay on a
		// field it left out.
		for _, fr := range reads {
			// A field shown in part, left out, or binary (kept to
			// metadata) may be read on; only one the text shows whole
			// may not be the continuation.
			v, isText := rec.Data[fr.field].(string)
			if fr.r.IsError() || slices.Contains(cut, fr.field) || !isText || probe.LooksBinary(v) || !probe.ShownIn(text, v) {
				continue
			}
			t.Clause(2, func() {
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Witness{Kind: conformance.WitnessCall, Fact: fr.field, In: []string{fr.r.Describe() + " reads " + ref.String() + "'s " + fr.field + ", which the text shows whole", "printed in " + c.Describe()}}, nil
				}, "the text offers %v for record %s, whose %s it shows whole; a continuation must stay on a field it left out (%v)", fr.cont.Args, ref, fr.field, cut)
			})
		}
	}
	return judged
}

// judgeGoesOnFromCut holds a read a page's text offers for a value it
// cut (x) to where the text stopped: the read must show the value from
// its start again, or the piece of it that follows the cut (a word's room
// after it, for a read that starts at a word). One that starts further on
// skips what the text left out, so it does not work as the continuation.
func judgeGoesOnFromCut(t *T, c *Call, fr fieldRead, x any) {
	v, ok := x.(string)
	if !ok {
		return
	}
	r := []rune(v)
	shown := probe.ShownPrefix(c.Text(), v)
	if shown+2*probe.ChunkRunes >= len(r) || probe.ShownIn(fr.r.Text(), valueHead(v)) {
		return
	}
	for k := 0; k <= 24; k++ {
		if probe.ShownIn(fr.r.Text(), nextPiece(v, shown+k, 256)) {
			return
		}
	}
	want := nextPiece(v, shown, 256)
	t.AssertWith(false, func() (conformance.Witness, error) {
		return conformance.Undelivered(fr.r, read.Text(want), textOnly(c))
	},
		"the text shows %d of the %d characters of %s and offers %v to read on, which shows neither the value's start nor what follows the cut (%q): it skips what the text left out",
		shown, len(r), fr.field, fr.cont.Args, clipText(want, 60))
}

// A fieldRead is a read_record_field call a text prints for a record,
// followed, with the field its answer shows (found by the record's
// values).
type fieldRead struct {
	cont  probe.Continuation
	r     *Call
	field string
}

// fieldReadsFor follows every read_record_field call a text prints and
// keeps those that read rec: the followed answer shows rec, or the call
// names rec's id, or its record argument is a handle fetch follows to rec.
// The field is the argument holding one of rec's field names (by value),
// else the field whose value the answer shows.
func fieldReadsFor(t *T, c *Call, rec probe.FixtureRecord) []fieldRead {
	var out []fieldRead
	for _, cont := range probe.ContinuationsIn(c.Text()) {
		if cont.Tool != "read_record_field" {
			continue
		}
		r := followOnce(t, cont)
		ref, shows := probe.RecordIn(t, r)
		if !(shows && ref == rec.Ref) && !probe.RefersTo(cont, rec.Ref.ID) && !namesByHandle(t, cont, rec.Ref) {
			continue
		}
		field := ""
		for _, v := range cont.Args {
			if s, ok := v.(string); ok {
				if _, has := rec.Data[s]; has {
					field = s
				}
			}
		}
		if field == "" && !r.IsError() {
			field = probe.FieldShown(t, r, rec)
		}
		if field != "" {
			out = append(out, fieldRead{cont, r, field})
		}
	}
	return out
}

// namesByHandle reports whether some string argument of a call is a
// handle fetch follows to ref.
func namesByHandle(t *T, cont probe.Continuation, ref probe.RecordRef) bool {
	for _, v := range cont.Args {
		if s, ok := v.(string); ok && len(s) >= 6 {
			if f := probe.Follow(t, s); f.OK && f.Ref == ref {
				return true
			}
		}
	}
	return false
}
