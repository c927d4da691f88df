package checks

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Every handle of a read's RS envelope is looked for in content[] text by
// value; the cursor and change bookmark the text shows are found by
// following them (a token of the text that pages on, or resumes the feed,
// is one), never by a label. Paging from text alone is followed to the
// next page, which must hold records the first does not. An aggregate's
// count is count metadata too.
var s023 = &Check{ID: "S023", Slug: "visible-paging-handles", Mode: ModeBBD, Tools: []string{"query_records", "search", "aggregate"}, Run: func(t *T) {
	index := probe.Grant(t)
	on := t.Private()
	judged := false
	if src, args, page, env, ok := pagedSource(on, index); ok {
		judged = true
		first := probe.RecordsShown(on, page, src.Stream)
		judgePaging(t, on, "query_records", probe.RecordsPath(src.Stream), sourceSize(on, src), page, env, args, first, func(c *Call) []probe.RecordRef { return probe.RecordsShown(on, c, src.Stream) })
		judgeLaterCount(t, on, index, src, probe.HandlesOf(env).Count)
		if on.HasRole("query_records", dialect.ChangesSince) {
			chArgs := src.Roles(dialect.Args{dialect.Limit: 2, dialect.ChangesSince: "beginning"})
			ch, chEnv := probe.CallWithEnvelope(on, "query_records", chArgs, probe.RecordsPath(src.Stream))
			if want := probe.HandlesOf(chEnv).Changes; !ch.IsError() && want != "" {
				t.Clause(1, func() {
					t.Shows(conformance.TextOf(ch), read.Text(want), "query_records: the envelope's next_changes_since %q must appear in content[] text for hosts that hide structuredContent", want)
				})
				t.Clause(2, func() {
					if !t.Shows(conformance.TextOf(ch), read.Text(want), "a client that reads only content[] cannot resume the changes feed: next_changes_since %q is not in the text", want) {
						return
					}
					judgeLabelledRole(t, on, ch, want, chArgs, dialect.Cursor, pageLabelRe, changesLabelRe)
					r := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.ChangesSince: want}))
					if t.Works(r, conformance.Answers(conformance.TextOf(ch), probe.GrantNames(t)), "the next_changes_since shown in text must resume the feed") && ownRS(t, on) {
						judgeResumeEffect(t, on, src, ch, want)
					}
				})
			}
			judgeChangesToTheEnd(t, on, src, sourceSize(on, src))
		}
	}
	if term, fanIn, _ := probe.FanInTerm(t); term != "" {
		// A second search of the session, scoped to the connection with the
		// most hits, pages too: its cursor must be its own search's, not
		// one kept from the session's first.
		searches := []dialect.Args{{dialect.Query: term, dialect.Limit: 2}}
		if conn, n := busiestConnection(t, fanIn); n > 1 && on.HasRole("search", dialect.Connection) {
			searches = append(searches, dialect.Args{dialect.Query: term, dialect.Connection: conn, dialect.Limit: 1})
		}
		for _, args := range searches {
			s, env := probe.CallWithEnvelope(on, "search", args, "/v1/search")
			if !s.IsError() && len(probe.Hits(on, s)) > 0 && probe.HandlesOf(env).Cursor != "" {
				judged = true
				judgePaging(t, on, "search", "/v1/search", 0, s, env, args, probe.HitRefs(on, s), func(c *Call) []probe.RecordRef { return probe.HitRefs(on, c) })
			}
		}
	}
	if judgeAggregateCount(t, on, index) {
		judged = true
	}
	if judgeGroupedCountText(t, on) {
		judged = true
	}
	if !judged {
		t.Skipf("no read in the target's grant has a page with more after it, or an aggregate count")
	}
}}

// countClause is the clause a count the RS gives (n, among the counts
// the answer must state: all), which an answer's text must state, is
// judged under: S023.2 where the text states another count in its place,
// or the answer holds it nowhere (a client that checks counts from the
// text reads a false one, or none), S023.1 where only the text leaves out
// a count its structuredContent holds.
func countClause(c *Call, n read.Fact, all []string, content []string) int {
	text := read.WithoutContent(c.Text(), content)
	for _, m := range statedCountRe.FindAllStringSubmatch(text, -1) {
		if got := m[1] + m[2]; !slices.Contains(all, got) {
			return 2
		}
	}
	if !read.Find([]string{read.WithoutContent(probe.CompactJSON(c.Structured()), content)}, n).Seen() {
		return 2
	}
	return 1
}

