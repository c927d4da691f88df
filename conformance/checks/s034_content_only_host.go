package checks

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// A host that shows the model only content[] is played by value: what
// structuredContent says of each hit, record and document is looked for in
// the text, and the journey search → fetch → read_record_field is walked
// with ids and field paths the text shows.
var s034 = &Check{ID: "S034", Slug: "content-only-host", Mode: ModeBBD, Tools: []string{"search", "query_records", "fetch"}, Run: func(t *T) {
	index := probe.ReadsIndex(t)
	judged := false
	fetched := map[string]*Call{}
	if _, c, _ := probe.FanInTerm(t); c != nil && !c.IsError() && len(probe.Hits(c)) > 0 {
		judged = true
		judgeSearchText(t, c)
	}
	// Hits with no evidence to show (a match in metadata only) are listed
	// by title: their ids must be in the text too.
	if t.Target.Has(CapControlledRS) {
		if term, ok := metadataOnlyTerm(t.RS().Fixture()); ok {
			if c := t.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Limit: 10}); !c.IsError() && len(probe.Hits(c)) > 0 {
				judged = true
				judgeSearchText(t, c)
			}
		}
	}
	for i, s := range probe.Sources(index) {
		if i == 3 {
			break
		}
		if c := t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 5})); !c.IsError() && len(probe.Records(c)) > 0 {
			judged = true
			judgeRecordsText(t, c, fetched)
		}
	}
	if !judged {
		t.Skipf("no search or query_records answer of the target's data to read from text")
	}
}}

// judgeSearchText judges a search text: each hit it shows carries its
// evidence and id (S034.1, S034.2); the first id fetches from text alone,
// and an evidence field it shows is readable with what the text says.
func judgeSearchText(t *T, c *Call) {
	text := c.Text()
	all := probe.Hits(c)
	evidenceOf := func(h probe.Hit) string { return probe.WithoutMarks(h.Title) + "\n" + probe.WithoutMarks(h.Snippet) }
	var shown []probe.Hit
	for i, h := range all {
		var others []string
		for j, o := range all {
			if j != i {
				others = append(others, evidenceOf(o))
			}
		}
		if probe.ContainsToken(text, h.ID) || distinctShown(text, evidenceOf(h), others) {
			shown = append(shown, h)
		}
	}
	t.Clause(2, func() {
		if !t.Assert(len(shown) > 0 && probe.ContainsToken(text, shown[0].ID), "the search text must show the hits' ids, not leave them to structuredContent:\n%s", clipText(text, 600)) {
			return
		}
		for _, h := range shown {
			t.Assert(probe.ContainsToken(text, h.ID), "the search text shows hit %s's evidence but not its id:\n%s", h.ID, clipText(text, 600))
		}
	})
	t.Clause(1, func() {
		for _, h := range shown {
			evidence := probe.PartShown(text, probe.WithoutMarks(h.Title)) || (h.Snippet != "" && probe.PartShown(text, probe.WithoutMarks(h.Snippet)))
			t.Assert(evidence, "the search text shows hit %s without its title or snippet, so a model cannot tell what to read:\n%s", h.ID, clipText(text, 600))
		}
		t.Assert(probe.ContainsToken(text, "fetch") || len(probe.ContinuationsIn(text)) > 0, "the search text must say how to read a hit (fetch):\n%s", clipText(text, 600))
	})
	if len(shown) == 0 || !probe.ContainsToken(text, shown[0].ID) {
		return
	}
	f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: shown[0].ID})
	t.Clause(2, func() {
		t.Assert(!f.IsError(), "fetch with the id %s the search text shows must work: %s", shown[0].ID, f.Describe())
	})
	if !f.IsError() {
		judgeFetchText(t, f, shown[0])
	}
	// Continuations structuredContent gives for shown hits: the text too.
	for _, h := range shown {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			field := probe.FieldIn(t, xm)
			if field == "" || !probe.PartShown(text, probe.WithoutMarks(probe.String(xm["preview_text"]))) {
				continue
			}
			t.Clause(2, func() {
				if !t.Assert(probe.LineWith(text, h.ID, field) || slices.ContainsFunc(probe.ContinuationsIn(text), func(k probe.Continuation) bool {
					return probe.RefersTo(k, h.ID) && probe.RoleOf(t, k, dialect.Field) == field
				}),
					"the search text shows hit %s's evidence in %s, but only structuredContent says how to read it (id and field_path):\n%s", h.ID, field, clipText(text, 600)) {
					return
				}
				r := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: h.ID, dialect.Field: field})
				t.Assert(!r.IsError() && strings.TrimSpace(r.Text()) != "", "read_record_field with the id and field_path the search text shows must read the field: %s", r.Describe())
			})
			return
		}
	}
}

