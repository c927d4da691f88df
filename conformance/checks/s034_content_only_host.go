package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// A host that shows the model only content[] is played by value: the
// records and hits of an answer are the fixture's, each looked for in the
// text by its own values (S034.1) and by a handle the text shows that the
// target's read tools take, found by following it (S034.2); then the
// journey search → fetch → read_record_field is walked from the text alone.
// A record or hit the text shows whose id is nowhere in it and none of
// whose text handles names it, or whose values are nowhere in it, is the
// witness.
var s034 = &Check{ID: "S034", Slug: "content-only-host", Mode: ModeBBD, Tools: []string{"search", "query_records", "fetch"}, Run: func(t *T) {
	if probe.FixtureRecords(t) == nil {
		t.SkipFor(CapControlledRS, "playing a content-only host by value needs the records mcpcheck's fixture RS serves")
	}
	judged := false
	// The target's own data, then the evidence-ladder fixture, whose
	// records tell themselves apart by their text.
	for v := range probe.EvidenceViews(t) {
		if _, c, _ := probe.FanInTerm(v); c != nil && !c.IsError() && len(probe.Hits(v, c)) > 0 {
			judged = true
			judgeSearchText(t, v, c)
		}
	}
	// A page reached by following the cursor its text shows is read the
	// same way: its handles must work too.
	if _, next := searchPageTwo(t); next != nil {
		judged = true
		judgeSearchText(t, t, next)
	}
	// Hits with no evidence to show (a match in metadata only) are listed
	// by title: their ids must be in the text too.
	if term, ok := metadataOnlyTerm(t.RS().Fixture()); ok {
		if c := t.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Limit: 10}); !c.IsError() && len(probe.Hits(t, c)) > 0 {
			judged = true
			judgeSearchText(t, t, c)
		}
	}
	for i, s := range probe.Sources(probe.Grant(t)) {
		if i == 3 {
			break
		}
		if c := t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 5})); !c.IsError() && len(probe.RecordsShown(t, c, s.Stream)) > 0 {
			judged = true
			judgeRecordsText(t, c, s)
		}
	}
	// So is a record page reached by the cursor the first page's text shows.
	if next, s := recordsPageTwo(t); next != nil {
		judged = true
		judgeRecordsText(t, next, s)
	}
	if !judged {
		t.Skipf("no search or query_records answer of the target's data to read from text")
	}
}}

