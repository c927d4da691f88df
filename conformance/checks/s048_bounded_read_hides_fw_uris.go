package checks

import (
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S048 reads a long field of the target's own data in small windows and
// judges each window by value: the field's text, the offsets of the served
// range, a truncation state, the match offset of a q read, and next and
// previous read_record_field arguments that read the neighbouring windows.
var s048 = &Check{ID: "S048", Slug: "bounded-read-hides-fw-uris", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	rec, ok := probe.ScanRecords(t, func(r probe.ScannedRecord) bool { return probe.LongestString(r.Data) > 600 })
	if !ok {
		t.Skipf("no record of the target's grant has a text field over 600 characters")
	}
	field := probe.LongestField(rec.Data)
	full := []rune(probe.String(rec.Data[field]))
	const size = 256
	read := func(args dialect.Args) *Call {
		args[dialect.RecordID], args[dialect.Field] = rec.ID, field
		return t.CallRoles("read_record_field", args)
	}
	w := read(dialect.Args{dialect.Length: size})
	reads := []*Call{w}
	t.Clause(1, func() {
		if !t.Assert(!w.IsError(), "read_record_field must read a window of %s: %s", field, w.Describe()) {
			return
		}
		judgeWindow(t, w, full, 0, size)
		next := windowContinuation(t, w, rec.ID, func(off int) bool { return off >= size })
		if !t.Assert(next != nil, "an incomplete window must show ready-made next read_record_field arguments:\n%s", clipText(w.Text(), 400)) {
			return
		}
		n := t.Follow(*next)
		reads = append(reads, n)
		if !t.Assert(!n.IsError(), "the next arguments must read the next window: %s", n.Describe()) {
			return
		}
		judgeWindow(t, n, full, size, 2*size)
		prev := windowContinuation(t, n, rec.ID, func(off int) bool { return off < size })
		if !t.Assert(prev != nil, "a second window must show ready-made previous read_record_field arguments:\n%s", clipText(n.Text(), 400)) {
			return
		}
		p := t.Follow(*prev)
		reads = append(reads, p)
		t.Assert(!p.IsError() && strings.Contains(p.Text(), string(full[:40])), "the previous arguments of the second window must read the first window again: %s", p.Describe())
	})
	if q, at := matchWord(full); q != "" {
		args := dialect.Args{dialect.Query: q}
		for _, r := range []dialect.Role{dialect.Before, dialect.After} {
			if t.HasRole("read_record_field", r) {
				args[r] = 20
			}
		}
		m := read(args)
		reads = append(reads, m)
		t.Clause(1, func() {
			if !t.Assert(!m.IsError(), "a q read must work: %s", m.Describe()) {
				return
			}
			t.Assert(probe.ShowsNumber(m.Text(), at), "a q window must show where the match is: its offset %d in the field:\n%s", at, clipText(m.Text(), 300))
		})
	}
	t.Clause(2, func() {
		for _, c := range reads {
			for _, u := range probe.HandleURIs(c, "field-window") {
				if strings.Contains(string(full), u) {
					continue // the field's own text, not a handle the adapter added
				}
				t.Assert(probe.ResourceReadable(t, u), "read_record_field shows %s, which the host's resources/read does not serve: an ordinary bounded read must not expose it", u)
			}
		}
		t.Assert(true, "")
	})
}}

// judgeWindow judges one window of full served from start to end: the
// text, both offsets, the total size and a truncation state are visible.
func judgeWindow(t *T, c *Call, full []rune, start, end int) {
	end = min(end, len(full))
	text := c.Text()
	piece := string(full[start:min(end, start+40)])
	t.Assert(strings.Contains(text, piece), "the window text must be inline: %q is not in the text:\n%s", piece, clipText(text, 300))
	t.Assert(probe.ShowsNumber(text, start) && probe.ShowsNumber(text, end), "the text must show the window's offsets %d and %d:\n%s", start, end, clipText(text, 300))
	if end < len(full) {
		t.Assert(probe.CutLabel.MatchString(headerOf(text, piece)), "a window that ends before the field does must say it is incomplete:\n%s", clipText(text, 300))
	}
}

// headerOf is the part of a window's text before its inline text.
func headerOf(text, piece string) string {
	if i := strings.Index(text, piece); i >= 0 {
		return text[:i]
	}
	return text
}

// windowContinuation finds, in a window's text, the read_record_field call
// on the same record whose offset (offset_chars or cursor) pick accepts.
func windowContinuation(t *T, c *Call, id string, pick func(int) bool) *probe.Continuation {
	for _, k := range probe.ContinuationsIn(c.Text()) {
		if k.Tool == "read_record_field" {
			probe.LearnFrom(t, k, dialect.Args{dialect.RecordID: id})
		}
		if kid := probe.String(probe.RoleOf(t, k, dialect.RecordID)); k.Tool != "read_record_field" || (kid != id && !strings.Contains(kid, id)) {
			continue
		}
		off, err := strconv.Atoi(probe.FirstNonEmpty(probe.String(probe.RoleOf(t, k, dialect.Offset)), probe.String(probe.RoleOf(t, k, dialect.Cursor))))
		if err == nil && pick(off) {
			return &k
		}
	}
	return nil
}

// matchWord is a word from the second half of a field's text and its
// first offset in the field, in characters.
func matchWord(full []rune) (string, int) {
	for _, w := range strings.Fields(string(full[len(full)/2:])) {
		if len(w) >= 6 && strings.Trim(w, ".,;:!?") == w {
			return w, len([]rune(string(full)[:strings.Index(string(full), w)]))
		}
	}
	return "", 0
}
