package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Seed 001: an accepted argument is forwarded or validated "against the
// same resource-server read contracts". Each argument a tool declares is
// judged by its effect: the answer must show what the RS answers to the
// same request (replayed on mcpcheck's RS under the client bearer), found
// by value, where that differs from the RS's answer without the argument.
func judgeArgumentEffects(t, ft *T) {
	fx := ft.RS().Fixture()
	content := probe.FixtureStrings(ft)
	if name, conn, ok := oneConnectionStream(fx, 6); ok {
		path := probe.RecordsPath(name)
		base := url.Values{"connection_id": {conn}, "limit": {"2"}}
		// order: the first record of an ascending page.
		if ft.HasRole("query_records", dialect.Order) {
			judgeFirstRecord(t, ft, path, base, url.Values{"order": {"asc"}},
				dialect.Args{dialect.Stream: name, dialect.Connection: conn, dialect.Limit: 2, dialect.Order: "asc"}, "order asc")
		}
		// changes_since: a changes read from the beginning.
		if ft.HasRole("query_records", dialect.ChangesSince) {
			judgeFirstRecord(t, ft, path, base, url.Values{"changes_since": {"beginning"}},
				dialect.Args{dialect.Stream: name, dialect.Connection: conn, dialect.Limit: 2, dialect.ChangesSince: "beginning"}, "changes_since beginning")
		}
		// count: the exact count of a source larger than the page.
		if ft.HasRole("query_records", dialect.Count) {
			judgeCount(t, ft, path, base, dialect.Args{dialect.Stream: name, dialect.Connection: conn, dialect.Limit: 2, dialect.Count: "exact"}, content)
		}
		// limit: the page size, on the first page and the next.
		if ft.HasRole("query_records", dialect.Limit) {
			judgeRecordLimit(t, ft, name, conn)
		}
		// fields: every field of a projection, not the first alone.
		if ft.HasRole("query_records", dialect.Fields) {
			judgeFieldsForwarded(t, ft, fx, name, conn)
		}
	}
	judgeWindowLength(t, ft)
	judgeMatchContext(t, ft)
	judgeGroupedCount(t, ft, fx, content)
	judgeMetric(t, ft, fx, content)
	judgeTimeBuckets(t, ft, fx, content)
	judgeFilter(t, ft)
	judgeSearchStreams(t, ft, fx)
}

// judgeCount judges query_records' count: asked for an exact count, the
// answer must show the count the RS gives the same request, which the
// RS gives none of without it.
func judgeCount(t, ft *T, path string, base url.Values, args dialect.Args, content []string) {
	q := maps.Clone(base)
	q.Set("count", "exact")
	status, body, ok := ft.ReadRS(path, q)
	var env map[string]any
	if !ok || status != 200 || json.Unmarshal(body, &env) != nil {
		return
	}
	n := probe.HandlesOf(env).Count
	if n == "" || slices.Contains(content, n) {
		return
	}
	c := ft.CallRoles("query_records", args)
	if c.IsError() {
		return // refused: validated, not ignored
	}
	t.Shows(conformance.WithoutContent(c, content), read.Text(n),
		"query_records asked for an exact count must show the RS's count %s: the count argument must be forwarded", n)
}

// recordLimit is the page size judgeRecordLimit asks for.
const recordLimit = 2

// judgeRecordLimit judges query_records' limit on a source of one
// connection, where the RS's page holds no more records than asked: the
// first page, and the page the cursor its text shows reaches, must show
// no more than the limit.
func judgeRecordLimit(t, ft *T, stream, conn string) {
	args := dialect.Args{dialect.Stream: stream, dialect.Connection: conn, dialect.Limit: recordLimit}
	shows := func(c *Call) []probe.RecordRef { return probe.RecordsShown(ft, c, stream) }
	page, env := probe.CallWithEnvelope(ft, "query_records", args, probe.RecordsPath(stream))
	for step := 1; step <= 2 && page != nil && !page.IsError(); step++ {
		shown := shows(page)
		if len(shown) > recordLimit {
			extra := shown[recordLimit]
			t.AssertWith(false, func() (conformance.Witness, error) {
				w, err := conformance.Present(extra.ID, page)
				w.Fact = fmt.Sprintf("record %s, one of %d shown", extra.ID, len(shown))
				return w, err
			}, "query_records asked for %d records of %s shows %d on page %d (%s among them): the limit was accepted but not applied", recordLimit, stream, len(shown), step, extra)
			return
		}
		if step == 2 {
			return
		}
		_, page = probe.VisibleCursor(ft, page, args, shown, probe.HandlesOf(env).Cursor, shows)
	}
}

