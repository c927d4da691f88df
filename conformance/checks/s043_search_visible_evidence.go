package checks

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S043 reads a search for which the RS proved evidence windows (its own
// /v1/search answer says so, where mcpcheck holds the RS; else the
// target's hits): the text shows a preview of the matched field (clause
// 1), with an identity that read_record_field takes, found by following
// the line's tokens (2), and no window is only in structuredContent (3).
// A preview is found by value: a block naming the field and holding the
// matched term. A proven field named nowhere in the text is the witness.
// On the evidence fork it also searches a phrase deep inside a long
// primary text: the preview shown of it must be bounded.
var s043 = &Check{ID: "S043", Slug: "search-visible-evidence", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	term, c, _ := probe.FanInTerm(t)
	judged := c != nil && judgeVisibleEvidence(t, t, c, term, "")
	if ev, deep, whole := probe.DeepEvidenceSearch(t); deep != nil && judgeVisibleEvidence(t, ev, deep, fakers.EvidencePhrase, whole) {
		judged = true
	}
	if !judged {
		t.NotApplicable("no search of the target's own words returned a proven evidence window")
	}
}}

// provenWindows are the evidence windows proven for search c of q: the
// fixture RS's own answer where mcpcheck holds it, else the excerpts of
// the target's hits (their record named by the target's id).
func provenWindows(on *T, c *Call, q string) []probe.ProvenWindow {
	if c.IsError() {
		return nil
	}
	if probe.FixtureRecords(on) != nil {
		w, _ := probe.Proven(on, q)
		return w
	}
	var out []probe.ProvenWindow
	for _, h := range probe.HitsWithEvidence(on, c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		first, _ := ex[0].(map[string]any)
		out = append(out, probe.ProvenWindow{Ref: probe.RecordRef{ID: h.ID}, Field: probe.FieldIn(on, first), Preview: probe.String(first["preview_text"])})
	}
	return out
}

// judgeVisibleEvidence judges S043's clauses on search c of q, reading
// fields through on; whole, when known, is the matched field's full text,
// which the first preview must not show in full. False when no window
// was proven.
func judgeVisibleEvidence(t, on *T, c *Call, q, whole string) bool {
	windows := provenWindows(on, c, q)
	text := conformance.TextOf(c)
	for i, w := range windows {
		term := probe.Entities.Replace(probe.Highlighted(w.Preview))
		line := visibleEvidence(c.Text(), w.Field, term)
		judge := func() {
			t.AssertWith(line != "", func() (conformance.Witness, error) { return conformance.Absent(read.Text(w.Field), text) },
				"the RS proved evidence of %s in field %s (%q), but no text line shows a preview of that field", w.Ref, w.Field, term)
		}
		t.Clause(3, judge)
		// The block only w's record could have written, by value: reads
		// from it are judged for the record they reach too.
		own := blockOf(on, c.Text(), w, windows, term, q, true)
		if line == "" && own == "" && i < maxIdentityWindows {
			// A preview of the field shown under another field's name: the
			// reads its block offers must still reach this field.
			if shown := blockOf(on, c.Text(), w, windows, term, q, false); shown != "" {
				t.Clause(2, func() { judgePreviewIdentity(t, on, c, w, shown, term, true) })
			}
		}
		if i > 0 {
			if i < maxIdentityWindows && own != "" {
				t.Clause(2, func() { judgePreviewIdentity(t, on, c, w, own, term, true) })
			}
			continue
		}
		t.Clause(1, judge)
		if whole != "" && line != "" {
			t.Clause(1, func() {
				t.AssertWith(len(line) < len(whole), func() (conformance.Witness, error) {
					return conformance.Present(tailWords(whole), text)
				}, "the preview of %s shows the whole %d-character field: it must be bounded", w.Field, len(whole))
				judgeCutPreviewState(t, c, line, term, whole)
			})
		}
		t.Clause(2, func() {
			if line == "" {
				t.Skipf("no visible preview to take the identity from")
			}
			if own != "" {
				judgePreviewIdentity(t, on, c, w, own, term, true)
				return
			}
			judgePreviewIdentity(t, on, c, w, line, term, false)
		})
	}
	return len(windows) > 0
}

