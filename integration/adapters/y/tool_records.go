package main

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

const (
	recordsTextBudget  = 14000 // visible chars for one page of records
	recordsValueChars  = 240   // per value in visible text
	structuredMaxChars = 4000  // per string value in structuredContent
)

// encodeFilter turns a typed filter object into filter[f]=v / filter[f][op]=v.
func encodeFilter(q url.Values, filter map[string]any) *ToolError {
	for _, f := range sortedKeys(filter) {
		v := filter[f]
		if f == "" {
			return argErr("filter", "filter field names must be non-empty")
		}
		if m, ok := v.(map[string]any); ok {
			if len(m) == 0 {
				return argErr("filter", fmt.Sprintf("filter.%s is an empty object", f))
			}
			for _, op := range sortedKeys(m) {
				switch op {
				case "gte", "gt", "lte", "lt":
				case "eq":
					s, ok := scalarString(m[op])
					if !ok {
						return argErr("filter", fmt.Sprintf("filter.%s.eq must be a string, number or boolean", f))
					}
					q.Set("filter["+f+"]", s)
					continue
				default:
					return argErr("filter", fmt.Sprintf("filter.%s: unknown operator %q (use gte, gt, lte, lt, or a plain value for equality)", f, op))
				}
				s, ok := scalarString(m[op])
				if !ok {
					return argErr("filter", fmt.Sprintf("filter.%s.%s must be a string or number", f, op))
				}
				q.Set("filter["+f+"]["+op+"]", s)
			}
			continue
		}
		s, ok := scalarString(v)
		if !ok {
			return argErr("filter", fmt.Sprintf("filter.%s must be a string, number, boolean, or an operator object like {\"gte\": ...}", f))
		}
		q.Set("filter["+f+"]", s)
	}
	return nil
}

// gateExpand rejects expand on streams whose live schema advertises no
// expand_capabilities. Fails open when the schema cannot be read or the stream is unknown.
func (t *toolCtx) gateExpand(stream, conn string, expand []string, expandLimit map[string]any, q url.Values) *ToolError {
	if len(expand) == 0 && len(expandLimit) == 0 {
		return nil
	}
	sq := url.Values{"stream": {stream}}
	if conn != "" {
		sq.Set("connection_id", conn)
	}
	doc, rerr := t.get("/v1/schema", sq) // live fetch every time: no caching
	if rerr == nil {
		rows := filterRowsByConn(rowsOf(doc, stream), conn)
		if len(rows) > 0 {
			advertised := false
			for _, r := range rows {
				if len(listOf(r.Stream["expand_capabilities"])) > 0 {
					advertised = true
				}
			}
			if !advertised {
				return newErr("invalid_expand", fmt.Sprintf("Stream %q advertises no expand relations (its expand_capabilities in GET /v1/schema is empty), so expand/expand_limit cannot be used. Check schema(stream) → expand relations.", stream),
					"param", "expand", "stream", stream, "capability_source", "GET /v1/schema (expand_capabilities)")
			}
		}
	}
	for _, e := range expand {
		q.Add("expand", e)
	}
	for _, rel := range sortedKeys(expandLimit) {
		s, ok := scalarString(expandLimit[rel])
		if !ok {
			return argErr("expand_limit", "expand_limit values must be integers")
		}
		q.Set("expand_limit["+rel+"]", s)
	}
	return nil
}

func (t *toolCtx) queryRecords(a args) (*toolOut, *ToolError) {
	if te := a.checkAllowed("stream", "connection_id", "fields", "filter", "sort", "order", "limit", "cursor", "changes_since", "count", "expand", "expand_limit"); te != nil {
		return nil, te
	}
	stream, te := a.reqStr("stream")
	if te != nil {
		return nil, te
	}
	conn, _ := a.str("connection_id")
	fields, te := a.strList("fields")
	if te != nil {
		return nil, te
	}
	filter, te := a.obj("filter")
	if te != nil {
		return nil, te
	}
	expand, te := a.strList("expand")
	if te != nil {
		return nil, te
	}
	expandLimit, te := a.obj("expand_limit")
	if te != nil {
		return nil, te
	}
	limit, hasLimit, te := a.intv("limit", 1, 100)
	if te != nil {
		return nil, te
	}
	count, te := a.boolv("count")
	if te != nil {
		return nil, te
	}
	q := url.Values{}
	for _, k := range []string{"sort", "order", "cursor", "changes_since"} {
		v, te := a.str(k)
		if te != nil {
			return nil, te
		}
		if v != "" {
			q.Set(k, v)
		}
	}
	if o := q.Get("order"); o != "" && o != "asc" && o != "desc" {
		return nil, argErr("order", `order must be "asc" or "desc"`)
	}
	if hasLimit {
		q.Set("limit", strconv.Itoa(limit))
	}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	for _, f := range fields {
		q.Add("fields", f)
	}
	if count {
		q.Set("count", "exact")
	}
	if filter != nil {
		if te := encodeFilter(q, filter); te != nil {
			return nil, te
		}
	}
	if te := t.gateExpand(stream, conn, expand, expandLimit, q); te != nil {
		return nil, te
	}
	doc, rerr := t.get(streamPath(stream, "records"), q)
	if rerr != nil {
		return nil, t.rsErr(rerr, stream)
	}
	return t.renderRecords(stream, conn, fields, doc), nil
}