// judgeSearchText judges a search text: each hit it shows carries some of
// its evidence (S034.1) and a handle (S034.2); the first handle fetches
// from text alone, and a field the text offers to read reads.
func judgeSearchText(t, v *T, c *Call) {
	text := conformance.TextOf(c)
	hits := probe.Hits(v, c)
	var refs []probe.RecordRef
	for _, h := range hits {
		refs = append(refs, h.Ref)
	}
	handles := probe.HandlesInText(v, c, refs)
	t.Clause(1, func() {
		t.AssertWith(read.Find(text.Strings(), read.Text("fetch")).Seen() || len(probe.ContinuationsIn(c.Text())) > 0, func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts("fetch", "read_record_field"), text)
		}, "the search text must say how to read a hit (fetch)")
	})
	// A hit the text shows by its content must carry a handle, and one it
	// shows by a handle must carry some content; a hit the text leaves out
	// altogether (a bounded page) is judged by neither.
	// A hit is shown by content when the text shows what tells its record
	// from the fixture's others (probe.RecordsShownIn).
	byValue := map[probe.RecordRef]bool{}
	for _, r := range probe.RecordsShownIn(v, probe.WithoutMarks(c.Text()), "") {
		byValue[r] = true
	}
	for _, h := range hits {
		rec, _ := probe.FindRecord(v, h.Ref)
		vals := recordTexts(rec)
		byContent := byValue[h.Ref]
		if handles[h.Ref] != "" && len(vals) > 0 {
			t.Clause(1, func() {
				some := byContent || probe.PartShown(c.Text(), probe.WithoutMarks(h.Title)) || h.Snippet != "" && probe.PartShown(c.Text(), probe.WithoutMarks(h.Snippet)) ||
					slices.ContainsFunc(vals, func(v string) bool { return probe.PartShown(c.Text(), v) })
				t.AssertWith(some, func() (conformance.Witness, error) {
					return conformance.AbsentAll(facts(vals...), text)
				}, "the search text shows hit %s (handle %s) without its title, snippet or any of its content, so a model cannot tell what to read", h.Ref, handles[h.Ref])
			})
		}
		if byContent {
			t.Clause(2, func() {
				t.AssertWith(handles[h.Ref] != "", func() (conformance.Witness, error) {
					if r, ok := probe.RefusedInText(v, c, h.Ref); ok {
						return conformance.Refused(r, text)
					}
					return conformance.Absent(read.Text(h.Ref.ID), text)
				},
					"the search text shows hit %s without a handle fetch takes for it; its identity is left to structuredContent", h.Ref)
				judgeHandleBeside(t, v, c, h.Ref, handles[h.Ref], "")
			})
		}
		if handles[h.Ref] != "" {
			t.Clause(2, func() { judgeTitleBeside(t, c, h, hits, handles[h.Ref]) })
		}
		t.Clause(2, func() { judgeTextConnection(t, v, c.Text(), h, hitIDs(hits)) })
	}
	if len(hits) == 0 || handles[hits[0].Ref] == "" {
		return
	}
	first := hits[0]
	f := v.CallRoles("fetch", dialect.Args{dialect.RecordID: handles[first.Ref]})
	t.Clause(2, func() {
		t.Works(f, text, "fetch with the handle %s the search text shows must work", handles[first.Ref])
	})
	if !f.IsError() {
		judgeFetchText(t, f, first.Ref)
	}
	// A field the text offers to read, with what the text says.
	for _, cont := range probe.ContinuationsIn(c.Text()) {
		if cont.Tool != "read_record_field" {
			continue
		}
		r := followOnce(v, cont)
		t.Clause(2, func() {
			if !t.Works(r, text, "read_record_field as the search text writes it must read the field") {
				return
			}
			t.AssertWith(probe.String(r.Text()) != "", func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, In: []string{r.Describe() + ": an empty text", "printed in " + c.Describe()}}, nil
			}, "read_record_field as the search text writes it must show the field in text")
			// The field it names, by the fixture's value: the window shows
			// its start, or its match, not a link elsewhere.
			if val := continuedValue(v, cont); val != "" {
				t.ShowsAny(conformance.TextOf(r), append(facts(valueHead(val), probe.WithoutMarks(firstSnippet(c, val))), matchContext(v, cont, val)...),
					"read_record_field as the search text writes it must show the field's own text, not only a way to get it elsewhere")
			}
		})
		return
	}
}

// recordTexts are a fixture record's text values long enough to recognise
// it by.
func recordTexts(rec probe.FixtureRecord) []string {
	var out []string
	for _, k := range slices.Sorted(mapKeysAny(rec.Data)) {
		if s, ok := rec.Data[k].(string); ok && len(s) >= 8 && s != rec.Ref.ID && !probe.LooksBinary(s) {
			out = append(out, valueHead(s))
		}
	}
	return out
}