// statedCountRe finds a number a text states as a count: after a count
// word ("count=exact:2", "count(messages) = 41", "total: 2") or before one
// ("2 hit(s)").
var statedCountRe = regexp.MustCompile(`(?i)\b(?:count|total|matches|results|records|hits)\b(?:\([^)]{0,40}\))?\W{0,3}(?:exact\W{1,2}|estimated?\W{1,2})?(\d+)\b|\b(\d+)\s+(?:hits?|matches|results|records?)\b`)

// judgeGroupedCountText judges a grouped count's counts as count metadata:
// grouped by a field the fixture declares groupable, with limit 1, the
// content[] text must show the RS's largest group's count and the count
// of the groups cut off, each stated outside the fixture's values.
func judgeGroupedCountText(t, on *T) bool {
	if !probe.Serves(on.Target, "aggregate") || !on.HasRole("aggregate", dialect.GroupBy) || !on.HasRole("aggregate", dialect.Limit) {
		return false
	}
	content := probe.FixtureStrings(on)
	for _, s := range on.RS().Fixture().Streams {
		for _, f := range s.Fields {
			if !slices.Contains(f.Aggregate, "group_by") || len(s.Records) == 0 {
				continue
			}
			conn := s.Records[0].ConnectionID
			group, other, ok := rsLargestGroup(on, s.Name, f.Name, conn)
			if !ok {
				continue
			}
			c := on.CallRoles("aggregate", dialect.Args{dialect.Stream: s.Name, dialect.Connection: conn, dialect.Metric: "count", dialect.GroupBy: f.Name, dialect.Limit: 1})
			if c.IsError() {
				return false
			}
			text := conformance.WithoutContent(conformance.TextOf(c), content)
			for _, n := range []int{group, other} {
				if !slices.Contains(content, strconv.Itoa(n)) {
					t.Clause(countClause(c, read.Number(n), []string{strconv.Itoa(group), strconv.Itoa(other)}, content), func() {
						t.Shows(text, read.Number(n), "aggregate: the counts the RS gives %s grouped by %s (limit 1: its largest group %d, the groups cut off %d) must appear in content[] text", s.Name, f.Name, group, other)
					})
				}
			}
			return true
		}
	}
	return false
}

// judgeAggregateCount judges the count an aggregate returns, count
// metadata too: its content[] text must show the RS's count of the first
// source the RS counts, looked for outside the fixture's values.
func judgeAggregateCount(t, on *T, index []probe.SchemaRow) bool {
	if !probe.Serves(on.Target, "aggregate") || !on.HasRole("aggregate", dialect.Metric) {
		return false
	}
	content := probe.FixtureStrings(on)
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		q := url.Values{"metric": {"count"}}
		if s.Conn != "" {
			q.Set("connection_id", s.Conn)
		}
		n, err := strconv.Atoi(rsAggregateValue(on, "/v1/streams/"+url.PathEscape(s.Stream)+"/aggregate", q))
		if err != nil || n < 2 || slices.Contains(content, strconv.Itoa(n)) {
			continue
		}
		c := on.CallRoles("aggregate", s.Roles(dialect.Args{dialect.Metric: "count"}))
		if c.IsError() {
			continue
		}
		t.Clause(countClause(c, read.Number(n), []string{strconv.Itoa(n)}, content), func() {
			t.Shows(conformance.WithoutContent(conformance.TextOf(c), content), read.Number(n),
				"aggregate: the count %d the RS gives %s %s must appear in content[] text for hosts that hide structuredContent", n, s.Stream, s.Conn)
		})
		return true
	}
	return false
}

