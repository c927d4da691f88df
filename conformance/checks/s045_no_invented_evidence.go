package checks

import (
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
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
		t.Clause(2, func() { t.Skipf("metadata-only hits: %s", CapControlledRS.SkipReason()) })
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
	unproven := unprovenRecords(t, term)
	if len(unproven) == 0 {
		t.Skipf("the fixture RS proved a window for every hit of %q", term)
	}
	shown := false
	for _, h := range probe.Hits(t, c) {
		if !unproven[h.Record] {
			continue
		}
		t.Clause(1, func() {
			t.Assert(h.Raw["evidence_excerpts"] == nil, "hit %s matched metadata only; it must carry no evidence window", h.ID)
			for _, e := range probe.EvidenceLines(c.Text()) {
				t.Assert(e.ID == "" || e.ID != h.ID, "evidence line invented for metadata-only hit %s: %s", h.ID, e.Line)
			}
		})
		if !shown {
			shown = true
			t.Clause(2, func() {
				t.Assert(h.ID != "" && strings.Contains(c.Text(), h.ID), "the metadata-only hit %s must stay reachable: its id (the fetch path) must be in the text", h.ID)
			})
		}
	}
	if !shown {
		t.BlockedBy("S024", "search for %q showed none of the RS's metadata-only hits", term)
	}
}}

// unprovenRecords are the record keys the RS found for q without proving
// an evidence window, from its answer replayed.
func unprovenRecords(t *T, q string) map[string]bool {
	out := map[string]bool{}
	for _, r := range t.RS().RequestsTo("/v1/search") {
		if v, _ := url.ParseQuery(r.RawQuery); !slices.ContainsFunc(slices.Collect(maps.Values(v)), func(vs []string) bool { return slices.Contains(vs, q) }) {
			continue
		}
		_, body := t.RS().Replay(r)
		var env struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &env)
		for _, h := range env.Data {
			if h["evidence_excerpts"] == nil {
				out[probe.String(h["record_key"])] = true
			}
		}
	}
	return out
}

// previewIsInField judges one shown preview against the field it names:
// the highlighted term is found there, and every part between cut marks
// (any common ellipsis) is its text when the whole field fits one read.
func previewIsInField(t *T, cl probe.ShownPreview) {
	if term := probe.Entities.Replace(probe.Highlighted(cl.Text)); term != "" {
		r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: cl.ID, dialect.Field: cl.Field, dialect.Query: term, dialect.Before: 20, dialect.After: 20})
		t.Assert(!r.IsError(), "the evidence of %s claims %q in field %s, so a q read for it must find it: %s", cl.ID, term, cl.Field, r.Describe())
	}
	r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: cl.ID, dialect.Field: cl.Field, dialect.Length: 16384})
	if r.IsError() {
		t.BlockedBy("S049", "the field %s that evidence of %s names is not readable: %s", cl.Field, cl.ID, r.Describe())
		return
	}
	w, _ := r.Structured()["window"].(map[string]any)
	if w["complete"] != true {
		return
	}
	field := strings.ToLower(spacesRe.ReplaceAllString(probe.String(w["text"]), " "))
	for _, part := range probe.Ellipsis.Split(probe.HighlightTag.ReplaceAllString(cl.Text, ""), -1) {
		part = strings.ToLower(strings.TrimSpace(spacesRe.ReplaceAllString(probe.Entities.Replace(part), " ")))
		t.Assert(strings.Contains(field, part), "the evidence preview %q of %s must be text of its field %s (%q is not)", clipText(cl.Text, 200), cl.ID, cl.Field, clipText(part, 80))
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
		t.Clause(1, func() { previewIsInField(t, cl) })
	}
	return judged
}
