package checks

import (
	"encoding/json"
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

// sentToRS reports whether an RS request the target made after the
// first `before` of the log carried param=value: forwarded, whatever the
// answer shows.
func sentToRS(ft *T, before int, param, value string) bool {
	reqs := ft.RS().Requests()
	for _, r := range reqs[min(before, len(reqs)):] {
		if r.Query.Get(param) == value {
			return true
		}
	}
	return false
}

// shownPiece witnesses a piece of a field that a read shows where it
// must not (what, said of the piece).
func shownPiece(c *Call, piece, what string) conformance.Witness {
	return conformance.Witness{Kind: conformance.WitnessPresent, Fact: what, In: []string{c.Describe()}, Excerpt: read.Find(c.Strings(), read.Text(piece)).Excerpt}
}

// judgeMatchContext judges read_record_field's context around a match: a
// read asked for a word of a long field with 20 characters of context on
// either side, which the RS's before_chars and after_chars serve, must not
// show the field's text well after the match (200..240 characters past it).
func judgeMatchContext(t, ft *T) {
	if !ft.HasRole("read_record_field", dialect.Query) || !ft.HasRole("read_record_field", dialect.Before) || !ft.HasRole("read_record_field", dialect.After) {
		return
	}
	f, ok := probe.LongField(ft)
	full := []rune(f.Value)
	q, at := matchWord(full)
	from := at + len([]rune(q)) + 200
	if !ok || q == "" || from+40 > len(full) {
		return
	}
	past := distinctIn(full, from, min(len(full), from+120))
	if strings.Count(f.Value, past) != 1 {
		return
	}
	before := len(ft.RS().Requests())
	r := f.Read(ft, dialect.Args{dialect.Query: q, dialect.Before: 20, dialect.After: 20})
	if r.IsError() || !read.Find(r.Strings(), read.Text(past)).Seen() || sentToRS(ft, before, rsAfterChars, "20") {
		return // a context sent on is forwarded, whatever window size the adapter adds
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return shownPiece(r, past, fmt.Sprintf("%q, which %s holds 200 characters past the match of %q", past, f.Field, q)), nil
	}, "read_record_field asked for %q with 20 characters of context shows the field's text 200 characters past the match: the context was accepted but not applied", q)
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

// windowLength is the length judgeWindowLength asks a window for.
const windowLength = 200

// judgeWindowLength judges read_record_field's window length: a window
// asked for 200 characters of a long field, which the RS's limit_chars
// serves, must not show the field's text well past them (at 440..600).
func judgeWindowLength(t, ft *T) {
	if !ft.HasRole("read_record_field", dialect.Length) {
		return
	}
	f, ok := probe.LongField(ft)
	full := []rune(f.Value)
	if !ok || len(full) < 4*windowLength {
		return
	}
	past := distinctIn(full, 2*windowLength+40, 3*windowLength)
	if strings.Count(f.Value, past) != 1 {
		return
	}
	before := len(ft.RS().Requests())
	win := f.Read(ft, dialect.Args{dialect.Length: windowLength})
	if win.IsError() || !read.Find(win.Strings(), read.Text(past)).Seen() || sentToRS(ft, before, rsLimitChars, strconv.Itoa(windowLength)) {
		return
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return shownPiece(win, past, fmt.Sprintf("%q, which %s holds at %d..%d", past, f.Field, 2*windowLength+40, 3*windowLength)), nil
	}, "read_record_field asked for a %d-character window of %s shows the field's text at %d..%d: the window length was accepted but not applied", windowLength, f.Field, 2*windowLength+40, 3*windowLength)
}

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

// judgeGroupedCount judges aggregate's group_by: grouped by a field the
// fixture declares groupable, with limit 1, the answer must show the RS's
// largest group's count and, where the cut leaves records out, their
// count, each stated outside the fixture's values.
func judgeGroupedCount(t, ft *T, fx *fakers.Fixture, content []string) {
	if !probe.Serves(ft.Target, "aggregate") || !ft.HasRole("aggregate", dialect.GroupBy) || !ft.HasRole("aggregate", dialect.Metric) {
		return
	}
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !slices.Contains(f.Aggregate, "group_by") || len(s.Records) == 0 {
				continue
			}
			conn := s.Records[0].ConnectionID
			group, other, ok := rsLargestGroup(ft, s.Name, f.Name, conn)
			if !ok || group == other {
				continue // two equal counts are hard to tell apart in a text
			}
			args := dialect.Args{dialect.Stream: s.Name, dialect.Connection: conn, dialect.Metric: "count", dialect.GroupBy: f.Name}
			if ft.HasRole("aggregate", dialect.Limit) {
				args[dialect.Limit] = 1
			}
			c := ft.CallRoles("aggregate", args)
			if c.IsError() {
				return
			}
			shown := conformance.WithoutContent(c, content)
			msg := fmt.Sprintf("aggregate count of %s grouped by %s (limit 1) must show the RS's answer: its largest group counts %d and the groups cut off count %d", s.Name, f.Name, group, other)
			for _, n := range []int{group, other} {
				if slices.Contains(content, strconv.Itoa(n)) {
					continue
				}
				if !t.Shows(shown, read.Number(n), "%s", msg) {
					return
				}
			}
			return
		}
	}
}