// judgePreviewIdentity follows the tokens of a visible preview's block
// with read_record_field: one must read the field and show the term. A
// token refused is the witness; so is a block holding no token at all,
// with the record's id found nowhere in it.
func judgePreviewIdentity(t, on *T, c *Call, w probe.ProvenWindow, line, term string, itsOwn bool) {
	readsAnotherRecord := func(t, on *T, r *Call, w probe.ProvenWindow) bool { return itsOwn && readsAnotherRecord(t, on, r, w) }
	text := conformance.TextOf(c)
	// A read the preview's block prints is followed as printed first.
	for _, cont := range probe.ContinuationsIn(linesFrom(c.Text(), line, 4)) {
		if cont.Tool != "read_record_field" {
			continue
		}
		r := on.Follow(cont)
		if !t.Works(r, text, "the read_record_field call printed under the preview of %s must work", w.Field) || readsAnotherRecord(t, on, r, w) ||
			strings.Contains(probe.Plain(r.Text()), probe.Plain(term)) || term == "" || !on.HasRole("read_record_field", dialect.Query) {
			return // the identity is what the clause asks; a read from the field's start carries it
		}
		// The printed read starts elsewhere: the same record and field,
		// asked for the term, must reach the match.
		d := on.Target.Dialect()
		args := dialect.Args{dialect.RecordID: d.Value(cont.Tool, cont.Args, dialect.RecordID), dialect.Field: d.Value(cont.Tool, cont.Args, dialect.Field), dialect.Query: term}
		if args[dialect.RecordID] == nil || args[dialect.Field] == nil {
			return
		}
		q := on.CallRoles("read_record_field", args)
		if t.Works(q, conformance.Answers(text, conformance.Shown("mcpcheck's search query", term)), "the read printed under the preview of %s, asked for the match, must work", w.Field) && !readsAnotherRecord(t, on, q, w) {
			t.AssertWith(strings.Contains(probe.Plain(q.Text()), probe.Plain(term)), func() (conformance.Witness, error) {
				return conformance.Undelivered(q, read.Text(term), text, conformance.Shown("mcpcheck's search query", term))
			}, "the bounded read of the preview's %s, asked for %q, must show it: %s", w.Field, term, q.Describe())
		}
		return
	}
	var refused *Call
	field := printedField(line, w.Field)
	for i, cand := range probe.LineHandles(on, line, w.Ref) {
		if i == 6 {
			break
		}
		args := dialect.Args{dialect.RecordID: cand, dialect.Field: field}
		if term != "" && on.HasRole("read_record_field", dialect.Query) {
			args[dialect.Query] = term
		}
		r := on.CallRoles("read_record_field", args)
		if r.IsError() {
			if refused == nil {
				refused = r
			}
			continue
		}
		if readsAnotherRecord(t, on, r, w) {
			return
		}
		t.AssertWith(strings.Contains(probe.Plain(r.Text()), probe.Plain(term)), func() (conformance.Witness, error) {
			return conformance.Undelivered(r, read.Text(term), text)
		}, "the bounded read of the preview's %s must show the matched text %q: %s", w.Field, term, r.Describe())
		return
	}
	if refused != nil {
		wit, err := conformance.Refused(refused, text)
		t.FailWith(wit, err, "the identity the preview of %s shows must work with read_record_field: %s", w.Field, refused.Describe())
		return
	}
	if w.Ref.ID == "" {
		t.Inconclusive("the preview of %s shows no token read_record_field takes: %s", w.Field, line)
		return
	}
	wit, err := conformance.Absent(read.Text(w.Ref.ID), conformance.Shown(fmt.Sprintf("the evidence block %q of %s", clipText(line, 160), c.Describe()), line))
	t.FailWith(wit, err, "the preview of %s names no id to read the field with: %s", w.Field, line)
}