func mapKeysAny(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// judgeFetchText judges a fetch's text: it shows the document's title and
// text (S034.1) and its source identity (S034.2), by the fixture's values.
func judgeFetchText(t *T, f *Call, ref probe.RecordRef) {
	doc, text := f.Structured(), conformance.TextOf(f)
	t.Clause(1, func() {
		if title := probe.String(doc["title"]); title != "" {
			t.Shows(text, read.Text(valueHead(title)), "fetch text must show the document's title")
		}
		if body := probe.String(doc["text"]); body != "" {
			t.Shows(text, read.Text(valueHead(body)), "fetch text must show the document's text")
		}
	})
	t.Clause(2, func() {
		for _, v := range []string{ref.Conn, ref.Stream, ref.ID} {
			t.Shows(text, read.Text(v), "fetch text must show the source identity %s, not leave it to structuredContent", v)
		}
	})
}

// judgeRecordsText judges a query_records text: each record it shows
// carries some of its content (S034.1) and a handle fetch takes, found by
// following what the text shows (S034.2).
func judgeRecordsText(t *T, c *Call, s probe.Source) {
	text := conformance.TextOf(c)
	inPage := probe.RecordsShown(t, c, s.Stream)
	shown := shownInText(t, c, s.Stream, inPage)
	handles := probe.HandlesInText(t, c, shown)
	t.Clause(2, func() { judgeRecordsReachable(t, c, s) })
	for _, ref := range shown {
		rec, _ := probe.FindRecord(t, ref)
		vals := recordTexts(rec)
		t.Clause(1, func() {
			if len(vals) == 0 {
				return
			}
			t.AssertWith(slices.ContainsFunc(vals, func(v string) bool { return probe.PartShown(c.Text(), v) }), func() (conformance.Witness, error) {
				return conformance.AbsentAll(facts(vals...), text)
			}, "the query_records text shows record %s without any of its content", ref)
		})
		t.Clause(2, func() {
			t.AssertWith(handles[ref] != "", func() (conformance.Witness, error) {
				if r, ok := probe.RefusedInText(t, c, ref); ok {
					return conformance.Refused(r, text)
				}
				return conformance.Absent(read.Text(ref.ID), text)
			}, "the query_records text shows record %s without a handle fetch takes; its identity is left to structuredContent", ref)
			judgeHandleBeside(t, t, c, ref, handles[ref], s.Stream)
		})
	}
}

// judgeRecordsReachable judges the records a page holds that its text
// does not show: a bounded text may leave them to the calls it prints
// (followed as S033 follows them); a record none of those shows is
// reached only through structuredContent.
func judgeRecordsReachable(t *T, c *Call, s probe.Source) {
	hidden := hiddenRecords(t, c, s)
	if len(hidden) == 0 {
		return
	}
	missing, done := reachHidden(t, c, s, hidden)
	for _, ref := range missing {
		t.AssertWith(false, func() (conformance.Witness, error) {
			return conformance.Absent(read.Text(ref.ID), conformance.TextOf(c))
		},
			"query_records' answer holds record %s, but its text shows it nowhere (no id, value or handle), nor does any of the %d query_records calls it leads to: structuredContent is the only path to its identity", ref, len(done))
	}
}

// hitIDs are the record ids of hits.
func hitIDs(hits []probe.Hit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Ref.ID)
	}
	return out
}

// judgeHandleBeside holds a handle to the content printed beside it: the
// text blocks where handle h (which names ref, by following) stands must
// not show another record's content and none of ref's, or a content-only
// client reads one record's values under another's handle. on holds the
// fixture c read.
func judgeHandleBeside(t, on *T, c *Call, ref probe.RecordRef, h, stream string) {
	if h == "" {
		return
	}
	blk := probe.BlocksWith(probe.WithoutMarks(c.Text()), h)
	if blk == "" {
		return
	}
	shown := probe.ValuedIn(on, blk, stream)
	if len(shown) == 0 || slices.Contains(shown, ref) {
		return
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return conformance.Present(h, conformance.Shown(fmt.Sprintf("the text block showing %s's content", shown[0]), blk))
	}, "the text prints handle %s, which names %s, beside the content of %s: a content-only client reads one record under another's handle", h, ref, shown[0])
}

// judgeTitleBeside holds the title printed beside a hit's handle to the
// hit: the text block where handle h of hit h stands must not show
// another hit's title (as the answer's hits state them) without its own,
// or a content-only client reads one record's identity under another's
// handle.
func judgeTitleBeside(t *T, c *Call, hit probe.Hit, hits []probe.Hit, h string) {
	own := strings.TrimSpace(probe.WithoutMarks(hit.Title))
	blk := probe.BlocksWith(probe.WithoutMarks(c.Text()), h)
	if len(own) < 8 || blk == "" || strings.Contains(blk, own) {
		return
	}
	for _, o := range hits {
		other := strings.TrimSpace(probe.WithoutMarks(o.Title))
		if o.Ref == hit.Ref || len(other) < 8 || strings.Contains(own, other) || strings.Contains(other, own) || !strings.Contains(blk, other) {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) {
			return conformance.Present(other, conformance.Shown(fmt.Sprintf("the text block holding %s's handle %s", hit.Ref, h), blk))
		}, "the search text prints hit %s's handle %s under the title of hit %s (%q), not its own (%q): a content-only client reads one record's identity under another's handle", hit.Ref, h, o.Ref, other, own)
		return
	}
}