// judgeFieldsForwarded judges query_records' fields: asked for two text
// fields of a source, which the RS serves, each record the answer shows
// must show its value of the second, not the first field's alone.
func judgeFieldsForwarded(t, ft *T, fx *fakers.Fixture, stream, conn string) {
	var recs []fakers.Record
	for _, s := range fx.StreamsNamed(stream) {
		for _, r := range s.Records {
			if r.ConnectionID == conn && len(recs) < 3 {
				recs = append(recs, r)
			}
		}
	}
	textual := func(f string) bool {
		for _, r := range recs {
			v, ok := r.Data[f].(string)
			if !ok || len(v) < 6 || probe.LooksBinary(v) || dateLike(v) {
				return false
			}
		}
		return len(recs) > 0
	}
	var pick []string
	for _, s := range fx.StreamsNamed(stream) {
		for _, f := range s.Fields {
			if len(pick) < 2 && !slices.Contains(pick, f.Name) && textual(f.Name) {
				pick = append(pick, f.Name)
			}
		}
	}
	if len(pick) < 2 {
		return
	}
	if status, _, ok := ft.ReadRS(probe.RecordsPath(stream), url.Values{"connection_id": {conn}, "fields": {strings.Join(pick, ",")}, "limit": {"3"}}); !ok || status != 200 {
		return
	}
	c := ft.CallRoles("query_records", dialect.Args{dialect.Stream: stream, dialect.Connection: conn, dialect.Fields: pick, dialect.Limit: 3})
	if c.IsError() {
		return // refused: validated, not ignored
	}
	for _, ref := range probe.RecordsShown(ft, c, stream) {
		rec, _ := probe.FindRecord(ft, ref)
		v, _ := rec.Data[pick[1]].(string)
		if v == "" || strings.Contains(probe.String(rec.Data[pick[0]]), valueHead(v)) {
			continue
		}
		t.AssertWith(read.Find(c.Strings(), read.Text(valueHead(v))).Seen(), func() (conformance.Witness, error) {
			return conformance.Absent(read.Text(valueHead(v)), c)
		}, "query_records asked for fields %v shows record %s without its %s: the projection was accepted but not forwarded whole", pick, ref, pick[1])
		return
	}
}

// dateLikeRe is a value a layout may write as a date of its own.
var dateLikeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

func dateLike(v string) bool { return dateLikeRe.MatchString(v) }

// oneConnectionStream is a stream and one connection that holds at least
// n of its records.
func oneConnectionStream(fx *fakers.Fixture, n int) (string, string, bool) {
	for _, s := range fx.Streams {
		count := map[string]int{}
		for _, r := range s.Records {
			count[r.ConnectionID]++
		}
		for _, r := range s.Records {
			if count[r.ConnectionID] >= n {
				return s.Name, r.ConnectionID, true
			}
		}
	}
	return "", "", false
}

// rsRecordIDs are the record ids of the RS's answer to GET path?q.
func rsRecordIDs(t *T, path string, q url.Values) []string {
	status, body, ok := t.ReadRS(path, q)
	if !ok || status != 200 {
		return nil
	}
	var env struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &env) != nil {
		return nil
	}
	var ids []string
	for _, d := range env.Data {
		ids = append(ids, d.ID)
	}
	return ids
}

