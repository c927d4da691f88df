package fakers

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"
	_ "time/tzdata" // IANA zones for time_zone, even where the OS has none
)

var aggregateParams = map[string]bool{"connection_id": true, "connector_id": true, "connector_instance_id": true, "field": true, "filter": true,
	"granularity": true, "group_by": true, "group_by_time": true, "limit": true, "metric": true, "subject_id": true, "time_zone": true}

// badMetric is the reference RS's text for a missing or unknown metric.
const badMetric = "metric must be one of count, sum, min, max, count_distinct"

var granularities = map[string]bool{"minute": true, "hour": true, "day": true, "week": true, "month": true, "quarter": true, "year": true}

// aggregate serves count/sum/min/max/count_distinct, optionally grouped by a
// field or a time bucket (docs/RS-CONTRACT.md §9).
func (rs *RS) aggregate(r *request) (int, any) {
	if e := rejectClientQueries(r); e != nil {
		return 0, e
	}
	if e := unsupportedParams(r, aggregateParams); e != nil {
		return 0, e
	}
	sl, e := scope(r)
	if e != nil {
		return 0, e
	}
	s := sl[0].s
	if s.NoAggregations {
		// Implementation, not spec: 400, not 404 (docs/RS-CONTRACT.md §15 #10).
		return 0, errf("invalid_request", "", "Aggregations are not declared for stream '"+s.Name+"'")
	}
	metric, field, groupBy, groupTime, gran, tz := r.q.Get("metric"), r.q.Get("field"), r.q.Get("group_by"), r.q.Get("group_by_time"), r.q.Get("granularity"), r.q.Get("time_zone")
	declared := func(op, f string) bool { fd := s.Field(f); return fd != nil && slices.Contains(fd.Aggregate, op) }
	undeclared := func(param, op, f string) *apiError {
		return errf("invalid_request", param, fmt.Sprintf("field '%s' is not declared for %s", f, op)).
			asReference("", "Aggregation "+op+" is not declared for '"+f+"'")
	}
	if r.fx.RealRS && metric == "count" && field != "" { // the reference RS checks this before the field exists
		return 0, errf("invalid_request", "field", "metric=count takes no field").asReference("", "field is not supported for count")
	}
	for _, f := range []string{field, groupBy, groupTime} {
		if f == "" {
			continue
		}
		if s.Field(f) == nil {
			return 0, errf("unknown_field", "field", "Unknown field: "+f).asReference("", "Unknown field: "+f)
		}
		if !r.grantedField(s.Name, f) {
			return 0, errf("field_not_granted", "field", "Fields not in grant: "+f)
		}
	}
	switch {
	case metric == "":
		return 0, errf("invalid_request", "metric", "metric is required").asReference("", badMetric)
	case metric != "count" && metric != "sum" && metric != "min" && metric != "max" && metric != "count_distinct":
		return 0, errf("invalid_request", "metric", "metric must be count, sum, min, max or count_distinct").asReference("", badMetric)
	case metric == "count" && field != "":
		return 0, errf("invalid_request", "field", "metric=count takes no field").asReference("", "field is not supported for count")
	case metric != "count" && field == "":
		return 0, errf("invalid_request", "field", "metric="+metric+" needs field").asReference("", "field is required for "+metric)
	case metric != "count" && !declared(metric, field):
		return 0, undeclared("field", metric, field)
	case groupBy != "" && groupTime != "":
		return 0, errf("invalid_request", "group_by", "group_by and group_by_time are mutually exclusive").
			asReference("", "group_by and group_by_time cannot be combined; choose one grouping dimension")
	case (groupBy != "" || groupTime != "") && metric != "count":
		return 0, errf("invalid_request", "metric", "group_by and group_by_time are only valid with metric=count").
			asReference("", metric+" does not support grouping; group_by and group_by_time are only valid with metric=count")
	case groupBy != "" && !declared("group_by", groupBy):
		return 0, undeclared("group_by", "group_by", groupBy)
	case groupTime != "" && !declared("group_by_time", groupTime):
		return 0, undeclared("group_by_time", "group_by_time", groupTime)
	case groupTime != "" && gran == "":
		return 0, errf("invalid_request", "granularity", "group_by_time needs granularity").asReference("", "granularity is required when group_by_time is present")
	case groupTime == "" && gran != "":
		return 0, errf("invalid_request", "granularity", "granularity needs group_by_time").asReference("", "granularity is only supported with group_by_time")
	case gran != "" && !granularities[gran]:
		return 0, errf("invalid_request", "granularity", "granularity must be minute, hour, day, week, month, quarter or year").
			asReference("", "granularity must be one of minute, hour, day, week, month, quarter, year")
	case tz != "" && groupTime == "":
		return 0, errf("invalid_request", "time_zone", "time_zone needs group_by_time").asReference("", "time_zone is only supported with group_by_time")
	case metric == "count_distinct" && len(sl) > 1:
		return 0, errf("invalid_request", "", "count_distinct across multiple connections is not supported; scope with connection_id")
	}
	loc := time.UTC
	if tz != "" {
		var err error
		if loc, err = time.LoadLocation(tz); err != nil {
			return 0, errf("invalid_request", "time_zone", "Unknown time_zone: '"+tz+"'").asReference("", "Unknown time_zone: '"+tz+"'")
		}
	}
	filters, e := parseFilters(r, s.Name)
	if e != nil {
		return 0, e
	}
	var recs []Record
	for _, x := range sl {
		recs = append(recs, filterRecords(r.rs.sortedRecords(x.s, x.conn.ID, "asc"), filters)...)
	}
	body := map[string]any{"object": "aggregation", "stream": s.Name, "metric": metric, "field": nilIfEmpty(field), "group_by": nilIfEmpty(groupBy),
		"group_by_time": nilIfEmpty(groupTime), "granularity": nilIfEmpty(gran), "time_zone": nil, "approximate": false, "filtered_record_count": len(recs)}
	if groupBy == "" && groupTime == "" {
		if r.q.Get("limit") != "" {
			return 0, errf("invalid_request", "limit", "limit applies to grouped aggregates only").asReference("", "limit is only supported with group_by or group_by_time")
		}
		body["value"] = scalarAggregate(metric, field, recs)
		return http.StatusOK, body
	}
	limit := 10
	if v := r.q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return 0, errf("invalid_request", "limit", "limit must be an integer from 1 to 100").asReference("", "limit must be an integer between 1 and 100")
		}
		limit = n
	}
	counts := map[any]int{}
	for _, rec := range recs {
		var k any = rec.Data[groupBy]
		if groupTime != "" {
			k = bucket(fmt.Sprint(rec.Data[groupTime]), gran, loc)
			body["time_zone"] = loc.String()
		}
		counts[k]++
	}
	keys := slices.Collect(maps.Keys(counts))
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if groupTime != "" { // ascending buckets, null last
			if a == nil || b == nil {
				return b == nil && a != nil
			}
			return a.(string) < b.(string)
		}
		if counts[a] != counts[b] {
			return counts[a] > counts[b]
		}
		return fmt.Sprint(a) < fmt.Sprint(b)
	})
	groups, other := []any{}, 0
	for i, k := range keys {
		if i < limit {
			groups = append(groups, map[string]any{"key": k, "count": counts[k]})
		} else {
			other += counts[k]
		}
	}
	body["limit"], body["groups"] = limit, groups
	if len(sl) == 1 { // implementation, not spec: omitted under fan-in (docs/RS-CONTRACT.md §15 #12)
		body["other_count"] = other
	}
	return http.StatusOK, body
}