// blockOf is the text block that shows window w's evidence (naming its
// field, where named is set) and holds a run of its record's field found
// in no other proven window's record, or "" when no single block does.
// The search query q, which a header may echo, is no such run.
func blockOf(on *T, text string, w probe.ProvenWindow, windows []probe.ProvenWindow, term, q string, named bool) string {
	rec, ok := probe.FindRecord(on, w.Ref)
	if !ok {
		return ""
	}
	value, _ := rec.Data[w.Field].(string)
	var others []string
	for _, o := range windows {
		if o.Ref == w.Ref {
			continue
		}
		if r, ok := probe.FindRecord(on, o.Ref); ok {
			v, _ := r.Data[o.Field].(string)
			others = append(others, probe.Plain(v))
		}
	}
	found := ""
	for _, b := range probe.Blocks(text) {
		if (named && !strings.Contains(b, w.Field)) || !strings.Contains(probe.Plain(b), probe.Plain(term)) {
			continue
		}
		plain := probe.Plain(b)
		if pq := probe.Plain(q); pq != "" {
			plain = strings.ReplaceAll(plain, pq, " ")
		}
		if sharedRun(plain, probe.Plain(value), strings.Join(others, "\n")) == "" {
			continue
		}
		if found != "" {
			return ""
		}
		found = b
	}
	return found
}

// maxIdentityWindows bounds how many proven windows' identities are
// followed (mcpcheck's own call budget).
const maxIdentityWindows = 4

// readsAnotherRecord fails clause 2 when read r, taken from the preview
// of window w, shows another record's text: a run of the fixture's text
// (of a record of w's stream) found in none of w's record's values. The
// run is the witness, by value.
func readsAnotherRecord(t, on *T, r *Call, w probe.ProvenWindow) bool {
	own, ok := probe.FindRecord(on, w.Ref)
	if !ok || r.IsError() {
		return false
	}
	shown := probe.Plain(strings.Join(r.Strings(), "\n"))
	ownText := probe.Plain(strings.Join(probe.StringValues(own.Data), "\n"))
	for _, other := range probe.FixtureRecords(on) {
		if other.Ref == w.Ref || other.Ref.Stream != w.Ref.Stream {
			continue
		}
		v, _ := other.Data[w.Field].(string)
		run := sharedRun(shown, probe.Plain(v), ownText)
		if run == "" {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) {
			i := strings.Index(shown, run)
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: fmt.Sprintf("%q, of %s's %s and in no value of %s", run, other.Ref, w.Field, w.Ref),
				In: []string{r.Describe()}, Excerpt: read.Around(shown, i, len(run))}, nil
		}, "the read taken from the preview of %s's %s shows text in none of that record's values (%s's %s holds it): it reads another record", w.Ref, w.Field, other.Ref, w.Field)
		return true
	}
	return false
}

// sharedRunLen is how long a run of text two values share must be to say
// one shows the other.
const sharedRunLen = 24

// sharedRun is a run of sharedRunLen characters of shown that v holds and
// own does not, or "".
func sharedRun(shown, v, own string) string {
	if len(v) < sharedRunLen || len(shown) < sharedRunLen {
		return ""
	}
	pieces := make(map[string]bool, len(shown))
	for i := 0; i+sharedRunLen <= len(shown); i++ {
		pieces[shown[i:i+sharedRunLen]] = true
	}
	for i := 0; i+sharedRunLen <= len(v); i++ {
		if p := v[i : i+sharedRunLen]; pieces[p] && !strings.Contains(own, p) {
			return p
		}
	}
	return ""
}

// printedField is the field a preview's block names for the proven field
// f: f itself where the block shows it as a token of its own, else the one
// dotted path ending in it that the block shows (data.body), as a model
// reading the block would pass it.
func printedField(block, f string) string {
	var paths []string
	for _, tok := range fieldTokenRe.FindAllString(block, -1) {
		switch {
		case tok == f:
			return f
		case strings.HasSuffix(tok, "."+f) && !slices.Contains(paths, tok):
			paths = append(paths, tok)
		}
	}
	if len(paths) == 1 {
		return paths[0]
	}
	return f
}