// rsLargestGroup is the RS's count of stream's records of conn grouped by
// field with limit 1: its largest group's count and the count of the
// groups cut off; false when the RS gives no such cut.
func rsLargestGroup(on *T, stream, field, conn string) (group, other int, ok bool) {
	status, body, ok := on.ReadRS("/v1/streams/"+url.PathEscape(stream)+"/aggregate",
		url.Values{"connection_id": {conn}, "metric": {"count"}, "group_by": {field}, "limit": {"1"}})
	var agg struct {
		Groups []struct {
			Count int `json:"count"`
		} `json:"groups"`
		OtherCount int `json:"other_count"`
	}
	if !ok || status != 200 || json.Unmarshal(body, &agg) != nil || len(agg.Groups) != 1 || agg.OtherCount == 0 {
		return 0, 0, false
	}
	return agg.Groups[0].Count, agg.OtherCount, true
}

// judgeMetric judges aggregate's metric and field: the sum of a field
// the fixture declares summable must show the RS's sum, stated outside the
// fixture's values, where it differs from the count.
func judgeMetric(t, ft *T, fx *fakers.Fixture, content []string) {
	if !probe.Serves(ft.Target, "aggregate") || !ft.HasRole("aggregate", dialect.Metric) || !ft.HasRole("aggregate", dialect.Field) {
		return
	}
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !slices.Contains(f.Aggregate, "sum") || len(s.Records) == 0 {
				continue
			}
			conn := s.Records[0].ConnectionID
			path := "/v1/streams/" + url.PathEscape(s.Name) + "/aggregate"
			sum, count := rsAggregateValue(ft, path, url.Values{"connection_id": {conn}, "metric": {"sum"}, "field": {f.Name}}),
				rsAggregateValue(ft, path, url.Values{"connection_id": {conn}, "metric": {"count"}})
			if sum == "" || sum == count || slices.Contains(content, sum) {
				continue
			}
			c := ft.CallRoles("aggregate", dialect.Args{dialect.Stream: s.Name, dialect.Connection: conn, dialect.Metric: "sum", dialect.Field: f.Name})
			if c.IsError() {
				return // refused: validated, not ignored
			}
			t.Shows(conformance.WithoutContent(c, content), read.Text(sum),
				"aggregate sum of %s.%s must show the RS's sum %s (its count is %s): the metric and field must be forwarded", s.Name, f.Name, sum, count)
			return
		}
	}
}

// granularities are aggregate's bucket sizes judgeTimeBuckets contrasts,
// each with the next.
var granularities = []string{"day", "week", "month", "year"}

// judgeTimeBuckets judges aggregate's granularity by contrast: counts of
// a field the fixture declares time-groupable, by each granularity and
// the next coarser one, which the RS answers with different buckets, must
// read differently, the words of the granularity aside.
func judgeTimeBuckets(t, ft *T, fx *fakers.Fixture, content []string) {
	if !probe.Serves(ft.Target, "aggregate") || !ft.HasRole("aggregate", dialect.GroupByTime) || !ft.HasRole("aggregate", dialect.Granularity) {
		return
	}
	grans := slices.Clone(granularities)
	if enum := roleEnum(ft, "aggregate", dialect.Granularity); len(enum) > 0 {
		grans = slices.DeleteFunc(grans, func(g string) bool { return !slices.Contains(enum, g) })
	}
	echoes := slices.Clone(content)
	for _, g := range granularities {
		echoes = append(echoes, g, strings.ToUpper(g[:1])+g[1:], g+"s", g+"ly", strings.ToUpper(g[:1])+g[1:]+"ly")
	}
	echoes = append(echoes, "daily", "Daily")
	for _, s := range fx.Streams {
		for _, f := range s.Fields {
			if !slices.Contains(f.Aggregate, "group_by_time") || len(s.Records) == 0 {
				continue
			}
			conn := s.Records[0].ConnectionID
			buckets := func(gran string) string {
				status, body, ok := ft.ReadRS("/v1/streams/"+url.PathEscape(s.Name)+"/aggregate",
					url.Values{"connection_id": {conn}, "metric": {"count"}, "group_by_time": {f.Name}, "granularity": {gran}})
				var agg struct {
					Groups json.RawMessage `json:"groups"`
				}
				if !ok || status != 200 || json.Unmarshal(body, &agg) != nil {
					return ""
				}
				return string(agg.Groups)
			}
			answers := map[string]*Call{}
			call := func(gran string) *Call {
				if answers[gran] == nil {
					answers[gran] = ft.CallRoles("aggregate", dialect.Args{dialect.Stream: s.Name, dialect.Connection: conn, dialect.Metric: "count", dialect.GroupByTime: f.Name, dialect.Granularity: gran})
				}
				return answers[gran]
			}
			for i := 0; i+1 < len(grans); i++ {
				fine, coarse := grans[i], grans[i+1]
				if a, b := buckets(fine), buckets(coarse); a == "" || b == "" || a == b {
					continue
				}
				if call(fine).IsError() || call(coarse).IsError() {
					return // refused: validated, not ignored
				}
				if !t.DiffersInValues(call(fine), call(coarse), echoes,
					"aggregate counts of %s by %s per %s and per %s read the same, while the RS's buckets differ: the granularity must be forwarded", s.Name, f.Name, fine, coarse) {
					return
				}
			}
			return
		}
	}
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

// rsAggregateValue is the value of the RS's aggregate answer to path?q,
// as its JSON writes it; "" when the RS gives none.
func rsAggregateValue(t *T, path string, q url.Values) string {
	status, body, ok := t.ReadRS(path, q)
	var agg struct {
		Value json.RawMessage `json:"value"`
	}
	if !ok || status != 200 || json.Unmarshal(body, &agg) != nil || len(agg.Value) == 0 || string(agg.Value) == "null" {
		return ""
	}
	return string(agg.Value)
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
