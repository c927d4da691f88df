package checks

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// maxPreviewGroups is the bucket preview a grouped aggregate's text may show.
const maxPreviewGroups = 5

var (
	truncationSignalRe = regexp.MustCompile(`\b(more_groups|other_count)\b`)
	// manyGroups has one stream whose field_5 takes far more than five values.
	manyGroups = fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: 6, Records: 60}
)

// Answers are found in the text by value: the metric, stream, value, and
// each group key with its count next to it, however they are labelled.
var u09 = &Check{ID: "U09", Slug: "aggregate-text", Mode: ModeBBD, Tools: []string{"aggregate"}, Run: func(t *T) {
	t.Clause(4, func() {
		desc := ""
		for _, tool := range t.Target.Tools {
			if tool.Name == "aggregate" {
				desc = tool.Description
			}
		}
		t.Assert(strings.Contains(desc, "other_count"), "the aggregate description must name other_count as the signal that groups were cut: %q", desc)
	})
	index := probe.Grant(t)
	var (
		src             probe.Source
		groupBy, timeBy string
	)
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes || groupBy != "" {
			break
		}
		for _, r := range probe.RowsNamed(probe.SchemaRows(t.CallRoles("schema", s.Roles(nil)).Data()), s.Stream) {
			for _, name := range probe.FieldNames(r) {
				kinds := aggregationsOf(r.FieldCaps[name])
				if strings.Contains(kinds, "|group_by|") && groupBy == "" {
					src, groupBy = s, name
				}
				if strings.Contains(kinds, "|group_by_time|") && timeBy == "" {
					timeBy = name
				}
			}
		}
	}
	if groupBy == "" && t.Target.Has(CapControlledRS) {
		src, groupBy, timeBy = fixtureGroupBy(t)
	}
	if groupBy == "" {
		if truth, ok := probe.GrantTruth(t); ok && !declaresAggregation(truth, "group_by") {
			t.SkipFor(CapFixture, "no stream of the grant declares a group_by field, in the target's schema or in the RS's own /v1/schema; mcpcheck's fixture RS declares some")
		}
		t.Skipf("no stream in the target's grant shows a group_by field")
	}
	// The value and other_count judged are the RS's, from its answer to the
	// request the adapter made (probe.CallWithEnvelope), not the adapter's
	// report of them.
	path := "/v1/streams/" + url.PathEscape(src.Stream) + "/aggregate"
	scalar, scalarEnv := probe.CallWithEnvelope(t, "aggregate", src.Roles(dialect.Args{dialect.Metric: "count"}), path)
	t.Clause(1, func() {
		if !t.Assert(!scalar.IsError(), "aggregate count must succeed: %s", scalar.Describe()) {
			return
		}
		text := scalar.Text()
		t.Assert(probe.ContainsToken(text, "count"), "the text must name the metric count: %s", text)
		t.Assert(probe.ContainsToken(text, src.Stream), "the text must name the stream %q: %s", src.Stream, text)
		if v, ok := scalarEnv["value"]; ok {
			t.Assert(probe.ContainsToken(text, fmt.Sprint(v)), "the text must carry the value %v: %s", v, text)
		}
	})
	grouped, groupedEnv := probe.CallWithEnvelope(t, "aggregate", src.Roles(dialect.Args{dialect.Metric: "count", dialect.GroupBy: groupBy, dialect.Limit: 2}), path)
	if !grouped.IsError() {
		t.Clause(1, func() { expectGroupsShown(t, grouped, groupedEnv) })
		if oc, ok := groupedEnv["other_count"]; ok {
			t.Clause(2, func() {
				t.Assert(probe.ContainsToken(grouped.Text(), fmt.Sprint(oc)), "the envelope's other_count %v must be visible in the text: %s", oc, grouped.Text())
			})
		}
	}
	judgeTimeGroupsShown(t, src, timeBy, path)
	many, manyEnv := probe.CallWithEnvelope(t, "aggregate", src.Roles(dialect.Args{dialect.Metric: "count", dialect.GroupBy: groupBy, dialect.Limit: 20}), path)
	switch all, _ := manyEnv["groups"].([]any); {
	case !many.IsError() && len(all) > maxPreviewGroups:
		t.Clause(3, func() { expectBoundedBuckets(t, many, manyEnv) })
	case t.Target.Has(CapFixture):
		fx, err := fakers.Scale(manyGroups)
		if err != nil {
			t.Fatalf("build the many-groups fixture: %v", err)
		}
		fx.SpecClientReads = true
		wide := t.On(t.Fork(fx))
		c, env := probe.CallWithEnvelope(wide, "aggregate", dialect.Args{dialect.Stream: fx.Streams[0].Name, dialect.Metric: "count", dialect.GroupBy: "field_5", dialect.Limit: 20}, "/v1/streams/"+url.PathEscape(fx.Streams[0].Name)+"/aggregate")
		t.Clause(3, func() {
			if t.Assert(!c.IsError(), "a grouped aggregate over the many-groups fixture must succeed: %s", c.Describe()) {
				expectBoundedBuckets(t, c, env)
			}
		})
	default:
		t.Record("bucket preview", fmt.Sprintf("not exercised: stream %q has %d group(s), and %s", src.Stream, len(all), CapFixture.SkipReason()))
	}

	if timeBy == "" {
		timeBy = groupBy
	}
	on := t.Private()
	t.Clause(5, func() {
		for _, bad := range []struct {
			what, arg string
			args      dialect.Args
		}{
			{"group_by with group_by_time", "group_by", dialect.Args{dialect.GroupBy: groupBy, dialect.GroupByTime: timeBy, dialect.Granularity: "day"}},
			{"group_by_time without granularity", "granularity", dialect.Args{dialect.GroupByTime: timeBy}},
			{"granularity without group_by_time", "group_by_time", dialect.Args{dialect.Granularity: "day"}},
		} {
			bad.args[dialect.Metric] = "count"
			var before int64
			if on != t {
				if reqs := on.RS().Requests(); len(reqs) > 0 {
					before = reqs[len(reqs)-1].Seq
				}
			}
			c := on.CallRoles("aggregate", src.Roles(bad.args))
			t.Assert(probe.TypedRejection(c, bad.arg) || probe.TypedRejection(c, "group_by") || probe.TypedRejection(c, "granularity"),
				"%s must be rejected with a typed error: %s", bad.what, c.Describe())
			if on != t {
				sent := 0
				for _, r := range on.RS().Requests() {
					if r.Seq > before && strings.HasPrefix(r.Path, "/v1/streams/") {
						sent++
					}
				}
				t.Assert(sent == 0, "%s must be rejected before the RS: it served %d stream reads", bad.what, sent)
			}
		}
	})
}}

