package main

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

const maxDetailedIndexRows = 60
const maxFullSchemaBytes = 200_000

func (t *toolCtx) schema(a args) (*toolOut, *ToolError) {
	if te := a.checkAllowed("stream", "connection_id", "detail"); te != nil {
		return nil, te
	}
	stream, te := a.str("stream")
	if te != nil {
		return nil, te
	}
	conn, te := a.str("connection_id")
	if te != nil {
		return nil, te
	}
	detail, te := a.str("detail")
	if te != nil {
		return nil, te
	}
	detail = strings.ToLower(detail)
	if detail != "" && detail != "compact" && detail != "full" {
		return nil, argErr("detail", `detail must be "compact" or "full".`)
	}
	if detail == "full" && stream == "" {
		return nil, newErr("invalid_request", `detail "full" needs a stream: the grant-wide exhaustive schema is not served. Call schema() for the index, then schema(stream, connection_id, detail: "full").`,
			"param", "detail", "retry_with", "stream")
	}
	switch {
	case stream == "":
		return t.schemaIndex(conn)
	case detail == "full":
		return t.schemaFull(stream, conn)
	default:
		return t.schemaStream(stream, conn)
	}
}

// ---------- global index ----------

func (t *toolCtx) schemaIndex(conn string) (*toolOut, *ToolError) {
	q := url.Values{"view": {"compact"}}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	doc, rerr := t.get("/v1/schema", q)
	if rerr != nil && rerr.Status == 400 {
		q.Del("view")
		doc, rerr = t.get("/v1/schema", q)
	}
	if rerr != nil {
		return nil, t.rsErr(rerr, "")
	}
	bearer := mapOf(doc["bearer"])
	type connGroup struct {
		key     string
		conns   []map[string]any
		streams []map[string]any
	}
	var groups []*connGroup
	byKey := map[string]*connGroup{}
	total := 0
	for _, r := range rowsOf(doc, "") {
		k := shortKey(connectorKey(r.Connector))
		g := byKey[k]
		if g == nil {
			g = &connGroup{key: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		cs := connectionsOf(r)
		var ids []string
		for _, c := range cs {
			ids = append(ids, str(c["connection_id"]))
			dup := false
			for _, e := range g.conns {
				if str(e["connection_id"]) == str(c["connection_id"]) {
					dup = true
				}
			}
			if !dup {
				e := map[string]any{"connection_id": c["connection_id"]}
				if d := str(c["display_name"]); d != "" {
					e["display_name"] = d
				}
				g.conns = append(g.conns, e)
			}
		}
		row := map[string]any{"name": str(r.Stream["name"]), "connection_ids": ids}
		if rc, ok := r.Stream["record_count"]; ok {
			row["record_count"] = rc
		}
		g.streams = append(g.streams, row)
		total++
	}
	var b strings.Builder
	b.WriteString("# PDPP schema index\n")
	if gid := str(bearer["grant_id"]); gid != "" {
		fmt.Fprintf(&b, "Grant `%s`", gid)
		if cid := str(bearer["client_id"]); cid != "" {
			fmt.Fprintf(&b, " (client %s)", cid)
		}
		b.WriteString(" · ")
	}
	fmt.Fprintf(&b, "%d connector(s) · %d stream row(s)\n", len(groups), total)
	b.WriteString("Next: call schema with {\"stream\": NAME} for fields, filters, sort and aggregations; add connection_id when a stream lists several connections.\n")
	if total == 0 {
		b.WriteString("\nNo streams are visible under this grant")
		if conn != "" {
			b.WriteString(" for connection_id " + conn)
		}
		b.WriteString(".\n")
	}
	shown := 0
	capped := false
	var sconns []any
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## Connector `%s`\n", g.key)
		var cl []string
		for _, c := range g.conns {
			cl = append(cl, connLabel(c))
		}
		if len(cl) > 0 {
			fmt.Fprintf(&b, "Connections: %s\n", strings.Join(cl, ", "))
		}
		var rest []string
		tableOpen := false
		for _, s := range g.streams {
			if shown >= maxDetailedIndexRows {
				capped = true
				rest = append(rest, str(s["name"]))
				delete(s, "connection_ids") // index-only beyond the cap, in structured output too
				delete(s, "record_count")
				continue
			}
			if !tableOpen {
				b.WriteString("| stream | records | connection_id(s) |\n|---|---|---|\n")
				tableOpen = true
			}
			rc := str(s["record_count"])
			if rc == "" {
				rc = "?"
			}
			ids, _ := s["connection_ids"].([]string)
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(str(s["name"])), rc, mdCell(strings.Join(ids, ", ")))
			shown++
		}
		if len(rest) > 0 {
			fmt.Fprintf(&b, "More streams (names only): %s\n", strings.Join(rest, ", "))
		}
		var ss []any
		for _, s := range g.streams {
			ss = append(ss, s)
		}
		sconns = append(sconns, map[string]any{"connector_key": g.key, "connections": g.conns, "streams": ss})
	}
	if capped {
		fmt.Fprintf(&b, "\n(Detailed rows capped at %d; every stream name is still listed above.)\n", maxDetailedIndexRows)
	}
	data := map[string]any{"object": "schema_index", "connector_count": len(groups), "stream_count": total, "connectors": sconns, "detailed_rows_capped": capped}
	if len(bearer) > 0 {
		data["bearer"] = bearer
	}
	return &toolOut{Text: b.String(), Structured: map[string]any{"data": data}}, nil
}