// judgeFirstRecord judges one argument of query_records: with it, the RS
// answers a page whose first record differs from the page without it; the
// target's answer must show that record.
func judgeFirstRecord(t, ft *T, path string, base, with url.Values, args dialect.Args, what string) {
	q := url.Values{}
	for k, v := range base {
		q[k] = v
	}
	for k, v := range with {
		q[k] = v
	}
	plain, withArg := rsRecordIDs(ft, path, base), rsRecordIDs(ft, path, q)
	if len(withArg) == 0 || len(plain) == 0 || slices.Contains(plain, withArg[0]) {
		return // the argument changes nothing a first record shows
	}
	c := ft.CallRoles("query_records", args)
	if c.IsError() {
		return // refused: validated, not ignored
	}
	want := withArg[0]
	t.AssertWith(read.Find(c.Strings(), read.Text(want)).Exact, func() (conformance.Witness, error) {
		w, err := conformance.Absent(read.Text(want), c)
		w.In = append(w.In, fmt.Sprintf("while the RS answers the same read with %s first (and, without %s, with %s)", want, what, plain[0]))
		return w, err
	}, "query_records with %s must forward it: the RS's page starts with %s, which the answer does not show", what, want)
}

// judgeFilter judges query_records' filter by value: filtered on an
// exact field to a value some of the source's records hold and some do
// not, an answer (the RS may refuse the filter instead) must show no
// record the filter excludes.
func judgeFilter(t, ft *T) {
	if !ft.HasRole("query_records", dialect.Filter) {
		return
	}
	f, ok, _ := findFilterable(ft)
	if !ok {
		return
	}
	// The value most records of the source hold, short of all of them.
	var value any
	var recs, others []probe.FixtureRecord
	held := map[string]int{}
	for _, r := range probe.FixtureRecords(ft) {
		if r.Ref.Stream == f.src.Stream && (f.src.Conn == "" || r.Ref.Conn == f.src.Conn) {
			recs = append(recs, r)
			if v, has := r.Data[f.eq]; has {
				held[fmt.Sprint(v)]++
			}
		}
	}
	for _, r := range recs {
		if v, has := r.Data[f.eq]; has && held[fmt.Sprint(v)] < len(recs) && (value == nil || held[fmt.Sprint(v)] > held[fmt.Sprint(value)]) {
			value = v
		}
	}
	for _, r := range recs {
		if fmt.Sprint(r.Data[f.eq]) != fmt.Sprint(value) {
			others = append(others, r)
		}
	}
	if value == nil || len(others) == 0 {
		return
	}
	c := ft.CallRoles("query_records", f.src.Roles(dialect.Args{dialect.Filter: map[string]any{f.eq: value}, dialect.Limit: 5}))
	if c.IsError() {
		return // refused, by the adapter or the RS: not ignored
	}
	for _, ref := range probe.RecordsShown(ft, c, f.src.Stream) {
		if !slices.ContainsFunc(others, func(o probe.FixtureRecord) bool { return o.Ref == ref }) {
			continue
		}
		rec, _ := probe.FindRecord(ft, ref)
		t.AssertWith(false, func() (conformance.Witness, error) {
			w, err := conformance.Present(ref.ID, c)
			w.Fact = fmt.Sprintf("record %s, whose %s is %s", ref.ID, f.eq, clipText(fmt.Sprint(rec.Data[f.eq]), 60))
			return w, err
		}, "query_records filtered to %s=%s shows record %s, whose %s is %s: the filter was accepted but not applied", f.eq, clipText(fmt.Sprint(value), 60), ref, f.eq, clipText(fmt.Sprint(rec.Data[f.eq]), 60))
		return
	}
}