// aggregationsOf is a field capability's aggregations, "|"-delimited: from
// the RS's compact flags (a=group_by|max) or a full capability object.
// declaresAggregation says whether some field of rows declares the
// aggregation kind.
func declaresAggregation(rows []probe.SchemaRow, kind string) bool {
	for _, r := range rows {
		for _, name := range probe.FieldNames(r) {
			if strings.Contains(aggregationsOf(r.FieldCaps[name]), "|"+kind+"|") {
				return true
			}
		}
	}
	return false
}

func aggregationsOf(caps any) string {
	out := "|"
	for _, tok := range probe.FlagTokens(caps) {
		if kinds, ok := strings.CutPrefix(tok, "a="); ok {
			out += kinds + "|"
		}
	}
	if m, ok := caps.(map[string]any); ok {
		agg, _ := m["aggregation"].(map[string]any)
		for k, v := range agg {
			if vm, _ := v.(map[string]any); vm["usable"] == true || v == true {
				out += k + "|"
			}
		}
	}
	return out
}

// fixtureGroupBy is a source and field the fixture declares groupable
// (and a field it declares time-bucketable), where the target's schema
// text did not show one: the truth is mcpcheck's, whatever the target's
// notation.
func fixtureGroupBy(t *T) (src probe.Source, groupBy, timeBy string) {
	for _, s := range t.RS().Fixture().Streams {
		if len(s.Records) == 0 || !probe.InGrant(t, probe.RecordRef{Conn: s.Records[0].ConnectionID, Stream: s.Name, ID: s.Records[0].ID}) {
			continue
		}
		for _, f := range s.Fields {
			if slices.Contains(f.Aggregate, "group_by") && groupBy == "" {
				src, groupBy = probe.Source{Stream: s.Name, Conn: s.Records[0].ConnectionID}, f.Name
			}
			if slices.Contains(f.Aggregate, "group_by_time") && timeBy == "" && src.Stream == s.Name {
				timeBy = f.Name
			}
		}
		if groupBy != "" {
			return src, groupBy, timeBy
		}
	}
	return probe.Source{}, "", ""
}

