package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

const (
	defaultSearchLimit = 10
	fetchFieldChars    = 4000
	fetchTextBudget    = 12000
	searchTextBudget   = 14000
)

var markRe = regexp.MustCompile(`<mark>(.*?)</mark>`)

func (t *toolCtx) search(a args) (*toolOut, *ToolError) {
	if _, ok := a["q"]; ok {
		if _, ok2 := a["query"]; !ok2 {
			a["query"] = a["q"]
		}
		delete(a, "q")
	}
	if te := a.checkAllowed("query", "streams", "connection_id", "limit", "cursor", "mode"); te != nil {
		return nil, te
	}
	query, te := a.reqStr("query")
	if te != nil {
		return nil, te
	}
	streams, te := a.strList("streams")
	if te != nil {
		return nil, te
	}
	conn, _ := a.str("connection_id")
	cursor, _ := a.str("cursor")
	mode, _ := a.str("mode")
	limit, has, te := a.intv("limit", 1, 100)
	if te != nil {
		return nil, te
	}
	if !has {
		limit = defaultSearchLimit
	}
	path := "/v1/search"
	switch mode {
	case "", "lexical":
		mode = "lexical"
	case "semantic":
		path = "/v1/search/semantic"
	case "hybrid":
		path = "/v1/search/hybrid"
		if cursor != "" {
			return nil, argErr("cursor", "hybrid search has no cursor pagination; raise limit or use lexical mode to page.")
		}
	default:
		return nil, argErr("mode", `mode must be "lexical", "semantic" or "hybrid"`)
	}
	q := url.Values{"q": {query}, "limit": {strconv.Itoa(limit)}}
	for _, s := range streams {
		q.Add("streams", s)
	}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	doc, rerr := t.get(path, q)
	if rerr != nil {
		te := t.rsErr(rerr, "")
		if rerr.Status == 404 && mode != "lexical" && te.Code != "connection_not_found" {
			te = newErr("search_mode_unavailable", fmt.Sprintf("%s search is not available on this resource server; use mode \"lexical\".", mode), "param", "mode", "http_status", 404)
		}
		return nil, te
	}
	hits := listOf(doc["data"])
	cutByAdapter := false
	if len(hits) > limit {
		hits = hits[:limit]
		cutByAdapter = true
	}
	meta := mapOf(doc["meta"])
	var results []any
	var srcKeys []string
	var b strings.Builder
	fmt.Fprintf(&b, "# Search %q (%s): %d hit(s)", query, mode, len(hits))
	if c, ok := meta["count"].(float64); ok {
		fmt.Fprintf(&b, " (%s matching in total, count %s)", fmtNum(c), firstNonEmpty(str(meta["count_accuracy"]), "reported"))
	}
	b.WriteString("\n")
	var body strings.Builder
	for i, h := range hits {
		hm := mapOf(h)
		if hm == nil {
			continue
		}
		r := t.searchResult(hm)
		results = append(results, r)
		srcKeys = append(srcKeys, sourceLabel(r))
		if body.Len() > searchTextBudget {
			fmt.Fprintf(&body, "\n%d. %s · id `%s` (preview omitted to bound output; see structuredContent.results or fetch)\n", i+1, str(r["title"]), str(r["id"]))
			continue
		}
		writeHit(&body, i+1, r)
	}
	if len(uniq(srcKeys)) > 1 {
		fmt.Fprintf(&b, "Source mix: %s\n", strings.Join(countBy(srcKeys), ", "))
	}
	b.WriteString(body.String())
	if len(hits) == 0 {
		b.WriteString("\nNo hits. Try other words, fewer streams, or schema(stream) to see which fields are searchable.\n")
	}
	out := map[string]any{"query": query, "mode": mode, "results": results, "has_more": doc["has_more"]}
	b.WriteString("\n---\n")
	if nc := str(doc["next_cursor"]); nc != "" && !cutByAdapter {
		fmt.Fprintf(&b, "next_cursor: `%s` (pass as cursor with the same query for more hits)\n", nc)
		out["next_cursor"] = nc
	} else if hm, _ := doc["has_more"].(bool); hm || cutByAdapter {
		b.WriteString("More hits exist; raise limit or narrow with streams/connection_id.\n")
	}
	if c, ok := meta["count"]; ok && c != nil {
		out["count"] = c
		out["count_accuracy"] = meta["count_accuracy"]
	}
	if len(uniq(srcKeys)) > 1 {
		out["source_mix"] = countBy(srcKeys)
	}
	for _, w := range listOf(meta["warnings"]) {
		wm := mapOf(w)
		fmt.Fprintf(&b, "warning %s: %s\n", str(wm["code"]), str(wm["message"]))
	}
	if ws := listOf(meta["warnings"]); len(ws) > 0 {
		out["warnings"] = ws
	}
	b.WriteString("Use fetch {\"id\": ...} for a whole record, or read_record_field with the shown arguments for a bounded window of the matched text.\n")
	return &toolOut{Text: b.String(), Structured: out}, nil
}

func sourceLabel(r map[string]any) string {
	s := firstNonEmpty(str(r["connection_id"]), "(no connection)")
	if k := str(r["connector_key"]); k != "" {
		s += " [" + k + "]"
	}
	return s
}

