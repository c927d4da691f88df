package checks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S048 reads a long field of the grant in small windows, with the handle
// the target showed for its record, and judges each window by the field's
// fixture value: its text inline, the offsets of the served range, a
// truncation state (read, or else contrasted with a whole small field's
// read), the match offset of a q read, and next and previous
// read_record_field arguments that read the neighbouring windows.
var s048 = &Check{ID: "S048", Slug: "bounded-read-hides-fw-uris", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	f, ok := probe.LongField(t)
	if !ok {
		t.Skipf("no record of the grant has a text field over 600 characters whose handle a query_records text shows")
	}
	full := []rune(f.Value)
	const size = 256
	w := f.Read(t, dialect.Args{dialect.Length: size})
	reads := []*Call{w}
	t.Clause(1, func() {
		if !t.Works(w, f.From(t), "read_record_field must read a window of %s", f.Field) {
			return
		}
		judgeWindow(t, f, w, full, 0, size)
		// A total the first window shows by value holds on every window.
		total := read.Number(len(full))
		sameTotal := func(c *Call) {
			if read.Find(w.Strings(), total).Seen() {
				t.Shows(c, total, "the first window shows the field's total size %d; a later window of the same field must show the same total", len(full))
			}
		}
		next := windowContinuation(t, w, f.Handle, func(off int) bool { return off >= size })
		if !t.AssertWith(next != nil, func() (conformance.Witness, error) {
			return noWindowCall(t, w, f.Handle, "at or past "+strconv.Itoa(size))
		},
			"an incomplete window must show ready-made next read_record_field arguments:\n%s", clipText(w.Text(), 400)) {
			return
		}
		n := followOnce(t, *next)
		reads = append(reads, n)
		if !t.Works(n, conformance.TextOf(w), "the next arguments must read the next window") {
			return
		}
		judgeWindow(t, f, n, full, size, 2*size)
		judgeWindowLabels(t, n, f.Handle, size, 2*size)
		sameTotal(n)
		// A continuation works past its first step: the second window's
		// next arguments read the third window, none skipped or repeated.
		if 2*size < len(full) {
			if next2 := windowContinuation(t, n, f.Handle, func(off int) bool { return off >= 2*size }); t.AssertWith(next2 != nil, func() (conformance.Witness, error) {
				return noWindowCall(t, n, f.Handle, "at or past "+strconv.Itoa(2*size))
			}, "the second window, which ends before the field does, must show ready-made next read_record_field arguments:\n%s", clipText(n.Text(), 400)) {
				n2 := followOnce(t, *next2)
				reads = append(reads, n2)
				if t.Works(n2, conformance.TextOf(n), "the second window's next arguments must read the third window") {
					judgeWindow(t, f, n2, full, 2*size, 3*size)
					sameTotal(n2)
					// Its previous arguments go back one window, to the second.
					if prev2 := windowContinuation(t, n2, f.Handle, func(off int) bool { return off < 2*size }); prev2 != nil {
						p2 := followOnce(t, *prev2)
						reads = append(reads, p2)
						if t.Works(p2, conformance.TextOf(n2), "the third window's previous arguments must read") {
							head := wordsHead(full[size : 2*size])
							t.AssertWith(read.ContainsToken(p2.Text(), head), func() (conformance.Witness, error) {
								return conformance.Absent(read.Text(head), conformance.TextOf(p2))
							}, "the previous arguments of the third window must read the second window (%d..%d)", size, 2*size)
						}
					}
				}
			}
		}
		prev := windowContinuation(t, n, f.Handle, func(off int) bool { return off < size })
		if !t.AssertWith(prev != nil, func() (conformance.Witness, error) { return noWindowCall(t, n, f.Handle, "before "+strconv.Itoa(size)) },
			"a second window must show ready-made previous read_record_field arguments:\n%s", clipText(n.Text(), 400)) {
			return
		}
		p := followOnce(t, *prev)
		reads = append(reads, p)
		if t.Works(p, conformance.TextOf(n), "the previous arguments of the second window must read") {
			head := wordsHead(full[:size])
			t.AssertWith(read.ContainsToken(p.Text(), head), func() (conformance.Witness, error) {
				return conformance.Absent(read.Text(head), conformance.TextOf(p))
			},
				"the previous arguments of the second window must read the first window again")
		}
	})
	// The last window, read by offset: its range and its end state.
	if t.HasRole("read_record_field", dialect.Offset) && len(full) > size {
		at := len(full) - size/2
		last := f.Read(t, dialect.Args{dialect.Offset: at, dialect.Length: size})
		reads = append(reads, last)
		t.Clause(1, func() {
			if t.Works(last, f.From(t), "read_record_field at offset %d must read the field's last window", at) {
				judgeWindow(t, f, last, full, at, len(full))
			}
		})
	}
	// Match metadata "when available": a field read that takes a query.
	q, at := matchWord(full)
	if q != "" && !t.HasRole("read_record_field", dialect.Query) && t.HasRole("search", dialect.Query) {
		// A search for the word may print a read around its match, which
		// names the field read's query argument.
		t.CallRoles("search", dialect.Args{dialect.Query: q})
	}
	if q != "" && t.HasRole("read_record_field", dialect.Query) {
		args := dialect.Args{dialect.Query: q}
		for _, r := range []dialect.Role{dialect.Before, dialect.After} {
			if t.HasRole("read_record_field", r) {
				args[r] = 20
			}
		}
		m := f.Read(t, args)
		reads = append(reads, m)
		t.Clause(1, func() {
			if !t.Works(m, conformance.Answers(f.From(t), conformance.Shown("the field's own text", q)), "a q read must work") {
				return
			}
			t.Shows(m, read.Number(at), "a q window must show where the match is: its offset %d in the field", at)
			judgeMatchNumbers(t, m, f.Value, q, at)
			// A window around a match holds less than the long field.
			if len(full) > 4*size {
				judgeStateFlags(t, m, "", false, fmt.Sprintf("the window around the match at %d of the %d-character field", at, len(full)))
			}
			// The window around a match that ends before the field does
			// continues after the match, not from the field's start.
			if at+len([]rune(q))+size < len(full) {
				t.AssertWith(windowContinuation(t, m, f.Handle, func(off int) bool { return off > at }) != nil, func() (conformance.Witness, error) {
					return noWindowCall(t, m, f.Handle, "past the match at "+strconv.Itoa(at))
				}, "the window around the match at %d must show next read_record_field arguments that continue past it:\n%s", at, clipText(m.Text(), 400))
			}
		})
	}
	t.Clause(2, func() {
		for _, c := range reads {
			for _, u := range probe.HandleURIs(c, "field-window") {
				if strings.Contains(f.Value, u) {
					continue // the field's own text, not a handle the adapter added
				}
				t.AssertWith(probe.ResourceReadable(t, u), func() (conformance.Witness, error) { return conformance.Present(u, c) },
					"read_record_field shows %s, which the host's resources/read does not serve: an ordinary bounded read must not expose it", u)
			}
		}
		t.Held()
	})
}}

