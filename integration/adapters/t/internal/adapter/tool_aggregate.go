package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
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
	Limit        *int            `json:"limit"`
	Filter       json.RawMessage `json:"filter"`
}

var aggregateAllowed = []string{"stream", "connection_id", "metric", "field", "group_by", "group_by_time", "granularity", "time_zone", "limit", "filter"}

func (a *Adapter) toolAggregate(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args aggregateArgs
	if e := decodeArgs(raw, aggregateAllowed, &args); e != nil {
		return nil, e
	}
	args.Stream = strings.TrimSpace(args.Stream)
	if args.Stream == "" {
		return nil, argErr("stream", "stream is required; call schema() for stream names")
	}
	switch args.Metric {
	case "count", "sum", "min", "max", "count_distinct":
	case "":
		return nil, argErr("metric", `metric is required: "count", "sum", "min", "max" or "count_distinct"`)
	default:
		return nil, argErr("metric", fmt.Sprintf("unsupported metric %q; use count, sum, min, max or count_distinct", args.Metric))
	}
	if args.GroupBy != "" && args.GroupByTime != "" {
		return nil, argErr("group_by", "use either group_by or group_by_time, not both")
	}
	if args.GroupByTime != "" && args.Granularity == "" {
		return nil, argErr("granularity", `group_by_time needs granularity ("day", "week", "month", …)`)
	}
	q := url.Values{}
	q.Set("metric", args.Metric)
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("connection_id", strings.TrimSpace(args.ConnectionID))
	set("field", args.Field)
	set("group_by", args.GroupBy)
	set("group_by_time", args.GroupByTime)
	set("granularity", args.Granularity)
	set("time_zone", args.TimeZone)
	if args.Limit != nil {
		if *args.Limit < 1 || *args.Limit > 100 {
			return nil, argErr("limit", "limit must be between 1 and 100")
		}
		if args.GroupBy == "" && args.GroupByTime == "" {
			return nil, argErr("limit", "limit applies only to grouped aggregates (group_by or group_by_time)")
		}
		q.Set("limit", strconv.Itoa(*args.Limit))
	}
	if e := encodeFilter(args.Filter, q); e != nil {
		return nil, e
	}
	resp, err := a.rs.Get(ctx, tok, streamPath(args.Stream)+"/aggregate", q)
	if err != nil {
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed aggregation")
	}
	return renderAggregate(args, body), nil
}

func renderAggregate(args aggregateArgs, body *ojson.Object) *mcp.CallToolResult {
	var b strings.Builder
	metric := body.Str("metric")
	if metric == "" {
		metric = args.Metric
	}
	desc := metric
	if f := body.Str("field"); f != "" {
		desc += "(" + f + ")"
	} else if args.Field != "" {
		desc += "(" + args.Field + ")"
	}
	fmt.Fprintf(&b, "aggregate %s · %s", args.Stream, desc)
	if gb := body.Str("group_by"); gb != "" {
		fmt.Fprintf(&b, " grouped by %s", gb)
	} else if gbt := body.Str("group_by_time"); gbt != "" {
		fmt.Fprintf(&b, " by %s of %s (%s)", body.Str("granularity"), gbt, nonEmpty(body.Str("time_zone"), "UTC"))
	}
	if args.ConnectionID != "" {
		fmt.Fprintf(&b, " · connection_id %s", args.ConnectionID)
	} else {
		b.WriteString(" · all granted connections of this stream")
	}
	b.WriteString("\n")
	if n, ok := body.Get("filtered_record_count"); ok {
		fmt.Fprintf(&b, "records considered: %v\n", n)
	}
	if ap, ok := body.Bool("approximate"); ok && ap {
		b.WriteString("approximate: true\n")
	}
	if groups := body.Arr("groups"); groups != nil || body.Has("groups") {
		if len(groups) == 0 {
			b.WriteString("no groups\n")
		}
		for _, g := range groups {
			go_, ok := g.(*ojson.Object)
			if !ok {
				continue
			}
			key := "(null)"
			if k, ok := go_.Get("key"); ok && k != nil {
				if s, ok := k.(string); ok {
					key = jsonStr(s)
				} else {
					key = compactJSON(k)
				}
			}
			val := ""
			for _, vk := range []string{"count", "value"} {
				if v, ok := go_.Get(vk); ok {
					val = fmt.Sprint(v)
					break
				}
			}
			fmt.Fprintf(&b, "- %s: %s\n", key, val)
		}
		if oc, ok := body.Get("other_count"); ok {
			fmt.Fprintf(&b, "other_count (beyond the top %v groups): %v\n", nonNil(body.M["limit"], "limit"), oc)
		} else if args.ConnectionID == "" {
			b.WriteString("other_count: not reported (fan-in over several connections); groups are merged and cut to the limit\n")
		}
	} else if v, ok := body.Get("value"); ok {
		if v == nil {
			fmt.Fprintf(&b, "value: null (no values)\n")
		} else {
			fmt.Fprintf(&b, "value: %s\n", compactJSON(v))
		}
	}
	if meta := body.Obj("meta"); meta != nil {
		for _, w := range meta.Arr("warnings") {
			if wo, ok := w.(*ojson.Object); ok {
				fmt.Fprintf(&b, "warning %s: %s\n", wo.Str("code"), wo.Str("message"))
			}
		}
	}
	sc := ojson.NewObject()
	for _, k := range body.Keys {
		if k == "links" {
			continue
		}
		if k == "meta" {
			if m := body.Obj("meta"); m != nil {
				if ws := m.Arr("warnings"); ws != nil {
					sc.Set("warnings", ws)
				}
			}
			continue
		}
		sc.Set(k, body.M[k])
	}
	if args.ConnectionID != "" && !sc.Has("connection_id") {
		sc.Set("connection_id", args.ConnectionID)
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

func nonEmpty(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func nonNil(v any, d string) any {
	if v == nil {
		return d
	}
	return v
}