// judgeFetchText judges a fetch's text: it shows the document's title and
// text (S034.1) and its source identity (S034.2).
func judgeFetchText(t *T, f *Call, h probe.Hit) {
	doc, text := f.Structured(), f.Text()
	t.Clause(1, func() {
		t.Assert(probe.String(doc["title"]) == "" || probe.ShownIn(text, probe.String(doc["title"])), "fetch text must show the document's title %q:\n%s", probe.String(doc["title"]), clipText(text, 400))
		t.Assert(probe.String(doc["text"]) == "" || probe.PartShown(text, probe.String(doc["text"])), "fetch text must show the document's text:\n%s", clipText(text, 400))
	})
	t.Clause(2, func() {
		for _, v := range []string{h.Conn, h.Stream, probe.FirstNonEmpty(h.Record, h.ID)} {
			if v != "" {
				t.Assert(probe.ContainsToken(text, v), "fetch text must show the source identity %s, not leave it to structuredContent:\n%s", v, clipText(text, 400))
			}
		}
	})
}

// judgeRecordsText judges a query_records text: each record it shows
// carries some of its content (S034.1) and an id fetch takes (S034.2),
// the id found by value (recordIDsShown).
func judgeRecordsText(t *T, c *Call, fetched map[string]*Call) {
	text := c.Text()
	recs := probe.Records(c)
	shownIDs := probe.RecordIDsShown(t, c, fetched)
	for i, rec := range recs {
		recID := probe.String(rec["id"])
		vals := probe.RecordValues(rec)
		var others []string
		for j, o := range recs {
			if j != i {
				others = append(others, probe.RecordValues(o)...)
			}
		}
		content := slices.ContainsFunc(vals, func(v string) bool { return distinctShown(text, v, others) })
		id := shownIDs[recID]
		if recID == "" || (id == "" && !content) {
			continue // not shown: S033 judges how the text reaches it
		}
		t.Clause(1, func() {
			if len(vals) > 0 {
				t.Assert(content || slices.ContainsFunc(vals, func(v string) bool { return probe.PartShown(text, v) }),
					"the query_records text shows record %s without any of its content:\n%s", recID, clipText(text, 600))
			}
		})
		t.Clause(2, func() {
			var r *Call
			if id != "" {
				_, r = probe.FetchOffered(t, text, id)
			}
			t.Assert(r != nil, "the query_records text shows record %s without an id fetch takes; its identity is left to structuredContent:\n%s", recID, clipText(text, 600))
		})
	}
}

// distinctShown reports whether text shows a piece of own that none of
// others holds: evidence of that one item, not of its neighbours.
func distinctShown(text, own string, others []string) bool {
	r := []rune(own)
	for i := 0; i < len(r) && i < 100*probe.ChunkRunes; i += probe.ChunkRunes / 2 {
		piece := string(r[i:min(len(r), i+probe.ChunkRunes)])
		if len([]rune(piece)) < 8 || slices.ContainsFunc(others, func(o string) bool { return strings.Contains(o, piece) }) {
			continue
		}
		if probe.ShownIn(text, piece) {
			return true
		}
	}
	return false
}