// judgePaging judges one read whose RS envelope has more after it: its
// cursor (or the adapter's own) and count shown in text (S023.1), and the
// page its shown cursor reaches (S023.2).
func judgePaging(t, on *T, tool, path string, total int, page *Call, env map[string]any, args dialect.Args, first []probe.RecordRef, shows func(*Call) []probe.RecordRef) {
	h := probe.HandlesOf(env)
	text := conformance.TextOf(page)
	cursor, next := probe.VisibleCursor(on, page, args, first, h.Cursor, shows)
	// No token of the text pages on: the RS's cursor found nowhere in it
	// is the witness (the adapter's own cursors, if it mints them, would
	// have paged on).
	noCursor := func(msg string) {
		t.AssertWith(cursor != "", func() (conformance.Witness, error) { return conformance.Absent(read.Text(h.Cursor), text) }, msg, tool, h.Cursor)
	}
	if h.Count != "" {
		t.Clause(countClause(page, read.Text(h.Count), []string{h.Count}, nil), func() {
			t.Shows(text, read.Text(h.Count), "%s: the envelope's count %s must appear in content[] text, for hosts that hide structuredContent and for clients that check counts from the text alone", tool, h.Count)
		})
	}
	t.Clause(1, func() {
		noCursor("%s: the envelope's next_cursor %q (or the adapter's own cursor) must appear in content[] text for hosts that hide structuredContent")
		// The RS has more after this page: a has-more flag it shows must say so.
		judgeStateFlags(t, page, "", false, fmt.Sprintf("%s: the first page, which the RS has more after", tool), "has_more", "more")
	})
	t.Clause(2, func() {
		if cursor == "" {
			noCursor("%s: a client that reads only content[] cannot page: no token of the text pages on, and the next_cursor %q is not in it")
			return
		}
		from := conformance.Answers(text, probe.GrantNames(t))
		if !t.Works(next, from, "the cursor shown in the %s text must page forward", tool) {
			return
		}
		if tool == "query_records" && on.HasRole(tool, dialect.ChangesSince) {
			judgeLabelledRole(t, on, page, cursor, args, dialect.ChangesSince, changesLabelRe, pageLabelRe)
		}
		if tool == "query_records" && on.HasRole(tool, dialect.Count) {
			judgeCountOnLaterPage(t, on, path, args, cursor)
		}
		got := shows(next)
		if !t.AssertWith(len(got) > 0, func() (conformance.Witness, error) {
			if len(probe.FixtureRecords(t)) == 0 {
				return conformance.Witness{}, fmt.Errorf("the records are judged by value, and the target reads no fixture of mcpcheck's")
			}
			return conformance.Witness{Kind: conformance.WitnessCall, Fact: cursor, In: []string{next.Describe() + ": no record of the grant", "built from " + page.Describe()}}, nil
		}, "%s: the page after the cursor shown in text is empty", tool) {
			return
		}
		for _, ref := range got {
			if !t.AssertWith(!slices.Contains(first, ref), func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: ref.String(), In: []string{next.Describe() + " repeats " + ref.String(), "built from " + page.Describe()}}, nil
			}, "%s: the page after the cursor shown in text repeats %s of the page before", tool, ref) {
				return
			}
		}
		followToTheEnd(t, on, tool, path, args, cursor, append(slices.Clone(first), got...), total, shows)
	})
}

// maxPages bounds how far paging from text is followed (mcpcheck's own
// call budget; a source that pages further is judged up to it).
const maxPages = 25

// followToTheEnd follows, from the second page on, the cursor each page's
// text shows until the RS has no more: no page repeats a record an earlier
// page showed, each page whose RS answer has more shows a cursor that
// pages on, and, where the fixture knows the source's size (total), the
// pages together show every record of it.
func followToTheEnd(t, on *T, tool, path string, args dialect.Args, cursor string, seen []probe.RecordRef, total int, shows func(*Call) []probe.RecordRef) {
	var answers []conformance.Evidence
	for step := 2; ; step++ {
		if step == maxPages {
			return
		}
		pageArgs := maps.Clone(args)
		pageArgs[dialect.Cursor] = cursor
		page, env := probe.CallWithEnvelope(on, tool, pageArgs, path)
		answers = append(answers, page)
		rsNext := probe.HandlesOf(env).Cursor
		if !page.IsError() {
			judgeStateFlags(t, page, "", rsNext == "", fmt.Sprintf("%s: page %d, followed from the cursor page %d's text shows", tool, step, step-1), "has_more", "more")
			if tool == "query_records" {
				judgeRecordCount(t, on, page, env, shows)
			}
		}
		if page.IsError() || rsNext == "" {
			break // the RS has no more
		}
		cur, next := probe.VisibleCursor(on, page, args, seen, rsNext, shows)
		if cur == "" {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Absent(read.Text(rsNext), conformance.TextOf(page))
			},
				"%s: page %d's text shows no cursor that pages on, though the RS has more (its next_cursor %q)", tool, step, rsNext)
			return
		}
		got := shows(next)
		for _, ref := range got {
			if !t.AssertWith(!slices.Contains(seen, ref), func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: ref.String(), In: []string{next.Describe() + " repeats " + ref.String() + ", shown on an earlier page", "built from " + page.Describe()}}, nil
			}, "%s: following the cursor page %d's text shows repeats %s of an earlier page", tool, step, ref) {
				return
			}
		}
		if len(got) == 0 {
			break
		}
		seen, cursor = append(seen, got...), cur
	}
	if total == 0 || len(seen) >= total {
		return
	}
	for _, r := range probe.FixtureRecords(t) {
		if r.Ref.Stream != seen[0].Stream || r.Ref.Conn != seen[0].Conn || slices.Contains(seen, r.Ref) {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts(append(recordTexts(r), r.Ref.ID)...), answers...)
		}, "%s: paging to the end from text never shows record %s of the %d the source holds", tool, r.Ref, total)
		return
	}
}

