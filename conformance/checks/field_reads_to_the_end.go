package checks

import (
	"fmt"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// maxFieldReads bounds how many reads a field is followed through to its
// end (mcpcheck's own call budget; a field that takes more is judged up
// to it, and the report says so).
const maxFieldReads = 64

// readOnToTheEnd follows a field's reads from answer r, which has shown
// value up to rune end, to the value's end. An answer that stops before
// the end must print a read_record_field call of the field that goes on
// where it stopped: one that shows the piece of the value starting there,
// grown until it occurs only there. A continuation that works once and
// then repeats, skips or stops is the witness.
func readOnToTheEnd(t, v *T, r *Call, value, field string, end int) {
	total := utf8.RuneCountInString(value)
	for step := 1; end < total; step++ {
		if step == maxFieldReads {
			t.Record("field reads followed", fmt.Sprintf("%d, up to character %d of %d of %s (mcpcheck's budget)", step, end, total, field))
			return
		}
		var conts []probe.Continuation
		for _, c := range probe.NextCalls(r) {
			if f := probe.String(v.Target.Dialect().Value(c.Tool, c.Args, dialect.Field)); c.Tool == "read_record_field" && (f == "" || f == field) {
				conts = append(conts, c)
			}
		}
		if len(conts) == 0 {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Absent(read.Text("read_record_field"), conformance.TextOf(r))
			}, "%s: read %d of the field's continuation shows it up to character %d of %d, and prints no read_record_field call that goes on", field, step, end, total)
			return
		}
		want := nextPiece(value, end, 512)
		var next *Call
		for _, c := range conts {
			if n := followOnce(v, c); !n.IsError() && probe.ShownIn(n.Text(), want) {
				next = n
				break
			}
		}
		if next == nil {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Undelivered(followOnce(v, conts[0]), read.Text(want), conformance.TextOf(r))
			}, "%s: none of the read_record_field calls that read %d of the field's continuation prints (it stops at character %d of %d) goes on where it stopped (%q)", field, step, end, total, clipText(want, 60))
			return
		}
		end += probe.ShownPrefix(next.Text(), string([]rune(value)[end:]))
		r = next
	}
}
