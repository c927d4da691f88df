package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S045: a hit that matched only metadata gets no body or text evidence
// window (clause 1), and its id stays in the text as the fetch path to it
// (clause 2). Off a controlled RS, clause 1 is judged on the target's own
// words: each shown preview must be text of the field it names (a window
// invented for a metadata match would claim a field without the term).
var s045 = &Check{ID: "S045", Slug: "no-invented-evidence", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	judged := evidenceIsInField(t)
	if !t.Target.Has(CapControlledRS) {
		if judged == 0 {
			t.Skipf("no search of the target's own words showed evidence to check against its field")
		}
		t.Clause(2, func() { t.SkipFor(CapControlledRS, "metadata-only hits") })
		return
	}
	term, ok := metadataOnlyTerm(t.RS().Fixture())
	if !ok {
		t.Skipf("the fixture has no term that matches only a metadata field")
	}
	c := t.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Limit: 10})
	if c.IsError() {
		t.BlockedBy("S024", "search for %q failed: %s", term, c.Describe())
		return
	}
	_, unproven := probe.Proven(t, term)
	if len(unproven) == 0 {
		t.Skipf("the fixture RS proved a window for every hit of %q", term)
	}
	from := conformance.Answers(c, conformance.Shown("mcpcheck's search query", term))
	// A preview the target shows for a hit the RS proved no window of: the
	// field it claims, read for the term, is refused.
	for _, p := range probe.ShownPreviews(t, c) {
		if f := probe.Follow(t, p.ID); !f.OK || !slices.Contains(unproven, f.Ref) || p.Field == "" {
			continue
		}
		t.Clause(1, func() {
			t.AssertWith(false, func() (conformance.Witness, error) {
				r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: p.ID, dialect.Field: p.Field, dialect.Query: term})
				return conformance.Refused(r, from)
			}, "hit %s matched metadata only (the RS proved no window); it must carry no evidence window, but shows %q in field %s", p.ID, clipText(p.Text, 120), p.Field)
		})
	}
	var shownRefs []probe.RecordRef
	for _, h := range probe.Hits(t, c) {
		if slices.Contains(unproven, h.Ref) {
			shownRefs = append(shownRefs, h.Ref)
		}
	}
	if len(shownRefs) == 0 {
		t.BlockedBy("S024", "search for %q showed none of the RS's metadata-only hits", term)
	}
	// In any notation: a line of a metadata-only hit's text block that
	// marks a match and names one of the record's text fields renders an
	// evidence window the RS never proved.
	inText := probe.HandlesInText(t, c, shownRefs)
	for ref, h := range inText {
		rec, _ := probe.FindRecord(t, ref)
		blk := probe.BlocksWith(c.Text(), h)
		for _, line := range strings.Split(blk, "\n") {
			field := textFieldNamed(rec, line, term)
			if field == "" || !probe.HighlightTag.MatchString(line) {
				continue
			}
			t.Clause(1, func() {
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Present(strings.TrimSpace(line), conformance.Shown("the text block of hit "+h, blk))
				}, "hit %s matched metadata only (the RS proved no window); its text renders a marked excerpt of its field %s: %q", ref, field, clipText(strings.TrimSpace(line), 160))
			})
			break
		}
	}
	judgeMatchedFields(t, c, shownRefs, inText, term)
	// The read or fetch path a metadata-only hit's text block offers is
	// followed as printed: a path that fails is no path.
	followed := 0
	for _, ref := range shownRefs {
		h := inText[ref]
		if h == "" {
			continue
		}
		blk := probe.BlocksWith(c.Text(), h)
		for _, cont := range probe.ContinuationsIn(blk) {
			if followed == maxBlockFollows || (cont.Tool != "read_record_field" && cont.Tool != "fetch") {
				continue
			}
			followed++
			r := followOnce(t, cont)
			t.Clause(2, func() {
				t.Works(r, conformance.Shown("the text block of hit "+h, blk),
					"the metadata-only hit %s offers %s for further inspection; the call as printed must work", ref, cont.Tool)
			})
		}
	}
	handles := probe.HandlesInText(t, c, shownRefs[:1])
	t.Clause(2, func() {
		ref := shownRefs[0]
		t.AssertWith(handles[ref] != "", func() (conformance.Witness, error) {
			return conformance.Absent(read.Text(ref.ID), conformance.TextOf(c))
		},
			"the metadata-only hit %s must stay reachable: the text must show a handle fetch takes for it", ref)
	})
}}