// fieldTokenRe is a field name or path as text prints it.
var fieldTokenRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.-]*[A-Za-z0-9_]`)

// tailWords are the last words of a long text: shown, they say the whole
// text was.
func tailWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[max(0, len(f)-6):], " ")
}

// judgeCutPreviewState holds the completion flags shown with a preview
// cut from the long field whole to the fixture (seed 004: never "as if
// complete"): those on the text line showing the preview, and those of
// the structuredContent object holding it. The flag saying complete is the
// witness.
func judgeCutPreviewState(t *T, c *Call, block, term, whole string) {
	if probe.Plain(term) == "" {
		return // no match to find the preview by
	}
	for _, l := range strings.Split(block, "\n") {
		if !strings.Contains(probe.Plain(l), probe.Plain(term)) {
			continue
		}
		in := conformance.Shown("the text line showing the preview", l)
		for _, claim := range probe.StateClaims(strings.ReplaceAll(l, term, "")) {
			if claim.Key == "more" || strings.Contains(claim.Key, "has_") || strings.Contains(claim.Key, "more_") {
				continue // a page's or window's, not the preview's
			}
			t.AssertWith(!claim.Whole, func() (conformance.Witness, error) { return conformance.Present(claim.Excerpt, in) },
				"the preview of a %d-character field is cut, but its text line says %s", len(whole), claim.Excerpt)
		}
	}
	sc := conformance.Shown("the structuredContent of "+c.Describe(), probe.CompactJSON(c.Structured()))
	probe.EachObject(c.Structured(), func(m map[string]any) {
		holds := false
		for _, v := range m {
			// More than the term (a query echoed is no preview), less than
			// the field.
			if s, ok := v.(string); ok && len(s) < len(whole) && probe.Plain(s) != probe.Plain(term) && strings.Contains(probe.Plain(s), probe.Plain(term)) {
				holds = true
			}
		}
		if !holds {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if said, ok := wholeFlag(k, m[k]); ok && said {
				fact := strings.TrimPrefix(strings.TrimSuffix(probe.CompactJSON(map[string]any{k: m[k]}), "}"), "{")
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(fact, sc) },
					"the preview of a %d-character field is cut, but its structuredContent says %s", len(whole), fact)
			}
		}
	})
}

// wholeFlag reads a completion flag of a preview object: a boolean under a
// key of completion or of truncation, or a status naming one. ok is false
// for any other entry.
func wholeFlag(key string, v any) (whole, ok bool) {
	k := strings.ToLower(key)
	switch x := v.(type) {
	case bool:
		switch {
		case strings.Contains(k, "incomplete"), strings.Contains(k, "truncat"), strings.Contains(k, "partial"), strings.Contains(k, "clipped"):
			return !x, true
		case strings.Contains(k, "complete"), strings.Contains(k, "whole"):
			return x, true
		}
	case string:
		if strings.Contains(k, "status") {
			switch strings.ToLower(x) {
			case "complete", "whole", "full":
				return true, true
			case "truncated", "partial", "clipped", "cut":
				return false, true
			}
		}
	}
	return false, false
}

// visibleEvidence is the text block (a line, or a hit with its indented
// lines) that shows evidence of field: it names the field and holds the
// matched term (or, with no term, names the field).
func visibleEvidence(text, field, term string) string {
	for _, line := range probe.Blocks(text) {
		if field == "" || !strings.Contains(line, field) {
			continue
		}
		if term == "" || strings.Contains(probe.Plain(line), probe.Plain(term)) {
			return line
		}
	}
	return ""
}

// linesFrom is the line of text holding line, and the n lines after it.
func linesFrom(text, line string, n int) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, line) || strings.Contains(line, l) && l != "" {
			return strings.Join(lines[i:min(len(lines), i+n+1)], "\n")
		}
	}
	return line
}