// searchResult turns an RS hit into the adapter's hit shape.
func (t *toolCtx) searchResult(h map[string]any) map[string]any {
	stream, key := str(h["stream"]), firstNonEmpty(str(h["record_key"]), str(h["id"]))
	conn := firstNonEmpty(str(h["connection_id"]), str(h["connector_instance_id"]), str(mapOf(h["source"])["connection_id"]))
	ck := shortKey(firstNonEmpty(str(h["connector_key"]), str(mapOf(h["source"])["connector_key"]), str(h["connector_id"])))
	handle := makeHandle(conn, stream, key)
	r := map[string]any{"id": handle, "stream": stream, "record_id": key, "connection_id": conn, "connector_key": ck,
		"url": t.recordURL(stream, key, conn)}
	if d := str(h["display_name"]); d != "" {
		r["display_name"] = d
	}
	for _, k := range []string{"authored_at", "emitted_at", "matched_fields", "score", "scores", "retrieval_mode"} {
		if v, ok := h[k]; ok && v != nil {
			r[k] = v
		}
	}
	r["title"] = hitTitle(stream, key, str(h["authored_at"]), str(h["emitted_at"]), str(h["display_name"]), ck)
	// evidence: only proven match windows from the RS
	var ev []any
	for _, e := range listOf(h["evidence_excerpts"]) {
		em := mapOf(e)
		field := firstNonEmpty(str(em["field_path"]), str(mapOf(em["read"])["field"]))
		preview := balanceMarks(str(em["preview_text"]))
		if preview == "" || field == "" {
			continue
		}
		ev = append(ev, map[string]any{"field": field, "preview": preview, "truncated": em["truncated"], "read": readArgs(handle, field, preview)})
	}
	if len(ev) == 0 {
		var field, text string
		switch sn := h["snippet"].(type) {
		case map[string]any:
			field, text = str(sn["field"]), str(sn["text"])
		case string:
			text = sn
			if mf := listOf(h["matched_fields"]); len(mf) == 1 {
				field = str(mf[0])
			}
		}
		if text != "" && field != "" && strings.Contains(text, "<mark>") {
			text = balanceMarks(text)
			ev = append(ev, map[string]any{"field": field, "preview": text, "truncated": true, "read": readArgs(handle, field, text)})
		} else if text != "" {
			r["snippet"] = balanceMarks(text)
		}
	}
	if ev != nil {
		r["evidence"] = ev
	}
	return r
}

func readArgs(handle, field, preview string) map[string]any {
	args := map[string]any{"id": handle, "field": field}
	if m := markRe.FindStringSubmatch(preview); m != nil && strings.TrimSpace(m[1]) != "" {
		args["query"] = m[1]
		args["context_chars"] = 600
	}
	return map[string]any{"tool": "read_record_field", "arguments": args}
}

// hitTitle: human identity distinct from the snippet; authored/event time preferred over ingestion time.
func hitTitle(stream, key, authored, emitted, display, ck string) string {
	t := stream + " · " + key
	if authored != "" {
		t += " · " + authored
	} else if emitted != "" {
		t += " · captured " + emitted
	}
	if display != "" {
		t += " · " + display
	} else if ck != "" {
		t += " · " + ck
	}
	return t
}

func writeHit(b *strings.Builder, n int, r map[string]any) {
	fmt.Fprintf(b, "\n%d. **%s**\n", n, str(r["title"]))
	fmt.Fprintf(b, "   - id: `%s` · connection_id %s · connector %s · stream %s · record %s\n", str(r["id"]),
		firstNonEmpty(str(r["connection_id"]), "(none)"), firstNonEmpty(str(r["connector_key"]), "?"), str(r["stream"]), str(r["record_id"]))
	if mf := listOf(r["matched_fields"]); len(mf) > 0 {
		var s []string
		for _, f := range mf {
			s = append(s, str(f))
		}
		fmt.Fprintf(b, "   - matched fields: %s", strings.Join(s, ", "))
		if sc := mapOf(r["score"]); sc != nil {
			fmt.Fprintf(b, " · score %s %s (%s)", str(sc["kind"]), str(sc["value"]), strings.ReplaceAll(str(sc["order"]), "_", " "))
		}
		b.WriteString("\n")
	}
	if ev := listOf(r["evidence"]); len(ev) > 0 {
		for _, e := range ev {
			em := mapOf(e)
			p := oneLine(str(em["preview"]))
			if runeLen(p) > 600 {
				p = cutRunes(p, 600) + "…"
			}
			fmt.Fprintf(b, "   - evidence (%s): %s\n", str(em["field"]), p)
			fmt.Fprintf(b, "   - read more: read_record_field %s\n", toJSON(mapOf(em["read"])["arguments"]))
		}
	} else {
		if sn := str(r["snippet"]); sn != "" {
			fmt.Fprintf(b, "   - snippet (no proven field window): %s\n", oneLine(sn))
		} else {
			b.WriteString("   - no body evidence window (match on metadata or unproven field)\n")
		}
		fmt.Fprintf(b, "   - inspect: fetch {\"id\": %q}\n", str(r["id"]))
	}
}