func (t *toolCtx) renderRecords(stream, conn string, fields []string, doc map[string]any) *toolOut {
	data := listOf(doc["data"])
	meta := mapOf(doc["meta"])
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %d record(s)", stream, len(data))
	if conn != "" {
		fmt.Fprintf(&b, " from connection %s", conn)
	}
	b.WriteString("\n")
	var recs []any
	var conns []string
	used := 0
	omitted := 0
	for i, r := range data {
		rm := mapOf(r)
		if rm == nil {
			continue
		}
		id := str(rm["id"])
		rc := firstNonEmpty(str(rm["connection_id"]), str(rm["connector_instance_id"]), conn)
		conns = append(conns, firstNonEmpty(rc, "(unknown)"))
		handle := makeHandle(rc, firstNonEmpty(str(rm["stream"]), stream), id)
		payload := project(mapOf(rm["data"]), fields)
		bounded, notes := boundStructured(handle, payload, structuredMaxChars)
		rec := map[string]any{"id": id, "stream": firstNonEmpty(str(rm["stream"]), stream), "handle": handle}
		for _, k := range []string{"connection_id", "display_name", "emitted_at", "deleted", "deleted_at"} {
			if v, ok := rm[k]; ok && v != nil {
				rec[k] = v
			}
		}
		if rc != "" {
			rec["connection_id"] = rc
		}
		if payload != nil {
			rec["data"] = bounded
		}
		if len(notes) > 0 {
			rec["truncated_fields"] = notes
		}
		if ex, ok := rm["expanded"]; ok {
			rec["expanded"] = ex
		}
		recs = append(recs, rec)
		// visible text
		if used > recordsTextBudget {
			omitted++
			continue
		}
		var rb strings.Builder
		fmt.Fprintf(&rb, "\n**%d. `%s`**", i+1, id)
		if rc != "" {
			fmt.Fprintf(&rb, " · connection %s", rc)
		}
		if d := str(rm["display_name"]); d != "" {
			fmt.Fprintf(&rb, " “%s”", d)
		}
		if e := str(rm["emitted_at"]); e != "" {
			fmt.Fprintf(&rb, " · emitted %s", e)
		}
		fmt.Fprintf(&rb, " · handle `%s`\n", handle)
		if d, _ := rm["deleted"].(bool); d {
			fmt.Fprintf(&rb, "- (deleted at %s)\n", str(rm["deleted_at"]))
		}
		for _, k := range sortedKeys(payload) {
			txt, _ := t.renderField(handle, k, payload[k], recordsValueChars)
			fmt.Fprintf(&rb, "- %s: %s\n", k, txt)
		}
		if ex := mapOf(rm["expanded"]); ex != nil {
			for _, rel := range sortedKeys(ex) {
				j := toJSON(ex[rel])
				if runeLen(j) > recordsValueChars {
					j = cutRunes(j, recordsValueChars) + "… ⟨cut; full value in structuredContent⟩"
				}
				fmt.Fprintf(&rb, "- expanded %s: %s\n", rel, j)
			}
		}
		used += rb.Len()
		b.WriteString(rb.String())
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n(%d more record(s) on this page are not shown in text to keep it bounded; they are in structuredContent.records — or request fewer fields / a smaller limit.)\n", omitted)
	}
	if len(data) == 0 {
		b.WriteString("\nNo records matched.\n")
	}
	out := map[string]any{"stream": stream, "records": recs, "has_more": doc["has_more"]}
	b.WriteString("\n---\n")
	if len(uniq(conns)) > 1 {
		fmt.Fprintf(&b, "Sources on this page: %s\n", strings.Join(countBy(conns), ", "))
	}
	hm, _ := doc["has_more"].(bool)
	fmt.Fprintf(&b, "has_more: %v\n", hm)
	if nc := str(doc["next_cursor"]); nc != "" {
		fmt.Fprintf(&b, "next_cursor: `%s` (pass as cursor with the same arguments for the next page)\n", nc)
		out["next_cursor"] = nc
	}
	if ncs := str(doc["next_changes_since"]); ncs != "" {
		fmt.Fprintf(&b, "next_changes_since: `%s` (pass as changes_since later to get only newer changes)\n", ncs)
		out["next_changes_since"] = ncs
	}
	if c := mapOf(meta["count"]); c != nil && str(c["kind"]) != "none" && str(c["kind"]) != "" {
		fmt.Fprintf(&b, "count: %s (%s)\n", str(c["value"]), str(c["kind"]))
		out["count"] = c
	}
	if w := mapOf(meta["window"]); w != nil {
		fmt.Fprintf(&b, "window: %s\n", toJSON(w))
		out["window"] = w
	}
	if ws := listOf(meta["warnings"]); len(ws) > 0 {
		out["warnings"] = ws
		for _, w := range ws {
			wm := mapOf(w)
			fmt.Fprintf(&b, "warning %s: %s\n", str(wm["code"]), str(wm["message"]))
		}
	}
	if fields != nil {
		out["fields"] = fields
		b.WriteString("(Projected: each record keeps only the requested fields in data; id, stream, connection_id, display_name, emitted_at and handle are identity/operational keys kept outside data.)\n")
	}
	return &toolOut{Text: b.String(), Structured: out}
}