// judgeWindow judges one window of full served from start to end: the
// text inline, both offsets, and a truncation state for a cut window.
func judgeWindow(t *T, f probe.FieldRead, c *Call, full []rune, start, end int) {
	end = min(end, len(full))
	head := wordsHead(full[start:end])
	text := conformance.TextOf(c)
	t.Shows(text, read.Text(distinctIn(full, start, end)), "the window text must be inline: the text the field holds at %d..%d", start, end)
	if lead := leadIn(full, start, end); lead != "" {
		t.Shows(text, read.Text(lead), "the window text must start where its range does: the words the field holds just after %d", start)
	}
	t.Shows(text, read.Number(start), "the text must show the window's start offset %d", start)
	t.Shows(text, read.Number(end), "the text must show the window's end offset %d", end)
	judgeServedRange(t, c, string(full[start:end]), start, end)
	judgeWindowNumbers(t, c, f.Value, string(full[start:end]), start, fmt.Sprintf("the window %d..%d of %s's %s", start, end, f.Rec.Ref, f.Field))
	if end >= len(full) {
		// The window reaches the field's end: a flag it shows says so.
		judgeStateFlags(t, c, string(full[start:end]), true, fmt.Sprintf("the window %d..%d, which ends where the %d-character field does, has no more after it", start, end, len(full)), "has_more", "more", "more_after", "more_follows")
		return
	}
	judgeStateFlags(t, c, string(full[start:end]), false, fmt.Sprintf("the window %d..%d of a %d-character field", start, end, len(full)))
	if probe.CutLabel.MatchString(headerOf(c.Text(), head)) || probe.CutLabel.MatchString(probe.CompactJSON(c.Structured())) {
		t.Held()
		return
	}
	small, ok := probe.SmallField(t)
	if !ok {
		t.Inconclusive("mcpcheck reads no truncation state in the window, and has no small field's whole read to contrast it with:\n%s", clipText(c.Text(), 300))
		return
	}
	whole := small.Read(t, nil)
	if whole.IsError() {
		t.Inconclusive("mcpcheck reads no truncation state in the window, and a small field's read to contrast it with failed: %s", whole.Describe())
		return
	}
	t.Differs(c, whole, append(probe.FixtureStrings(t), f.Value, small.Value, f.Handle, small.Handle),
		"a window that ends before the field does must say it is incomplete: it reads the same as a whole small field's read")
}