// previewIsInField judges one shown preview against the field it names:
// the highlighted term is found there, and every part between cut marks
// (any common ellipsis) is its text when the whole field fits one read.
func previewIsInField(t *T, c *Call, cl probe.ShownPreview) {
	if term := probe.Entities.Replace(probe.Highlighted(cl.Text)); term != "" {
		args := dialect.Args{dialect.RecordID: cl.ID, dialect.Field: cl.Field}
		for r, v := range map[dialect.Role]any{dialect.Query: term, dialect.Before: 20, dialect.After: 20} {
			if t.HasRole("read_record_field", r) {
				args[r] = v // the roles the target declares of a read around the match
			}
		}
		r := t.CallRoles("read_record_field", args)
		t.Works(r, c, "the evidence of %s claims %q in field %s, so a q read for it must find it", cl.ID, term, cl.Field)
	}
	// The field's text is the fixture's where the preview's record is
	// known by value, else the target's whole read of it.
	var whole string
	var read1 *Call // the target's read the text comes from, if not the fixture
	if rec, ok := probe.FindRecord(t, cl.Ref); ok && cl.Ref.ID != "" {
		whole, _ = rec.Data[cl.Field].(string)
	} else {
		r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: cl.ID, dialect.Field: cl.Field, dialect.Length: 16384})
		if r.IsError() {
			t.BlockedBy("S049", "the field %s that evidence of %s names is not readable: %s", cl.Field, cl.ID, r.Describe())
			return
		}
		w, _ := r.Structured()["window"].(map[string]any)
		if w["complete"] != true {
			return
		}
		whole, read1 = probe.String(w["text"]), r
	}
	if whole == "" {
		return
	}
	field := strings.ToLower(spacesRe.ReplaceAllString(whole, " "))
	for _, part := range probe.Ellipsis.Split(probe.HighlightTag.ReplaceAllString(cl.Text, ""), -1) {
		part = strings.ToLower(strings.Trim(strings.TrimSpace(spacesRe.ReplaceAllString(probe.Entities.Replace(part), " ")), `"'“”‘’«»()[] `))
		t.AssertWith(strings.Contains(field, part), func() (conformance.Witness, error) {
			if read1 != nil {
				return conformance.Undelivered(read1, read.Text(part), c)
			}
			w, err := conformance.Present(part, c)
			w.In = append(w.In, "and nowhere in the fixture's "+cl.Field+" of "+cl.Ref.String())
			return w, err
		},
			"the evidence preview %q of %s must be text of its field %s (%q is not)", clipText(cl.Text, 200), cl.ID, cl.Field, clipText(part, 80))
	}
}

// metadataOnlyTerm is a word that occurs in a metadata-role lexical field
// and in no other lexical field of the fixture.
func metadataOnlyTerm(fx *fakers.Fixture) (string, bool) {
	other := strings.Builder{}
	var candidates []string
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !f.Lexical {
				continue
			}
			for _, r := range s.Records {
				v, _ := r.Data[f.Name].(string)
				if f.Role == "metadata" {
					candidates = append(candidates, strings.ToLower(v))
				} else {
					other.WriteString(strings.ToLower(v) + " ")
				}
			}
		}
	}
	all := other.String()
	for _, c := range candidates {
		if c != "" && !strings.Contains(all, c) {
			return c, true
		}
	}
	return "", false
}

var (
	spacesRe = regexp.MustCompile(`\s+`)
)

// maxBlockFollows bounds the printed calls S045 follows from the text
// blocks of metadata-only hits.
const maxBlockFollows = 6

// evidenceIsInField reads, through read_record_field, the field each shown
// evidence preview claims: the highlighted term must occur in it, and so
// must the preview's own text when the whole field fits one read. A window
// over a hit that matched metadata only would claim a field without the
// term. It returns how many previews it judged.
func evidenceIsInField(t *T) int {
	_, c, _ := probe.FanInTerm(t)
	if c == nil {
		return 0
	}
	judged := 0
	seen := map[probe.ShownPreview]bool{}
	for _, cl := range probe.ShownPreviews(t, c) {
		if cl.ID == "" || cl.Field == "" || seen[cl] || judged == 8 {
			continue
		}
		seen[cl] = true
		judged++
		t.Clause(1, func() { previewIsInField(t, c, cl) })
	}
	return judged
}

// textFieldNamed is a text field of rec that line names as a word of its
// own and whose value does not hold term (the metadata that matched may
// be shown marked), or "".
func textFieldNamed(rec probe.FixtureRecord, line, term string) string {
	for _, k := range slices.Sorted(mapKeysAny(rec.Data)) {
		v, ok := rec.Data[k].(string)
		if ok && len(v) > 0 && !probe.LooksBinary(v) && !strings.Contains(strings.ToLower(v), strings.ToLower(term)) && read.ContainsToken(line, k) {
			return k
		}
	}
	return ""
}

// judgeMatchedFields holds the field a metadata-only hit says it matched
// in to the fixture: a matched-fields key of the hit in structuredContent,
// or a line of its text block that says "matched", naming a text field
// whose value does not hold the term, claims a body match the RS never
// made.
func judgeMatchedFields(t *T, c *Call, refs []probe.RecordRef, inText map[probe.RecordRef]string, term string) {
	for _, h := range probe.Hits(t, c) {
		if !slices.Contains(refs, h.Ref) {
			continue
		}
		rec, _ := probe.FindRecord(t, h.Ref)
		for k, v := range h.Raw {
			if !matchedKeyRe.MatchString(k) {
				continue
			}
			for _, name := range probe.StringList(v) {
				if field := textFieldNamed(rec, name, term); field != "" && field == name {
					t.Clause(1, func() {
						t.AssertWith(false, func() (conformance.Witness, error) {
							return conformance.Present(fmt.Sprintf("%q:%s", k, probe.CompactJSON(v)), conformance.Shown("hit "+h.Ref.String()+" in structuredContent", probe.CompactJSON(h.Raw)))
						}, "hit %s matched metadata only; it says it matched in %s, whose value does not hold %q", h.Ref, field, term)
					})
				}
			}
		}
		hd := inText[h.Ref]
		if hd == "" {
			continue
		}
		blk := probe.BlocksWith(c.Text(), hd)
		for _, line := range strings.Split(blk, "\n") {
			m := matchedSaysRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if field := textFieldNamed(rec, m[1], term); field != "" {
				t.Clause(1, func() {
					t.AssertWith(false, func() (conformance.Witness, error) {
						return conformance.Present(strings.TrimSpace(line), conformance.Shown("the text block of hit "+hd, blk))
					}, "hit %s matched metadata only; its text says it matched in %s, whose value does not hold %q", h.Ref, field, term)
				})
				break
			}
		}
	}
}

var (
	matchedKeyRe  = regexp.MustCompile(`(?i)match`)
	matchedSaysRe = regexp.MustCompile(`(?i)\bmatch\w*\b([^;|·\n]{0,40})`)
)