func uniq(s []string) []string {
	m := map[string]bool{}
	var out []string
	for _, x := range s {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ---------- aggregate ----------

func (t *toolCtx) aggregate(a args) (*toolOut, *ToolError) {
	if te := a.checkAllowed("stream", "connection_id", "metric", "field", "group_by", "group_by_time", "granularity", "time_zone", "limit", "filter"); te != nil {
		return nil, te
	}
	stream, te := a.reqStr("stream")
	if te != nil {
		return nil, te
	}
	metric, te := a.reqStr("metric")
	if te != nil {
		return nil, te
	}
	switch metric {
	case "count", "sum", "min", "max", "count_distinct":
	default:
		return nil, argErr("metric", "metric must be one of count, sum, min, max, count_distinct")
	}
	q := url.Values{"metric": {metric}}
	for _, k := range []string{"connection_id", "field", "group_by", "group_by_time", "granularity", "time_zone"} {
		v, te := a.str(k)
		if te != nil {
			return nil, te
		}
		if v != "" {
			q.Set(k, v)
		}
	}
	if n, ok, te := a.intv("limit", 1, 100); te != nil {
		return nil, te
	} else if ok {
		q.Set("limit", strconv.Itoa(n))
	}
	filter, te := a.obj("filter")
	if te != nil {
		return nil, te
	}
	if filter != nil {
		if te := encodeFilter(q, filter); te != nil {
			return nil, te
		}
	}
	doc, rerr := t.get(streamPath(stream, "aggregate"), q)
	if rerr != nil {
		return nil, t.rsErr(rerr, stream)
	}
	out := map[string]any{}
	for k, v := range doc {
		if k != "links" && k != "object" {
			out[k] = v
		}
	}
	var b strings.Builder
	label := metric
	if f := str(doc["field"]); f != "" {
		label += "(" + f + ")"
	}
	fmt.Fprintf(&b, "# Aggregate %s on `%s`", label, stream)
	if c := q.Get("connection_id"); c != "" {
		fmt.Fprintf(&b, " · connection %s", c)
	}
	b.WriteString("\n")
	if frc := str(doc["filtered_record_count"]); frc != "" {
		fmt.Fprintf(&b, "Records considered: %s\n", frc)
	}
	if groups := listOf(doc["groups"]); groups != nil {
		by := firstNonEmpty(str(doc["group_by"]), str(doc["group_by_time"]))
		if g := str(doc["granularity"]); g != "" {
			by += " per " + g
			if tz := str(doc["time_zone"]); tz != "" {
				by += " (" + tz + ")"
			}
		}
		fmt.Fprintf(&b, "\n| %s | %s |\n|---|---|\n", mdCell(firstNonEmpty(by, "group")), metric)
		for _, g := range groups {
			gm := mapOf(g)
			key := "(null)"
			if gm["key"] != nil {
				key = firstNonEmpty(str(gm["key"]), toJSON(gm["key"]))
			}
			val := firstNonEmpty(str(gm[metric]), str(gm["count"]), str(gm["value"]))
			fmt.Fprintf(&b, "| %s | %s |\n", mdCell(key), val)
		}
		if oc, ok := doc["other_count"]; ok {
			fmt.Fprintf(&b, "\nOther (beyond limit): %s\n", str(oc))
		} else {
			b.WriteString("\n(other_count not reported; groups beyond the limit may exist — raise limit to see more.)\n")
		}
	} else {
		v := "null"
		if doc["value"] != nil {
			v = firstNonEmpty(str(doc["value"]), toJSON(doc["value"]))
		}
		fmt.Fprintf(&b, "Value: **%s**\n", v)
	}
	if ap, _ := doc["approximate"].(bool); ap {
		b.WriteString("(approximate)\n")
	}
	for _, w := range listOf(mapOf(doc["meta"])["warnings"]) {
		wm := mapOf(w)
		fmt.Fprintf(&b, "warning %s: %s\n", str(wm["code"]), str(wm["message"]))
	}
	return &toolOut{Text: b.String(), Structured: out}, nil
}

var _ = sort.Strings