// numberRe is a number of a text; two joined by punctuation or "to"
// ("100".."200", 100–200, 100 to 200) are a range, and two joined by a
// name (from=0 len=256, "offset":0,"limit":256) are not.
var (
	numberRe   = regexp.MustCompile(`\d+`)
	rangeGapRe = regexp.MustCompile(`^[\s"'.\-–—~:]{0,6}(?:(?:to|through|until|up to)[\s"'.:]{0,3})?$`)
)

// judgeServedRange holds the ranges an answer's text states for its
// window to the window served (start..end): a range of the window's length
// that starts elsewhere misstates it. The served text and the calls the
// text prints ({...} arguments) are set aside. structuredContent's keys come in any order, so its numbers
// are not read as pairs.
func judgeServedRange(t *T, c *Call, served string, start, end int) {
	s := jsonObjectRe.ReplaceAllString(strings.ReplaceAll(c.Text(), served, ""), "{}")
	nums := numberRe.FindAllStringIndex(s, -1)
	for i := 0; i+1 < len(nums); i++ {
		gap := s[nums[i][1]:nums[i+1][0]]
		a, _ := strconv.Atoi(s[nums[i][0]:nums[i][1]])
		b, _ := strconv.Atoi(s[nums[i+1][0]:nums[i+1][1]])
		own, other := a == start && b == end, a != start && b-a != end-start
		if !rangeGapRe.MatchString(gap) || b <= a || own || other {
			continue // not a range, the window's own, or another of another length
		}
		excerpt := s[nums[i][0]:nums[i+1][1]]
		t.AssertWith(false, func() (conformance.Witness, error) {
			return conformance.Present(excerpt, conformance.Shown("the text of "+c.Describe(), s))
		}, "the window served is %d..%d of the field, but its text states the range %d..%d (%s)", start, end, a, b, excerpt)
		return
	}
}

// jsonObjectRe is a flat JSON object written into a text (a printed call's
// arguments).
var jsonObjectRe = regexp.MustCompile(`\{[^{}]*\}`)

// distinctIn is a piece of full[start:end] found nowhere else in full, so
// a window that serves other text of a repetitive field (the one after,
// say) does not show it; the window's first words where no piece is.
func distinctIn(full []rune, start, end int) string {
	whole := string(full)
	// Whole words only, and not the window's first or last, which its
	// edges may cut.
	words := strings.Fields(string(full[start:end]))
	if len(words) > 2 {
		words = words[1 : len(words)-1]
	}
	for n := 3; n <= 8; n++ {
		for i := 0; i+n <= len(words); i++ {
			piece := strings.Join(words[i:i+n], " ")
			if !strings.ContainsAny(piece, "\"\\<>&") && strings.Count(whole, piece) == 1 {
				return piece
			}
		}
	}
	return wordsHead(full[start:end])
}

// leadIn is the window's second to fourth words, the first it surely
// holds whole (its first may be cut by the offset): what its text must
// show for the window to start where its range says. "" for a short
// window or words a layout may escape.
func leadIn(full []rune, start, end int) string {
	words := strings.Fields(string(full[start:end]))
	if len(words) < 5 {
		return ""
	}
	piece := strings.Join(words[1:4], " ")
	if strings.ContainsAny(piece, "\"\\<>&") {
		return ""
	}
	return piece
}