// ---------- stream-scoped compact detail ----------

func (t *toolCtx) schemaStream(stream, conn string) (*toolOut, *ToolError) {
	q := url.Values{"stream": {stream}}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	doc, rerr := t.get("/v1/schema", q)
	if rerr != nil {
		q.Set("view", "compact")
		var r2 *RSError
		if doc, r2 = t.get("/v1/schema", q); r2 != nil {
			return nil, t.rsErr(rerr, stream)
		}
	}
	rows := rowsOf(doc, stream)
	rows = filterRowsByConn(rows, conn)
	if len(rows) == 0 {
		msg := fmt.Sprintf("Stream %q is not visible under this grant", stream)
		if conn != "" {
			msg += " for connection_id " + conn
		}
		return nil, newErr("stream_not_found", msg+". Call schema() for the list of granted streams and connections.", "param", "stream")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Stream `%s`: %d source row(s)\n", stream, len(rows))
	if len(rows) > 1 {
		b.WriteString("This stream exists under several connectors/connections: pass connection_id to read one.\n")
	}
	var out []any
	for _, r := range rows {
		out = append(out, t.renderStreamRow(&b, r))
	}
	b.WriteString(schemaLegend)
	return &toolOut{Text: b.String(), Structured: map[string]any{"data": map[string]any{"object": "stream_capabilities", "stream": stream, "rows": out}}}, nil
}

func filterRowsByConn(rows []schemaRow, conn string) []schemaRow {
	if conn == "" {
		return rows
	}
	var out []schemaRow
	for _, r := range rows {
		cs := connectionsOf(r)
		keep := len(cs) == 0
		var only []any
		for _, c := range cs {
			if str(c["connection_id"]) == conn {
				keep = true
				only = append(only, c)
			}
		}
		if keep {
			s := map[string]any{}
			for k, v := range r.Stream {
				s[k] = v
			}
			if only != nil {
				s["granted_connections"] = only
			}
			out = append(out, schemaRow{Connector: r.Connector, Stream: s})
		}
	}
	return out
}

const schemaLegend = `
Legend (fields table): filter "eq" = equality, filter {"f": value}; range ops (gte/gt/lte/lt) = filter {"f": {"gte": v}}; search "lex" = lexical, "sem" = semantic; aggregate ops name the metric or grouping allowed on that field (count needs no field); "—" = not available; "✗op:reason" = declared but not usable under this grant.
Projection: query_records/fetch fields=[any listed field]. Example: query_records {"stream": S, "fields": ["a","b"], "limit": 10}.
`

func (t *toolCtx) renderStreamRow(b *strings.Builder, r schemaRow) map[string]any {
	s := r.Stream
	key := shortKey(connectorKey(r.Connector))
	cs := connectionsOf(r)
	fmt.Fprintf(b, "\n## `%s` · connector `%s`\n", str(s["name"]), key)
	if d := firstNonEmpty(str(s["display_name"]), str(s["connector_display_name"])); d != "" {
		fmt.Fprintf(b, "- display label: %s\n", d)
	}
	var cl []string
	for _, c := range cs {
		cl = append(cl, connLabel(c))
	}
	fmt.Fprintf(b, "- connection_id: %s\n", firstNonEmpty(strings.Join(cl, ", "), "(not stated)"))
	if rc := str(s["record_count"]); rc != "" {
		fmt.Fprintf(b, "- records: %s\n", rc)
	}
	var pk []string
	for _, p := range listOf(s["primary_key"]) {
		pk = append(pk, str(p))
	}
	if len(pk) > 0 {
		fmt.Fprintf(b, "- primary key: %s\n", strings.Join(pk, ", "))
	}
	cursor := str(s["cursor_field"])
	sortText := `not advertised; use order "asc"|"desc" on the default key`
	if cursor != "" {
		sortText = fmt.Sprintf(`sort "%s" or "-%s" (or order asc|desc)`, cursor, cursor)
	}
	fmt.Fprintf(b, "- sort: %s\n- count: supported (query_records count=true gives an exact total)\n", sortText)
	if tc := mapOf(s["time_constraint"]); tc != nil {
		fmt.Fprintf(b, "- grant time window: %s %s → %s\n", str(tc["field"]), firstNonEmpty(str(tc["since"]), "…"), firstNonEmpty(str(tc["until"]), "…"))
	}
	// fields
	fc := mapOf(s["field_capabilities"])
	var fields []fieldCap
	if fc != nil {
		for _, k := range sortedKeys(fc) {
			fields = append(fields, parseFieldCap(k, fc[k]))
		}
	} else if props := mapOf(mapOf(s["schema"])["properties"]); props != nil {
		for _, k := range sortedKeys(props) {
			fields = append(fields, fieldCap{Name: k, Granted: true, Type: str(mapOf(props[k])["type"])})
		}
	}
	// search / aggregate summaries
	var lex, sem []string
	aggs := map[string][]string{}
	anyFilter := false
	for _, f := range fields {
		if f.Lex {
			lex = append(lex, f.Name)
		}
		if f.Sem {
			sem = append(sem, f.Name)
		}
		for _, op := range f.Aggs {
			aggs[op] = append(aggs[op], f.Name)
		}
		if f.Eq || len(f.Range) > 0 {
			anyFilter = true
		}
	}
	qry := mapOf(s["query"])
	if srch := mapOf(qry["search"]); srch != nil && len(lex) == 0 && len(sem) == 0 {
		for _, x := range listOf(srch["lexical_fields"]) {
			lex = append(lex, str(x))
		}
		for _, x := range listOf(srch["semantic_fields"]) {
			sem = append(sem, str(x))
		}
	}
	countAgg := false
	if ag := mapOf(qry["aggregations"]); ag != nil {
		countAgg, _ = ag["count"].(bool)
		if len(aggs) == 0 {
			for _, op := range []string{"sum", "min", "max", "group_by", "group_by_time", "count_distinct"} {
				for _, x := range listOf(ag[op]) {
					aggs[op] = append(aggs[op], str(x))
				}
			}
		}
	}
	searchText := "none declared in this grant's schema"
	var sm []string
	if len(lex) > 0 {
		sm = append(sm, "lexical on "+strings.Join(lex, ", "))
	}
	if len(sem) > 0 {
		sm = append(sm, "semantic on "+strings.Join(sem, ", "))
	}
	if len(sm) > 0 {
		searchText = strings.Join(sm, "; ")
	}
	fmt.Fprintf(b, "- search modes: %s\n", searchText)
	var al []string
	if countAgg {
		al = append(al, "count")
	}
	opNames := make([]string, 0, len(aggs))
	for op := range aggs {
		opNames = append(opNames, op)
	}
	sort.Strings(opNames)
	for _, op := range opNames {
		al = append(al, op+"("+strings.Join(aggs[op], ", ")+")")
	}
	aggText := "none declared in this grant's schema (aggregate may still answer metric=count; errors explain what is allowed)"
	if len(al) > 0 {
		aggText = strings.Join(al, "; ")
	}
	fmt.Fprintf(b, "- aggregations: %s\n", aggText)
	var exp []any
	var el []string
	for _, e := range listOf(s["expand_capabilities"]) {
		m := mapOf(e)
		exp = append(exp, m)
		x := fmt.Sprintf("%s → %s (%s", str(m["name"]), firstNonEmpty(str(m["target_stream"]), str(m["stream"])), str(m["cardinality"]))
		if ml := str(m["max_limit"]); ml != "" {
			x += ", max_limit " + ml
		}
		if u, ok := m["usable"].(bool); ok && !u {
			x += ", NOT usable: " + str(m["reason"])
		}
		el = append(el, x+")")
	}
	fmt.Fprintf(b, "- expand relations: %s\n", firstNonEmpty(strings.Join(el, "; "), "none (do not pass expand)"))
	if !anyFilter {
		b.WriteString("- filters: no field is filterable under this grant (do not pass filter)\n")
	}
	fmt.Fprintf(b, "- projection: fields=[...] with any of the %d field(s) below\n\n", len(fields))
	b.WriteString("| field | type | role | filter | search | aggregate |\n|---|---|---|---|---|---|\n")
	fmap := map[string]any{}
	for _, f := range fields {
		filt := []string{}
		if f.Eq {
			filt = append(filt, "eq")
		}
		if len(f.Range) > 0 {
			filt = append(filt, strings.Join(f.Range, "/"))
		}
		srch := []string{}
		if f.Lex {
			srch = append(srch, "lex")
		}
		if f.Sem {
			srch = append(srch, "sem")
		}
		dash := func(l []string) string {
			if len(l) == 0 {
				return "—"
			}
			return strings.Join(l, ", ")
		}
		name := f.Name
		if !f.Granted {
			name += " (not granted)"
		}
		aggCell := dash(f.Aggs)
		for _, n := range f.Notes {
			aggCell += " ✗" + n
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(name), mdCell(firstNonEmpty(f.Type, "?")), mdCell(firstNonEmpty(f.Role, "")), dash(filt), dash(srch), mdCell(aggCell))
		fmap[f.Name] = f
	}
	var cids []string
	for _, c := range cs {
		cids = append(cids, str(c["connection_id"]))
	}
	row := map[string]any{"stream": str(s["name"]), "connector_key": key, "connections": cs, "connection_ids": cids,
		"record_count": s["record_count"], "primary_key": pk, "sort_field": cursor, "count_supported": true,
		"search": map[string]any{"lexical_fields": lex, "semantic_fields": sem}, "aggregations": map[string]any{"count": countAgg, "by_op": aggs},
		"expand": exp, "fields": fmap}
	if d := str(s["display_name"]); d != "" {
		row["display_name"] = d
	}
	return row
}

// ---------- stream-scoped exhaustive detail ----------

func (t *toolCtx) schemaFull(stream, conn string) (*toolOut, *ToolError) {
	q := url.Values{"detail": {"full"}, "stream": {stream}}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	doc, rerr := t.get("/v1/schema", q)
	if rerr != nil {
		te := t.rsErr(rerr, stream)
		if te.Code == "ambiguous_schema_detail" || te.Code == "ambiguous_connection" {
			te.Message = fmt.Sprintf("Stream %q resolves to more than one source; retry schema with {\"stream\": %q, \"connection_id\": ..., \"detail\": \"full\"}.", stream, stream)
		}
		return nil, te
	}
	rows := filterRowsByConn(rowsOf(doc, stream), conn)
	if len(rows) == 0 {
		return nil, newErr("stream_not_found", fmt.Sprintf("Stream %q is not visible under this grant%s. Call schema() for the index.", stream, map[bool]string{true: " for connection_id " + conn, false: ""}[conn != ""]), "param", "stream")
	}
	if conn == "" {
		var avail []any
		for _, r := range rows {
			for _, c := range connectionsOf(r) {
				avail = append(avail, map[string]any{"connection_id": c["connection_id"], "display_name": c["display_name"], "connector_key": shortKey(connectorKey(r.Connector)), "stream": stream})
			}
		}
		if len(rows) > 1 || len(avail) > 1 {
			te := newErr("ambiguous_schema_detail", fmt.Sprintf("Stream %q resolves to more than one source; retry schema with {\"stream\": %q, \"connection_id\": ..., \"detail\": \"full\"}.", stream, stream),
				"param", "connection_id", "retry_with", "connection_id", "available_connections", avail)
			return nil, t.enrichAmbiguity(te, stream)
		}
	}
	// Keep the document itself (connectors[].streams[]) without REST envelope members and
	// without any duplicate top-level stream list.
	data := map[string]any{}
	for k, v := range doc {
		if k == "links" || k == "meta" {
			continue
		}
		data[k] = v
	}
	if _, ok := data["connectors"]; ok {
		delete(data, "streams")
	}
	if n := len(toJSON(data)); n > maxFullSchemaBytes {
		return nil, newErr("response_too_large", fmt.Sprintf("The full schema for %q is %d bytes, above this adapter's %d-byte single-result bound. Use schema(stream) compact detail instead.", stream, n, maxFullSchemaBytes), "param", "detail")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Full schema for `%s`\n", stream)
	for _, r := range rows {
		var cl []string
		for _, c := range connectionsOf(r) {
			cl = append(cl, connLabel(c))
		}
		fmt.Fprintf(&b, "- connector `%s`, connection_id %s\n", shortKey(connectorKey(r.Connector)), firstNonEmpty(strings.Join(cl, ", "), "(not stated)"))
		raw := toJSON(r.Stream["schema"])
		const maxText = 12000
		if runeLen(raw) > maxText {
			raw = cutRunes(raw, maxText) + fmt.Sprintf(" … ⟨cut at %d chars; complete document in structuredContent.data⟩", maxText)
		}
		b.WriteString("\nJSON Schema:\n```json\n" + raw + "\n```\n")
	}
	b.WriteString("Field capabilities, expand relations and granted connections are in structuredContent.data (connectors[].streams[]).\n")
	return &toolOut{Text: b.String(), Structured: map[string]any{"data": data}}, nil
}