func (t *toolCtx) recordURL(stream, rec, conn string) string {
	q := url.Values{}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	return t.s.rs.URL(streamPath(stream, "records", url.PathEscape(rec)), q)
}

// ---------- fetch ----------

var authoredKeys = []string{"sent_at", "sentAt", "authored_at", "authoredAt", "created_at", "createdAt", "source_created_at", "sourceCreatedAt", "occurred_at", "occurredAt", "updated_at", "updatedAt"}

func (t *toolCtx) fetch(a args) (*toolOut, *ToolError) {
	if te := a.checkAllowed("id", "stream", "record_id", "connection_id", "fields", "expand", "expand_limit"); te != nil {
		return nil, te
	}
	conn, stream, rec, te := resolveRecordArgs(a)
	if te != nil {
		return nil, te
	}
	fields, te := a.strList("fields")
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
	q := url.Values{}
	if conn != "" {
		q.Set("connection_id", conn)
	}
	for _, f := range fields {
		q.Add("fields", f)
	}
	if te := t.gateExpand(stream, conn, expand, expandLimit, q); te != nil {
		return nil, te
	}
	doc, rerr := t.get(streamPath(stream, "records", url.PathEscape(rec)), q)
	if rerr != nil {
		return nil, t.rsErr(rerr, stream)
	}
	rc := firstNonEmpty(str(doc["connection_id"]), str(doc["connector_instance_id"]), conn)
	id := firstNonEmpty(str(doc["id"]), rec)
	handle := makeHandle(rc, stream, id)
	data := project(mapOf(doc["data"]), fields)
	ck := shortKey(str(doc["connector_key"]))
	meta := map[string]any{"connection_id": rc, "connector_key": ck, "stream": stream, "record_id": id}
	if d := str(doc["display_name"]); d != "" {
		meta["display_name"] = d
	}
	if e := str(doc["emitted_at"]); e != "" {
		meta["emitted_at"] = e
	}
	authored := ""
	for _, k := range authoredKeys {
		if s := str(data[k]); s != "" {
			authored = s
			break
		}
	}
	if fields != nil {
		meta["fields"] = fields
	}
	// text body
	var b strings.Builder
	var notes []truncNote
	var blobs []any
	used := 0
	for _, k := range sortedKeys(data) {
		v := data[k]
		if m, ok := isBlobRef(v); ok {
			blobs = append(blobs, map[string]any{"field": k, "blob_id": m["blob_id"], "mime_type": m["mime_type"], "size_bytes": m["size_bytes"], "url": t.blobURL(m), "resource_uri": blobResourceURI(str(m["blob_id"]), rc)})
		}
		max := fetchFieldChars
		if used > fetchTextBudget {
			max = 80
		}
		txt, note := t.renderField(handle, k, v, max)
		if note != nil {
			notes = append(notes, *note)
		}
		line := k + ": " + txt + "\n"
		used += len(line)
		b.WriteString(line)
	}
	if ex := mapOf(doc["expanded"]); ex != nil {
		for _, rel := range sortedKeys(ex) {
			j := toJSON(ex[rel])
			if runeLen(j) > 2000 {
				j = cutRunes(j, 2000) + "… ⟨cut; use query_records with expand for structured related records⟩"
			}
			b.WriteString("expanded " + rel + ": " + j + "\n")
		}
	}
	if len(data) == 0 {
		b.WriteString("(no granted fields to show)\n")
	}
	if len(notes) > 0 {
		meta["truncated_fields"] = notes
	}
	if len(blobs) > 0 {
		meta["blobs"] = blobs
	}
	if authored != "" {
		meta["authored_at"] = authored
	}
	meta["continuation"] = "read_record_field {\"id\": \"" + handle + "\", \"field\": FIELD} reads any text field in bounded windows"
	title := t.fetchTitle(stream, rc, data, id, authored, str(doc["emitted_at"]), str(doc["display_name"]), ck)
	document := map[string]any{"id": handle, "title": title, "text": b.String(), "url": t.recordURL(stream, id, rc), "metadata": meta}
	return &toolOut{Text: toJSON(document), Structured: document}, nil
}

// fetchTitle uses a manifest-declared title role when the schema exposes one,
// otherwise a stream/record/time identity.
func (t *toolCtx) fetchTitle(stream, conn string, data map[string]any, id, authored, emitted, display, ck string) string {
	sq := url.Values{"stream": {stream}}
	if conn != "" {
		sq.Set("connection_id", conn)
	}
	if doc, rerr := t.get("/v1/schema", sq); rerr == nil {
		for _, r := range filterRowsByConn(rowsOf(doc, stream), conn) {
			fc := mapOf(r.Stream["field_capabilities"])
			for _, f := range sortedKeys(fc) {
				role := parseFieldCap(f, fc[f]).Role
				if role == "primary-title" || role == "title" {
					if s, ok := data[f].(string); ok && strings.TrimSpace(s) != "" {
						return cutRunes(oneLine(s), 200)
					}
				}
			}
		}
	}
	return hitTitle(stream, id, authored, emitted, display, ck)
}