// changesLabelRe and pageLabelRe are the labels of a change bookmark
// and a page cursor.
var (
	changesLabelRe = regexp.MustCompile(`(?i)change`)
	pageLabelRe    = regexp.MustCompile(`(?i)cursor|page`)
)

// judgeLabelledRole holds the label the text prints a handle under to
// what the handle is: a token printed under a label of the other role
// (label matches, own does not), used in that role as a content-only
// client would, must work. A page cursor printed as the change bookmark
// that fails as changes_since misleads such a client (S023.2).
func judgeLabelledRole(t, on *T, page *Call, token string, args dialect.Args, role dialect.Role, label, own *regexp.Regexp) {
	lbl := probe.LabelBefore(page.Text(), token)
	if lbl == "" || !label.MatchString(lbl) || own.MatchString(lbl) {
		return
	}
	use := maps.Clone(args)
	delete(use, dialect.Cursor)
	delete(use, dialect.ChangesSince)
	use[role] = token
	r := on.CallRoles("query_records", use)
	t.AssertWith(!r.IsError(), func() (conformance.Witness, error) {
		return conformance.Refused(r, conformance.TextOf(page))
	}, "query_records: the text prints %s under the label %q, but used as that, it fails: a client that reads only content[] cannot tell a page cursor from a change bookmark", clipText(token, 40), lbl)
}

// recordCountRe is a number of records a text states ("20 record(s)",
// "3 records"), with what comes before it.
var recordCountRe = regexp.MustCompile(`(?i)(\b\w+\s+)?\b(\d+)\s+records?\b(?:\(s\))?`)

// judgeRecordCount holds the numbers of records a page's text states to
// the page: each must be the records the RS gave it, the RS's count, or
// the records its text shows; a bound ("up to 5", "limit 60", "of 80")
// is no such statement.
func judgeRecordCount(t, on *T, page *Call, env map[string]any, shows func(*Call) []probe.RecordRef) {
	data, _ := env["data"].([]any)
	ok := map[string]bool{strconv.Itoa(len(data)): true, strconv.Itoa(len(shows(page))): true, probe.HandlesOf(env).Count: true}
	text := conformance.WithoutContent(conformance.TextOf(page), probe.FixtureStrings(on)).Strings()[0]
	for _, m := range recordCountRe.FindAllStringSubmatch(text, -1) {
		if ok[m[2]] || boundWordRe.MatchString(m[1]) {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) {
			return conformance.Present(strings.TrimSpace(m[0]), conformance.TextOf(page))
		},
			"query_records: a page followed by the cursor its text shows states %s records, but the RS gave it %d (its count %q)", m[2], len(data), probe.HandlesOf(env).Count)
		return
	}
}

var boundWordRe = regexp.MustCompile(`(?i)^(limit|max|maximum|up|to|of|most|per|first|last|next|previous)\s+$`)

// judgeCountOnLaterPage asks for the count on the page the shown cursor
// reaches: the text must show the RS's count there too, not one of the
// page's own making.
func judgeCountOnLaterPage(t, on *T, path string, args dialect.Args, cursor string) {
	counted := maps.Clone(args)
	counted[dialect.Cursor], counted[dialect.Count] = cursor, "exact"
	c, env := probe.CallWithEnvelope(on, "query_records", counted, path)
	if n := probe.HandlesOf(env).Count; n != "" && !c.IsError() {
		t.Shows(conformance.WithoutContent(conformance.TextOf(c), probe.FixtureStrings(on)), read.Text(n),
			"query_records: the page after the cursor, asked for an exact count, must show the RS's count %s in text", n)
	}
}

// pagedSource finds a source whose first page of two records has more
// after it, with an exact count where the target declares a count mode,
// with its arguments and RS envelope.
func pagedSource(t *T, index []probe.SchemaRow) (probe.Source, dialect.Args, *Call, map[string]any, bool) {
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		args := s.Roles(dialect.Args{dialect.Limit: 2})
		if t.HasRole("query_records", dialect.Count) {
			args[dialect.Count] = "exact"
		}
		c, env := probe.CallWithEnvelope(t, "query_records", args, probe.RecordsPath(s.Stream))
		if !c.IsError() && (env["has_more"] == true || probe.HandlesOf(env).Cursor != "") {
			delete(args, dialect.Count)
			return s, args, c, env, true
		}
	}
	return probe.Source{}, nil, nil, nil, false
}