// continuedValue is the fixture's value of the field a read_record_field
// continuation names, its record learned by following the id it passes;
// "" when either is not known, or the value is not plain text.
func continuedValue(t *T, cont probe.Continuation) string {
	id := probe.String(t.Target.Dialect().Value(cont.Tool, cont.Args, dialect.RecordID))
	field := probe.String(t.Target.Dialect().Value(cont.Tool, cont.Args, dialect.Field))
	if id == "" || field == "" {
		return ""
	}
	f := probe.Follow(t, id)
	if !f.OK {
		return ""
	}
	rec, _ := probe.FindRecord(t, f.Ref)
	if s, ok := rec.Data[field].(string); ok && !probe.LooksBinary(s) {
		return s
	}
	return ""
}

// firstSnippet is the part of val the answer c shows, its marks aside, if
// a window of it is all a read may show (a read around the match).
func firstSnippet(c *Call, val string) string {
	text := probe.WithoutMarks(c.Text())
	for _, w := range strings.Fields(val) {
		if len(w) >= 6 && strings.Contains(text, w) {
			return w
		}
	}
	return valueHead(val)
}

// matchContext is, for a printed read that looks for a query, the field's
// own text around the query's first match: the query with what precedes
// it, and with what follows it, as a window on either side shows it.
func matchContext(t *T, cont probe.Continuation, val string) []read.Fact {
	q := probe.String(t.Target.Dialect().Value(cont.Tool, cont.Args, dialect.Query))
	i := strings.Index(strings.ToLower(val), strings.ToLower(q))
	if q == "" || i < 0 {
		return nil
	}
	end := i + len(q)
	return facts(val[max(0, i-12):end], val[i:min(len(val), end+12)])
}

// recordsPageTwo is the second page of records of the first source whose
// page of three has more, reached by the cursor the first page's text
// shows (found by following), with its source; nil when none is.
func recordsPageTwo(t *T) (*Call, probe.Source) {
	for i, s := range probe.Sources(probe.Grant(t)) {
		if i == 3 {
			break
		}
		args := s.Roles(dialect.Args{dialect.Limit: 3})
		first, env := probe.CallWithEnvelope(t, "query_records", args, probe.RecordsPath(s.Stream))
		cur := probe.HandlesOf(env).Cursor
		if first.IsError() || cur == "" {
			continue
		}
		shows := func(c *Call) []probe.RecordRef { return probe.RecordsShown(t, c, s.Stream) }
		if shown, next := probe.VisibleCursor(t, first, args, shows(first), cur, shows); shown != "" && next != nil && !next.IsError() && len(shows(next)) > 0 {
			return next, s
		}
		return nil, probe.Source{}
	}
	return nil, probe.Source{}
}

// searchPageTwo is the second page of a search that fans in, reached by
// the cursor the first page's text shows (found by following), with the
// first page; nil when there is none.
func searchPageTwo(t *T) (first, next *Call) {
	term, _, _ := probe.FanInTerm(t)
	if term == "" {
		return nil, nil
	}
	args := dialect.Args{dialect.Query: term, dialect.Limit: 2}
	first, env := probe.CallWithEnvelope(t, "search", args, "/v1/search")
	cur := probe.HandlesOf(env).Cursor
	if first.IsError() || cur == "" {
		return nil, nil
	}
	shows := func(c *Call) []probe.RecordRef { return probe.HitRefs(t, c) }
	if shown, next := probe.VisibleCursor(t, first, args, shows(first), cur, shows); shown != "" && next != nil && !next.IsError() && len(probe.Hits(t, next)) > 0 {
		return first, next
	}
	return nil, nil
}