// bucket is a time key in loc, or nil when the value is not a timestamp.
func bucket(ts, granularity string, loc *time.Location) any {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return nil
	}
	t = t.In(loc)
	switch granularity {
	case "minute":
		return t.Format("2006-01-02T15:04")
	case "hour":
		return t.Format("2006-01-02T15:00")
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		return t.AddDate(0, 0, -wd).Format("2006-01-02")
	case "month":
		return t.Format("2006-01") + "-01"
	case "quarter":
		return fmt.Sprintf("%d-%02d-01", t.Year(), (int(t.Month())-1)/3*3+1)
	case "year":
		return t.Format("2006") + "-01-01"
	}
	return t.Format("2006-01-02")
}

func scalarAggregate(metric, field string, recs []Record) any {
	switch metric {
	case "count":
		return len(recs)
	case "count_distinct":
		seen := map[string]bool{}
		for _, r := range recs {
			if v, ok := r.Data[field]; ok && v != nil {
				seen[fmt.Sprint(v)] = true
			}
		}
		return len(seen)
	}
	var vals []any
	for _, r := range recs {
		if v, ok := r.Data[field]; ok && v != nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	if metric == "sum" {
		sum := 0.0
		for _, v := range vals {
			f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
			sum += f
		}
		return sum
	}
	best := vals[0]
	for _, v := range vals[1:] {
		c := compare(fmt.Sprint(v), fmt.Sprint(best), true)
		if (metric == "min" && c < 0) || (metric == "max" && c > 0) {
			best = v
		}
	}
	return best
}