// judgeSearchStreams judges search's streams argument: a word the
// fixture holds in lexical fields of two streams, searched in one of them,
// shows no hit of the other.
func judgeSearchStreams(t, ft *T, fx *fakers.Fixture) {
	if !ft.HasRole("search", dialect.Streams) || !ft.HasRole("search", dialect.Query) {
		return
	}
	term, only, ok := twoStreamWord(fx)
	if !ok {
		return
	}
	judgeSearchBothStreams(t, ft, fx)
	r := ft.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Streams: []string{only}, dialect.Limit: 10})
	if r.IsError() {
		return
	}
	for _, h := range probe.Hits(ft, r) {
		if h.Ref.Stream == only {
			continue
		}
		t.AssertWith(false, func() (conformance.Witness, error) {
			w, err := conformance.Present(h.Ref.ID, r)
			w.Fact = fmt.Sprintf("record %s of stream %s", h.Ref.ID, h.Ref.Stream)
			return w, err
		}, "search for %q restricted to streams [%s] shows a hit of stream %s: the restriction was not applied", term, only, h.Ref.Stream)
		return
	}
}

// judgeSearchBothStreams judges search's streams argument with two
// streams: for a word of two streams whose hits the RS's answer to the
// search restricted to both holds within ten, the answer must show a hit
// of each, not of the first stream alone.
func judgeSearchBothStreams(t, ft *T, fx *fakers.Fixture) {
	for i, c := range streamWords(fx) {
		if i == 12 {
			return
		}
		status, body, ok := ft.ReadRS("/v1/search", url.Values{rsSearchText: {c.word}, "streams": c.streams, "limit": {"10"}})
		var env struct {
			Data []struct {
				Stream    string `json:"stream"`
				RecordKey string `json:"record_key"`
			} `json:"data"`
		}
		if !ok || status != 200 || json.Unmarshal(body, &env) != nil {
			continue
		}
		firstOf := map[string]string{}
		for _, h := range env.Data {
			if firstOf[h.Stream] == "" {
				firstOf[h.Stream] = h.RecordKey
			}
		}
		if firstOf[c.streams[0]] == "" || firstOf[c.streams[1]] == "" {
			continue
		}
		r := ft.CallRoles("search", dialect.Args{dialect.Query: c.word, dialect.Streams: c.streams, dialect.Limit: 10})
		if r.IsError() {
			return
		}
		for _, name := range c.streams {
			if !slices.ContainsFunc(probe.Hits(ft, r), func(h probe.Hit) bool { return h.Ref.Stream == name }) {
				t.AssertWith(false, func() (conformance.Witness, error) {
					w, err := conformance.Absent(read.Text(firstOf[name]), r)
					w.In = append(w.In, fmt.Sprintf("while the RS's answer to the same search has %s of %s", firstOf[name], name))
					return w, err
				}, "search for %q restricted to streams %v shows no hit of %s, which the RS's answer to the same search has: the streams were accepted but not all forwarded", c.word, c.streams, name)
				return
			}
		}
		return
	}
}

// A streamWord is a word (of six letters or more) that lexical fields of
// two streams hold, with those streams.
type streamWord struct {
	word    string
	streams []string
}

// streamWords are the fixture's words of two streams or more, each with
// the first two streams by name, in the words' order.
func streamWords(fx *fakers.Fixture) []streamWord {
	in := map[string]map[string]bool{}
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !f.Lexical {
				continue
			}
			for _, r := range s.Records {
				v, _ := r.Data[f.Name].(string)
				for _, w := range probe.Words(strings.ToLower(v)) {
					if len(w) >= 6 {
						if in[w] == nil {
							in[w] = map[string]bool{}
						}
						in[w][s.Name] = true
					}
				}
			}
		}
	}
	var out []streamWord
	for _, w := range slices.Sorted(maps.Keys(in)) {
		if len(in[w]) >= 2 {
			out = append(out, streamWord{w, slices.Sorted(maps.Keys(in[w]))[:2]})
		}
	}
	return out
}

// twoStreamWord is a word (of six letters or more) that lexical fields of
// two streams hold, and the first of those streams by name.
func twoStreamWord(fx *fakers.Fixture) (string, string, bool) {
	if ws := streamWords(fx); len(ws) > 0 {
		return ws[0].word, ws[0].streams[0], true
	}
	return "", "", false
}
