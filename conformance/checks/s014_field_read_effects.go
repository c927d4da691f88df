package checks

// S014.1's argument effects on read_record_field: a window's length and
// the context around a match.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// windowLength is the length judgeWindowLength asks a window for.
const windowLength = 200

// judgeWindowLength judges read_record_field's window length: a window
// asked for 200 characters of a long field, which the RS's limit_chars
// serves, must not show the field's text well past them (at 440..600).
func judgeWindowLength(t, ft *T) {
	if !ft.HasRole("read_record_field", dialect.Length) {
		return
	}
	f, ok := probe.LongField(ft)
	full := []rune(f.Value)
	if !ok || len(full) < 4*windowLength {
		return
	}
	past := distinctIn(full, 2*windowLength+40, 3*windowLength)
	if strings.Count(f.Value, past) != 1 {
		return
	}
	before := len(ft.RS().Requests())
	win := f.Read(ft, dialect.Args{dialect.Length: windowLength})
	if win.IsError() || !read.Find(win.Strings(), read.Text(past)).Seen() || sentToRS(ft, before, rsLimitChars, strconv.Itoa(windowLength)) {
		return
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return shownPiece(win, past, fmt.Sprintf("%q, which %s holds at %d..%d", past, f.Field, 2*windowLength+40, 3*windowLength)), nil
	}, "read_record_field asked for a %d-character window of %s shows the field's text at %d..%d: the window length was accepted but not applied", windowLength, f.Field, 2*windowLength+40, 3*windowLength)
}

// sentToRS reports whether an RS request the target made after the
// first `before` of the log carried param=value: forwarded, whatever the
// answer shows.
func sentToRS(ft *T, before int, param, value string) bool {
	reqs := ft.RS().Requests()
	for _, r := range reqs[min(before, len(reqs)):] {
		if r.Query.Get(param) == value {
			return true
		}
	}
	return false
}

// shownPiece witnesses a piece of a field that a read shows where it
// must not (what, said of the piece).
func shownPiece(c *Call, piece, what string) conformance.Witness {
	return conformance.Witness{Kind: conformance.WitnessPresent, Fact: what, In: []string{c.Describe()}, Excerpt: read.Find(c.Strings(), read.Text(piece)).Excerpt}
}

// judgeMatchContext judges read_record_field's context around a match: a
// read asked for a word of a long field with 20 characters of context on
// either side, which the RS's before_chars and after_chars serve, must not
// show the field's text well after the match (200..240 characters past it).
func judgeMatchContext(t, ft *T) {
	context := dialect.Args{dialect.Before: 20, dialect.After: 20}
	switch {
	case !ft.HasRole("read_record_field", dialect.Query):
		return
	case ft.HasRole("read_record_field", dialect.Before) && ft.HasRole("read_record_field", dialect.After):
	case ft.HasRole("read_record_field", dialect.Context): // one argument sizes both sides
		context = dialect.Args{dialect.Context: 20}
	default:
		return
	}
	f, ok := probe.LongField(ft)
	full := []rune(f.Value)
	q, at := matchWord(full)
	from := at + len([]rune(q)) + 200
	if !ok || q == "" || from+40 > len(full) {
		return
	}
	past := distinctIn(full, from, min(len(full), from+120))
	if strings.Count(f.Value, past) != 1 {
		return
	}
	before := len(ft.RS().Requests())
	context[dialect.Query] = q
	r := f.Read(ft, context)
	if r.IsError() || !read.Find(r.Strings(), read.Text(past)).Seen() || sentToRS(ft, before, rsAfterChars, "20") {
		return // a context sent on is forwarded, whatever window size the adapter adds
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return shownPiece(r, past, fmt.Sprintf("%q, which %s holds 200 characters past the match of %q", past, f.Field, q)), nil
	}, "read_record_field asked for %q with 20 characters of context shows the field's text 200 characters past the match: the context was accepted but not applied", q)
}