// wordsHead is the first words of a window's text (up to 40 characters,
// at a word's end): what a window shows of it, inline.
func wordsHead(r []rune) string { return valueHead(strings.TrimSpace(string(r))) }

// headerOf is the part of a window's text before its inline text.
func headerOf(text, piece string) string {
	if i := strings.Index(text, piece); i >= 0 {
		return text[:i]
	}
	return text
}

// windowContinuation finds, in a window's text, the read_record_field call
// on the same handle whose offset (or cursor) pick accepts.
func windowContinuation(t *T, c *Call, handle string, pick func(int) bool) *probe.Continuation {
	for _, k := range probe.ContinuationsIn(c.Text()) {
		if k.Tool == "read_record_field" {
			probe.LearnFrom(t, k, dialect.Args{dialect.RecordID: handle})
		}
		if kid := probe.String(probe.RoleOf(t, k, dialect.RecordID)); k.Tool != "read_record_field" || kid != handle && !strings.Contains(kid, handle) {
			continue
		}
		off, err := strconv.Atoi(probe.FirstNonEmpty(probe.String(probe.RoleOf(t, k, dialect.Offset)), probe.String(probe.RoleOf(t, k, dialect.Cursor))))
		if err == nil && pick(off) {
			return &k
		}
	}
	return nil
}

// Labels a window's text prints its continuations under.
var (
	nextLabelRe     = regexp.MustCompile(`(?i)\b(next|forward|following|later|after)\b`)
	previousLabelRe = regexp.MustCompile(`(?i)\b(prev|previous|back|backward|earlier|before|preceding)\b`)
)

// judgeWindowLabels holds the label a window's text prints each of its
// read_record_field calls under to where the call reads: a call labelled
// next that reads before the window, or labelled previous that reads at
// or past its end, sends a client that reads only text the wrong way.
func judgeWindowLabels(t *T, c *Call, handle string, start, end int) {
	for _, k := range probe.ContinuationsIn(c.Text()) {
		if kid := probe.String(probe.RoleOf(t, k, dialect.RecordID)); k.Tool != "read_record_field" || kid != handle && !strings.Contains(kid, handle) {
			continue
		}
		off, err := strconv.Atoi(probe.FirstNonEmpty(probe.String(probe.RoleOf(t, k, dialect.Offset)), probe.String(probe.RoleOf(t, k, dialect.Cursor))))
		label, _, _ := strings.Cut(k.At, k.Tool)
		next, prev := nextLabelRe.MatchString(label), previousLabelRe.MatchString(label)
		if err != nil || next == prev {
			continue // no label, or both
		}
		if next && off < start || prev && off >= end {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Present(strings.TrimSpace(k.At), conformance.TextOf(c))
			}, "the window %d..%d prints a read_record_field call at offset %d under the label %q: it reads the other way", start, end, off, strings.TrimSpace(label))
			return
		}
	}
}

// noWindowCall witnesses a window whose text prints no read_record_field
// call on its handle at the offset wanted: the tool named nowhere in it,
// or every call it prints on the handle (read in the notation it uses)
// at another offset.
func noWindowCall(t *T, w *Call, handle, wanted string) (conformance.Witness, error) {
	var offs []string
	for _, k := range probe.ContinuationsIn(w.Text()) {
		if kid := probe.String(probe.RoleOf(t, k, dialect.RecordID)); k.Tool == "read_record_field" && (kid == handle || strings.Contains(kid, handle)) {
			off := probe.FirstNonEmpty(probe.String(probe.RoleOf(t, k, dialect.Offset)), probe.String(probe.RoleOf(t, k, dialect.Cursor)))
			if off == "" {
				return conformance.Witness{}, fmt.Errorf("a printed call's offset is not read: %v", k.Args)
			}
			offs = append(offs, off)
		}
	}
	if len(offs) == 0 {
		return conformance.Absent(read.Text("read_record_field"), conformance.TextOf(w))
	}
	return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a read_record_field call on " + handle + " at an offset " + wanted,
		In: []string{w.Describe()}, Excerpt: "the calls it prints on the handle read at offsets " + strings.Join(offs, ", ")}, nil
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