// judgeTimeGroupsShown judges U09.1 on counts grouped by a time field at
// the finest granularity aggregate takes: the groups are the RS's answer
// to the request as the client made it (read by mcpcheck, not through the
// adapter), so a granularity changed on the way shows other keys.
func judgeTimeGroupsShown(t *T, src probe.Source, timeBy, path string) {
	if timeBy == "" || !t.HasRole("aggregate", dialect.GroupByTime) || !t.HasRole("aggregate", dialect.Granularity) {
		return
	}
	gran := "day"
	if enum := roleEnum(t, "aggregate", dialect.Granularity); len(enum) > 0 && !slices.Contains(enum, gran) {
		return
	}
	q := url.Values{"metric": {"count"}, "group_by_time": {timeBy}, "granularity": {gran}}
	if src.Conn != "" {
		q.Set("connection_id", src.Conn)
	}
	status, body, ok := t.ReadRS(path, q)
	var env map[string]any
	if !ok || status != 200 || json.Unmarshal(body, &env) != nil {
		return
	}
	if groups, _ := env["groups"].([]any); len(groups) == 0 {
		return
	}
	c := t.CallRoles("aggregate", src.Roles(dialect.Args{dialect.Metric: "count", dialect.GroupByTime: timeBy, dialect.Granularity: gran}))
	if c.IsError() {
		return // refused: U17 judges the pair
	}
	t.Clause(1, func() { expectGroupsShown(t, c, env) })
}

// expectGroupsShown judges U09.1 on a grouped answer, its groups the RS's
// (env): the text shows some
// group key with its count beside it, and no key without its count.
func expectGroupsShown(t *T, c *Call, env map[string]any) {
	text := c.Text()
	groups, _ := env["groups"].([]any)
	shown := 0
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		key, count := fmt.Sprint(gm["key"]), fmt.Sprint(gm["count"])
		if !probe.ContainsToken(text, key) {
			continue
		}
		shown++
		near := regexp.MustCompile(`(?:^|[^A-Za-z0-9_])` + regexp.QuoteMeta(key) + `(?:[^A-Za-z0-9_][^\n]{0,24}?)?[^A-Za-z0-9_.]` + regexp.QuoteMeta(count) + `(?:[^0-9]|$)`)
		t.Assert(near.MatchString(text), "the text shows group %q without its count %s next to it: %s", key, count, clipText(text, 600))
	}
	if len(groups) > 0 {
		t.Assert(shown > 0, "the text must preview the group keys with their counts: %s", clipText(text, 600))
	}
}

// expectBoundedBuckets judges U09.3 on a grouped answer with more than
// maxPreviewGroups groups: a bounded preview that says more exist.
func expectBoundedBuckets(t *T, c *Call, env map[string]any) {
	text := c.Text()
	all, _ := env["groups"].([]any)
	shown := 0
	for _, g := range all {
		gm, _ := g.(map[string]any)
		if k := fmt.Sprint(gm["key"]); k != "" && probe.ContainsToken(text, k) {
			shown++
		}
	}
	t.Record("aggregate groups returned / shown in text", fmt.Sprintf("%d / %d", len(all), shown))
	t.Assert(shown <= maxPreviewGroups, "the text must preview at most %d of %d groups, not %d:\n%s", maxPreviewGroups, len(all), shown, clipText(text, 800))
	t.Assert(shown > 0, "the text must preview some groups with their counts:\n%s", clipText(text, 800))
	oc, hasOC := env["other_count"]
	hidden := regexp.QuoteMeta(fmt.Sprint(len(all) - shown))
	moreRe := regexp.MustCompile(`(?i)\bmore\b[^\n]{0,24}?\b` + hidden + `\b|\b` + hidden + `\b[^\n]{0,24}?\bmore\b`)
	said := truncationSignalRe.MatchString(text) || moreRe.MatchString(text) || (hasOC && probe.ContainsToken(text, fmt.Sprint(oc)))
	t.Assert(said, "a cut preview must say more groups exist (more_groups, other_count, or how many are not shown):\n%s", clipText(text, 800))
}