// judgeLaterCount judges the count of a later read in the same session:
// a source whose exact count differs from the first's must show its own
// in text, not one carried over from the earlier call. The count is
// looked for outside the fixture's own values, whose digits say nothing.
func judgeLaterCount(t, on *T, index []probe.SchemaRow, first probe.Source, firstCount string) {
	if firstCount == "" || !on.HasRole("query_records", dialect.Count) {
		return
	}
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			return
		}
		if s == first {
			continue
		}
		c, env := probe.CallWithEnvelope(on, "query_records", s.Roles(dialect.Args{dialect.Limit: 1, dialect.Count: "exact"}), probe.RecordsPath(s.Stream))
		n, err := strconv.Atoi(probe.HandlesOf(env).Count)
		content := probe.FixtureStrings(on)
		if c.IsError() || err != nil || strconv.Itoa(n) == firstCount || slices.Contains(content, strconv.Itoa(n)) {
			continue
		}
		t.Clause(countClause(c, read.Number(n), []string{strconv.Itoa(n)}, content), func() {
			t.Shows(conformance.WithoutContent(conformance.TextOf(c), content), read.Number(n), "query_records: a later count in the same session (stream %s %s, after stream %s %s counted %s) must show its own envelope count %d in content[] text", s.Stream, s.Conn, first.Stream, first.Conn, firstCount, n)
		})
		return
	}
}

// sourceSize is how many records the fixture holds for src.
func sourceSize(t *T, src probe.Source) int {
	n := 0
	for _, r := range probe.FixtureRecords(t) {
		if r.Ref.Stream == src.Stream && (src.Conn == "" || r.Ref.Conn == src.Conn) {
			n++
		}
	}
	return n
}

// maxChangesPages bounds how far a changes feed is paged from its text.
const maxChangesPages = 6

// judgeChangesToTheEnd pages a changes feed from the beginning through
// the cursors its text shows, in pages sized to end within the bound: the
// bookmark the RS gives on every page, the pages after the first
// included, must be in that page's text, or a client that reads only
// content[] resumes from the wrong place.
func judgeChangesToTheEnd(t, on *T, src probe.Source, size int) {
	path := probe.RecordsPath(src.Stream)
	shows := func(c *Call) []probe.RecordRef { return probe.RecordsShown(on, c, src.Stream) }
	args := src.Roles(dialect.Args{dialect.Limit: max(2, (size+maxChangesPages-2)/(maxChangesPages-1)), dialect.ChangesSince: "beginning"})
	seq := rsSeq(on)
	page, env := probe.CallWithEnvelope(on, "query_records", args, path)
	seen := shows(page)
	if !page.IsError() {
		t.Clause(2, func() {
			judgeStateFlags(t, page, "", probe.HandlesOf(env).Cursor == "", "query_records: the first changes page", "has_more", "more")
		})
	}
	for step := 2; step <= maxChangesPages && !page.IsError(); step++ {
		rsNext := probe.HandlesOf(env).Cursor
		if rsNext == "" {
			return
		}
		cur, _ := probe.VisibleCursor(on, page, args, seen, rsNext, shows)
		if cur == "" {
			t.Clause(2, func() {
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Absent(read.Text(rsNext), conformance.TextOf(page))
				}, "query_records: changes page %d's text shows no cursor that pages on through the feed, though the RS has more (its next_cursor %q)", step-1, rsNext)
			})
			return
		}
		pageArgs := maps.Clone(args)
		pageArgs[dialect.Cursor] = cur
		prev := page
		want := rsNextPage(on, path, seq, rsNext)
		seq = rsSeq(on)
		page, env = probe.CallWithEnvelope(on, "query_records", pageArgs, path)
		if got := shows(page); len(want) > 0 && len(got) > 0 && !page.IsError() && !slices.ContainsFunc(got, func(r probe.RecordRef) bool { return r.ID == want[0] }) {
			t.Clause(2, func() {
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Absent(read.Text(want[0]), conformance.TextOf(page))
				}, "query_records: changes page %d, followed from the cursor page %d's text shows, lacks %s, which the RS's next page of the feed starts with", step, step-1, want[0])
			})
			return
		}
		repeated := slices.IndexFunc(shows(page), func(ref probe.RecordRef) bool { return slices.Contains(seen, ref) })
		t.Clause(2, func() {
			if !page.IsError() {
				judgeStateFlags(t, page, "", probe.HandlesOf(env).Cursor == "", fmt.Sprintf("query_records: changes page %d, followed from the cursor page %d's text shows", step, step-1), "has_more", "more")
			}
			if repeated >= 0 {
				ref := shows(page)[repeated]
				t.AssertWith(false, func() (conformance.Witness, error) {
					return conformance.Witness{Kind: conformance.WitnessCall, Fact: ref.String(), In: []string{page.Describe() + " repeats " + ref.String() + ", shown on an earlier changes page", "built from " + prev.Describe()}}, nil
				}, "query_records: following the cursor changes page %d's text shows repeats %s of an earlier page", step-1, ref)
			}
		})
		if repeated >= 0 {
			return
		}
		seen = append(seen, shows(page)...)
		if want := probe.HandlesOf(env).Changes; want != "" && !page.IsError() {
			t.Clause(2, func() {
				t.Shows(conformance.TextOf(page), read.Text(want), "query_records: changes page %d, followed from the cursor page %d's text shows, gives the RS's next_changes_since %q; it must be in the page's text, or a client that reads only content[] resumes the feed from the wrong place", step, step-1, want)
			})
		}
	}
}

