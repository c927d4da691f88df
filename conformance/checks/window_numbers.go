package checks

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Shared by S048, S049 and S050: the numbers a field read states about
// itself held to the field's fixture value (truth, not presence).

// judgeWindowNumbers holds the total, served range and remainder a field
// read r states, in its text and in its structuredContent apart, to the
// field's value: a total is its size (characters or bytes); a range is the
// one served, served being the piece of value r serves from rune start
// (start -1: unknown, so only totals are read). In structuredContent the
// range is that of the text each object holds, found by value in the
// field. The number stated is the witness.
func judgeWindowNumbers(t *T, r *Call, value, served string, start int, what string) {
	if r.IsError() || value == "" {
		return
	}
	total, totalBytes := utf8.RuneCountInString(value), len(value)
	end := start + utf8.RuneCountInString(served)
	// The range the structure's text holds, found by value, is what is
	// served, where it tells one.
	if sp := servedSpan(r.Structured(), value); sp != nil && start >= 0 {
		start, end = sp.start, sp.end
		served = string([]rune(value)[start:end])
	}
	text := r.Text()
	if served != "" {
		text = strings.ReplaceAll(text, served, "")
	}
	text = jsonObjectRe.ReplaceAllString(text, "{}")
	inText := conformance.Shown("the text of "+r.Describe(), text)
	for _, c := range probe.WindowNumberClaims(text) {
		want, ok := 0, true
		switch c.Role {
		case "total":
			ok = c.N == total || c.N == totalBytes
			want = total
		case "start":
			ok, want = start < 0 || c.N == start || c.N == len(string([]rune(value)[:start])), start
		case "end":
			ok, want = start < 0 || c.N == end || c.N == len(string([]rune(value)[:min(end, total)])), end
		case "remain":
			ok, want = start < 0 || c.N == total-end || c.N == totalBytes-len(string([]rune(value)[:min(end, total)])), total-end
		}
		t.AssertWith(ok, func() (conformance.Witness, error) { return conformance.Present(c.Excerpt, inText) },
			"%s: its text states the %s %d (%s); the fixture's %d-character field says %d", what, c.Role, c.N, c.Excerpt, total, want)
	}
	sc := conformance.Shown("the structuredContent of "+r.Describe(), probe.CompactJSON(r.Structured()))
	judgeStructuredWindow(t, r.Structured(), value, nil, sc, what)
}

// A span is the range, in runes and in bytes, of a piece of a field.
type span struct{ start, end, startB, endB int }

// spanOf locates the longest string m holds that occurs in value exactly
// once (at least 32 characters): the text the object serves.
func spanOf(m map[string]any, value string) *span {
	var best string
	for _, v := range m {
		if s, ok := v.(string); ok && utf8.RuneCountInString(s) >= 32 && len(s) > len(best) && strings.Count(value, s) == 1 {
			best = s
		}
	}
	if best == "" {
		return nil
	}
	i := strings.Index(value, best)
	a := utf8.RuneCountInString(value[:i])
	return &span{a, a + utf8.RuneCountInString(best), i, i + len(best)}
}

// servedSpan is the span of the longest piece of value some object of v
// holds, or nil.
func servedSpan(v any, value string) *span {
	var best *span
	probe.EachObject(v, func(m map[string]any) {
		if sp := spanOf(m, value); sp != nil && (best == nil || sp.end-sp.start > best.end-best.start) {
			best = sp
		}
	})
	return best
}

// judgeStructuredWindow walks structuredContent: every total key must be
// the field's size; the start and end keys of an object holding served
// text (or of its range-like child) must be that text's range.
func judgeStructuredWindow(t *T, v any, value string, inherited *span, sc conformance.Evidence, what string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			judgeStructuredWindow(t, e, value, nil, sc, what)
		}
	case map[string]any:
		own := spanOf(x, value)
		if own == nil {
			own = inherited
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := x[k]
			n, isNum := e.(float64)
			role := probe.WindowKeyRole(k)
			if !isNum || role == "" || n != float64(int(n)) {
				if child, ok := e.(map[string]any); ok {
					var pass *span
					if rangeLike(k) {
						pass = own
					}
					judgeStructuredWindow(t, child, value, pass, sc, what)
				} else if list, ok := e.([]any); ok {
					judgeStructuredWindow(t, list, value, nil, sc, what)
				}
				continue
			}
			got := int(n)
			var ok bool
			var want int
			switch role {
			case "total":
				ok, want = got == utf8.RuneCountInString(value) || got == len(value), utf8.RuneCountInString(value)
			case "start":
				if own == nil {
					continue
				}
				ok, want = got == own.start || got == own.startB, own.start
			case "end":
				if own == nil {
					continue
				}
				ok, want = got == own.end || got == own.endB, own.end
			}
			fact := fmt.Sprintf("%q:%d", k, got)
			t.AssertWith(ok, func() (conformance.Witness, error) { return conformance.Present(fact, sc) },
				"%s: its structuredContent states %s, but the fixture's field says %d", what, fact, want)
		}
	}
}

// rangeLike is a key whose object describes the served range of the
// object holding it.
func rangeLike(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"range", "served", "span", "window", "position", "offsets"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// judgeMatchNumbers holds the match offsets a read around a match of q
// states, in text and structuredContent apart, to where the fixture's
// field holds it (at, in runes; its byte offset also counts).
func judgeMatchNumbers(t *T, r *Call, value, q string, at int) {
	if r.IsError() {
		return
	}
	end := at + utf8.RuneCountInString(q)
	atB := len(string([]rune(value)[:at]))
	want := map[string][2]int{"start": {at, atB}, "end": {end, atB + len(q)}}
	text := r.Text()
	if sp := servedSpan(r.Structured(), value); sp != nil {
		text = strings.ReplaceAll(text, string([]rune(value)[sp.start:sp.end]), "")
	}
	text = jsonObjectRe.ReplaceAllString(text, "{}")
	inText := conformance.Shown("the text of "+r.Describe(), text)
	for _, c := range probe.MatchNumberClaims(text) {
		w := want[c.Role]
		t.AssertWith(c.N == w[0] || c.N == w[1], func() (conformance.Witness, error) { return conformance.Present(c.Excerpt, inText) },
			"the read around %q states the match's %s as %d (%s); the fixture's field holds it at %d..%d", q, c.Role, c.N, c.Excerpt, at, end)
	}
	sc := conformance.Shown("the structuredContent of "+r.Describe(), probe.CompactJSON(r.Structured()))
	probe.EachObject(r.Structured(), func(m map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			n, isNum := m[k].(float64)
			role := probe.MatchKeyRole(k)
			if !isNum || role == "" {
				continue
			}
			w := want[role]
			fact := fmt.Sprintf("%q:%d", k, int(n))
			t.AssertWith(int(n) == w[0] || int(n) == w[1], func() (conformance.Witness, error) { return conformance.Present(fact, sc) },
				"the read around %q states %s; the fixture's field holds the match at %d..%d", q, fact, at, end)
		}
	})
}
