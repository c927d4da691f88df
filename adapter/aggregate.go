package adapter

// The aggregate tool: numbers over one stream, never record bodies.

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

type aggregateArgs struct {
	Stream       string          `json:"stream"`
	ConnectionID string          `json:"connection_id"`
	Metric       string          `json:"metric"`
	Field        string          `json:"field"`
	GroupBy      string          `json:"group_by"`
	GroupByTime  string          `json:"group_by_time"`
	Granularity  string          `json:"granularity"`
	TimeZone     string          `json:"time_zone"`
	Limit        int             `json:"limit"`
	Filter       json.RawMessage `json:"filter"`
}

func (c *call) aggregate(in aggregateArgs) (*mcp.CallToolResult, error) {
	path, err := streamPath(in.Stream, "aggregate")
	if err != nil {
		return nil, err
	}
	if in.GroupBy != "" && in.GroupByTime != "" {
		return nil, &toolError{Code: "invalid_request", Param: "group_by", Message: "pass group_by or group_by_time, not both"}
	}
	if (in.GroupByTime != "") != (in.Granularity != "") {
		return nil, &toolError{Code: "invalid_request", Param: "granularity", Message: "group_by_time and granularity go together"}
	}
	// The RS refuses a distinct count across connections: it needs one
	// source, so it gets seed 001's typed ambiguity error, as reads do.
	if in.Metric == "count_distinct" {
		if err := c.requireSource(in.Stream, in.ConnectionID); err != nil {
			return nil, err
		}
	}
	q := url.Values{"metric": {in.Metric}}
	if err := encodeFilter(q, in.Filter); err != nil {
		return nil, err
	}
	setIf(q, "connection_id", in.ConnectionID)
	setIf(q, "field", in.Field)
	setIf(q, "group_by", in.GroupBy)
	setIf(q, "group_by_time", in.GroupByTime)
	setIf(q, "granularity", in.Granularity)
	setIf(q, "time_zone", in.TimeZone)
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	body, reqID, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	var agg aggregation
	_ = json.Unmarshal(body, &agg)
	return textResult(renderAggregate(in.Stream, &agg, c.t), map[string]any{"data": body, "request_id": reqID}), nil
}

func renderAggregate(stream string, a *aggregation, t *Tuning) string {
	head := a.Metric + "(" + stream + ")"
	if a.Field != nil && *a.Field != "" {
		head += " field=" + *a.Field
	}
	if a.GroupBy == nil && a.GroupByTime == nil {
		return head + " = " + strings.Trim(string(a.Value), `"`) + ". canonical envelope in structuredContent.data"
	}
	var b strings.Builder
	b.WriteString(head)
	if a.GroupBy != nil {
		fmt.Fprintf(&b, " group_by=%s", q(*a.GroupBy))
	} else {
		fmt.Fprintf(&b, " group_by_time=%s granularity=%s", q(*a.GroupByTime), q(deref(a.Granularity)))
		if a.TimeZone != nil {
			fmt.Fprintf(&b, " time_zone=%s", q(*a.TimeZone))
		}
	}
	fmt.Fprintf(&b, ": %d group(s)", len(a.Groups))
	var parts []string
	shown := t.AggregateGroups
	for _, g := range a.Groups[:min(shown, len(a.Groups))] {
		parts = append(parts, ellipsis(t.Ellipsis).clip(string(g.Key), 40)+"="+string(g.Count))
	}
	if len(parts) > 0 {
		b.WriteString(" [" + strings.Join(parts, ", ") + "]")
	}
	if len(a.Groups) > shown {
		fmt.Fprintf(&b, " more_groups=%d;", len(a.Groups)-shown)
	}
	if a.OtherCount != nil {
		fmt.Fprintf(&b, " other_count=%s;", a.OtherCount.String())
	}
	b.WriteString(" canonical envelope in structuredContent.data")
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