// rsSeq is the last RS request's sequence number, 0 off a controlled RS.
func rsSeq(on *T) int64 {
	if !on.Target.Has(CapControlledRS) {
		return 0
	}
	return probe.LastSeq(on)
}

// rsNextPage is the record ids of the RS's page after the last request
// to path since seq, replayed with the RS's own next cursor; nil off a
// controlled RS.
func rsNextPage(on *T, path string, since int64, rsNext string) []string {
	if !on.Target.Has(CapControlledRS) {
		return nil
	}
	reqs := probe.RequestsSince(on, path, since)
	if len(reqs) == 0 {
		return nil
	}
	q, err := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
	if err != nil {
		return nil
	}
	q.Set(fakers.CursorParam, rsNext)
	return rsRecordIDs(on, path, q)
}

// changeMarker is the text of the record mcpcheck changes after a
// bookmark, to tell it by value.
const changeMarker = "mcpcheck changed this record after the bookmark"

// judgeResumeEffect judges the bookmark by its effect, not its acceptance:
// once a record of the source changes after it (on a private fork),
// resuming with it shows that record, and none the first page showed.
func judgeResumeEffect(t, on *T, src probe.Source, first *Call, bookmark string) {
	earlier := probe.RecordsShown(on, first, src.Stream)
	var changed probe.RecordRef
	on.RS().Update(func(fx *fakers.Fixture) {
		for _, s := range fx.Streams {
			if s.Name != src.Stream || !slices.Contains(s.Connections, src.Conn) {
				continue
			}
			for i, r := range s.Records {
				if r.ConnectionID != src.Conn {
					continue
				}
				data := maps.Clone(r.Data)
				for k, v := range data {
					if _, ok := v.(string); ok && k != s.PrimaryKey && k != s.CursorField {
						data[k] = changeMarker
						break
					}
				}
				s.Records[i].Data = data
				changed = probe.RecordRef{Conn: r.ConnectionID, Stream: s.Name, ID: r.ID}
				return
			}
		}
	})
	after := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.ChangesSince: bookmark}))
	if !t.Works(after, conformance.Answers(conformance.TextOf(first), probe.GrantNames(t)), "the next_changes_since shown in text must resume the feed after a change") {
		return
	}
	t.Shows(after, read.Text(changeMarker), "resuming with the next_changes_since shown in text must show the record changed after it")
	for _, ref := range earlier {
		if ref == changed {
			continue
		}
		rec, _ := probe.FindRecord(on, ref)
		vals := probe.DistinctiveValues(on, rec)
		if len(vals) == 0 || !read.Find(after.Strings(), read.Text(vals[0])).Exact {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(vals[0], after) },
			"resuming with the next_changes_since shown in text shows %s again, unchanged since the bookmark", ref)
		return
	}
}

// ownRS reports whether on is a fork with an RS of its own, whose data a
// check may change (a controlled URL target's forks share one RS).
func ownRS(t, on *T) bool {
	return on != t && on.Target.Has(CapControlledRS) && t.Target.Has(CapControlledRS) && on.RS().URL() != t.RS().URL()
}
