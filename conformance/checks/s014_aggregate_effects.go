package checks

// S014.1's argument effects on aggregate: grouping, metric and granularity.

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

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
			// Contrast first: the same count not grouped, which the RS
			// answers with one total (its largest group and the groups cut
			// off together), must read differently.
			flat := maps.Clone(args)
			delete(flat, dialect.GroupBy)
			delete(flat, dialect.Limit) // the RS takes a limit for groups only
			if whole := ft.CallRoles("aggregate", flat); !whole.IsError() && !t.DiffersInValues(whole, c, append(slices.Clone(content), f.Name),
				"aggregate count of %s grouped by %s (limit 1) reads the same as the count not grouped, while the RS's largest group counts %d of %d: the group_by must be forwarded", s.Name, f.Name, group, group+other) {
				return
			}
			// The largest group's count shows the grouping applied; the
			// count of the groups cut off is a state the answer reports
			// (S023, U09), not the argument's effect.
			if !slices.Contains(content, strconv.Itoa(group)) {
				t.Shows(conformance.WithoutContent(c, content), read.Number(group), "aggregate count of %s grouped by %s (limit 1) must show the RS's answer: its largest group counts %d", s.Name, f.Name, group)
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
