package pdpp.x;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** search and aggregate tools. */
public final class SearchAggTools {
    private SearchAggTools() {}
    private static final Pattern MARK = Pattern.compile("<mark>(.*?)</mark>", Pattern.DOTALL);

    /** Keep <mark> highlights only when balanced; strip any other markup-ish sentinels. */
    static String cleanSnippet(String s) {
        if (s == null) return null;
        int open = count(s, "<mark>"), close = count(s, "</mark>");
        if (open != close) s = s.replace("<mark>", "").replace("</mark>", "");
        return Render.oneLine(s);
    }

    private static int count(String s, String sub) {
        int n = 0, i = 0;
        while ((i = s.indexOf(sub, i)) >= 0) { n++; i += sub.length(); }
        return n;
    }

    static String firstMark(String s) {
        if (s == null) return null;
        Matcher m = MARK.matcher(s);
        return m.find() && !m.group(1).isBlank() ? m.group(1) : null;
    }

    public static Map<String, Object> search(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("query", "streams", "connection_id", "limit", "cursor", "mode", "filter"));
        String query = a.reqStr("query");
        String mode = a.oneOf("mode", "lexical", "semantic", "hybrid");
        if (mode == null) mode = "lexical";
        Integer limitArg = a.intArg("limit", 1, 100);
        int limit = limitArg == null ? 10 : limitArg;
        String cursor = a.str("cursor"), conn = a.str("connection_id");
        if ("hybrid".equals(mode) && cursor != null) throw ToolError.invalidArg("cursor", "hybrid search does not support cursor paging; use mode lexical or semantic to page.");
        String path = "lexical".equals(mode) ? "/v1/search" : "/v1/search/" + mode;
        RsClient.Query q = new RsClient.Query().add("q", query).add("streams", a.strList("streams"))
                .add("limit", limit).add("cursor", cursor).add("connection_id", conn);
        Args.addFilter(q, a.objArg("filter"));
        Map<String, Object> body = gw.rs.getJson(token, path, q);
        List<Object> hits = Json.list(body, "data");
        if (hits == null) hits = new ArrayList<>();
        boolean cut = hits.size() > limit;
        if (cut) hits = hits.subList(0, limit); // limit is global across connections

        SchemaIndex idx = null;
        List<Object> results = new ArrayList<>();
        Map<String, Integer> mix = new LinkedHashMap<>();
        Map<String, String> mixLabel = new LinkedHashMap<>();
        String rsBase = gw.rs.base();
        for (Object ho : hits) {
            Map<String, Object> h = Json.asObj(ho);
            if (h == null) continue;
            String stream = Json.str(h, "stream");
            String rid = SchemaIndex.firstStr(h, "record_key", "record_id", "id");
            String cid = SchemaIndex.firstStr(h, "connection_id", "connector_instance_id");
            Map<String, Object> src = Json.obj(h, "source");
            if (cid == null) cid = Json.str(src, "connection_id");
            String ck = SchemaIndex.firstStr(h, "connector_key", "connector_id");
            if (ck == null) ck = SchemaIndex.firstStr(src, "connector_key", "connector_id");
            if (ck == null && cid != null) { if (idx == null) idx = gw.indexOrNull(token); if (idx != null) ck = idx.connectorKeyFor(cid); }
            String dn = Json.str(h, "display_name");
            if (dn == null) dn = Json.str(src, "display_name");
            String handle = Render.handle(cid, stream, rid);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", handle);
            String title = Json.str(h, "title");
            String when = Json.str(h, "authored_at");
            if (title == null) {
                title = (stream == null ? "record" : stream) + " " + rid;
                if (dn != null) title += " · " + dn;
                if (when != null) title += " · " + when;
                else if (Json.str(h, "emitted_at") != null) title += " · ingested " + Json.str(h, "emitted_at");
            }
            r.put("title", title);
            r.put("url", rsBase + Common.recordPath(stream == null ? "" : stream, rid == null ? "" : rid) + (cid != null ? "?connection_id=" + RsClient.enc(cid) : ""));
            Json.putIf(r, "connection_id", cid);
            Json.putIf(r, "connector_key", ck);
            r.put("stream", stream);
            r.put("record_id", rid);
            Json.putIf(r, "display_name", dn);
            Json.putIf(r, "authored_at", when);
            Json.putIf(r, "emitted_at", h.get("emitted_at"));
            Json.putIf(r, "matched_fields", h.get("matched_fields"));
            Object sn = h.get("snippet");
            String snText = sn instanceof String ? (String) sn : Json.str(Json.asObj(sn), "text");
            String snField = Json.str(Json.asObj(sn), "field");
            if (snText != null) r.put("snippet", Render.clip(cleanSnippet(snText), 600));
            List<Object> evidence = new ArrayList<>();
            List<Object> ex = Json.list(h, "evidence_excerpts");
            if (ex != null) for (Object eo : ex) {
                Map<String, Object> e = Json.asObj(eo);
                if (e == null || Json.str(e, "field_path") == null) continue;
                evidence.add(evidenceEntry(handle, Json.str(e, "field_path"), Json.str(e, "preview_text"), e.get("truncated"), query));
            }
            if (evidence.isEmpty() && snText != null && snField != null && firstMark(snText) != null)
                evidence.add(evidenceEntry(handle, snField, snText, true, query));
            if (!evidence.isEmpty()) r.put("evidence", evidence);
            Json.putIf(r, "score", h.get("score") != null ? h.get("score") : h.get("scores"));
            results.add(r);
            String mk = cid == null ? "(unknown connection)" : cid;
            mix.merge(mk, 1, Integer::sum);
            mixLabel.putIfAbsent(mk, (ck != null ? ck : "?") + (dn != null ? ", " + dn : ""));
        }
        boolean hasMore = Boolean.TRUE.equals(body.get("has_more")) || cut;
        String next = Json.str(body, "next_cursor");
        Object count = Json.obj(body, "meta") == null ? null : Json.obj(body, "meta").get("count");
        List<Object> warnings = Common.warnings(body);

        StringBuilder t = new StringBuilder();
        t.append("search \"").append(Render.clip(query, 100)).append("\" (").append(mode).append("): ").append(results.size()).append(" hit(s)");
        if (count instanceof Number) t.append(" of ").append(count).append(" total");
        t.append(hasMore ? ", more available" : "").append(".\n");
        if (mix.size() > 1) {
            List<String> parts = new ArrayList<>();
            for (Map.Entry<String, Integer> e : mix.entrySet()) parts.add(e.getKey() + " (" + mixLabel.get(e.getKey()) + "): " + e.getValue());
            t.append("source mix: ").append(String.join("; ", parts)).append('\n');
        }
        if (next != null) t.append("next_cursor: ").append(next).append("  (pass as cursor to get the next page)\n");
        Common.appendWarnings(t, warnings);
        int i = 0; int shown = 0;
        for (Object ro : results) {
            Map<String, Object> r = Json.asObj(ro);
            StringBuilder h = new StringBuilder();
            h.append(++i).append(". ").append(r.get("title")).append('\n');
            h.append("   id: ").append(r.get("id")).append(" | connection_id=").append(Json.scalarText(r.get("connection_id")))
             .append(" connector_key=").append(Json.scalarText(r.get("connector_key"))).append(" stream=").append(r.get("stream"))
             .append(" record_id=").append(r.get("record_id")).append('\n');
            List<Object> ev = Json.asList(r.get("evidence"));
            if (ev != null) for (Object eo : ev) {
                Map<String, Object> e = Json.asObj(eo);
                h.append("   match in ").append(e.get("field")).append(": ").append(Render.clip(Json.str(e, "preview"), 500)).append('\n');
                h.append("   read more: read_record_field ").append(Json.write(e.get("read_record_field"))).append('\n');
            }
            else {
                if (r.get("snippet") != null) h.append("   snippet: ").append(Render.clip(Json.str(r, "snippet"), 300)).append('\n');
                h.append("   (no proven text-field match window; use fetch {\"id\": \"").append(r.get("id")).append("\"} to inspect)\n");
            }
            if (!Render.append(t, "\n" + h.toString().trim(), Render.TEXT_BUDGET)) {
                t.append("\n… ").append(results.size() - shown).append(" more hit(s) in structuredContent.results; lower limit to keep text complete.\n");
                break;
            }
            shown++;
        }
        if (results.isEmpty()) t.append("No hits. Try other words, fewer streams, or check schema(stream) for searchable fields.\n");
        Map<String, Object> sc = new LinkedHashMap<>();
        sc.put("query", query);
        sc.put("mode", mode);
        sc.put("results", results);
        sc.put("has_more", hasMore);
        Json.putIf(sc, "next_cursor", next);
        Json.putIf(sc, "count", count);
        if (mix.size() > 1) sc.put("source_mix", mix);
        if (!warnings.isEmpty()) sc.put("warnings", warnings);
        return Render.toolResult(t.toString().trim(), sc, false);
    }

    private static Map<String, Object> evidenceEntry(String handle, String field, String preview, Object truncated, String query) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("field", field);
        String p = cleanSnippet(preview);
        e.put("preview", Render.clip(p, 800));
        e.put("truncated", truncated == null ? Boolean.TRUE : truncated);
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("id", handle); args.put("field", field);
        String term = firstMark(p);
        if (term == null && query != null && !query.isBlank()) term = query.trim();
        args.put("q", term);
        args.put("before_chars", 400); args.put("after_chars", 1200);
        e.put("read_record_field", args);
        return e;
    }

    public static Map<String, Object> aggregate(Gateway gw, String token, Map<String, Object> raw) {
        Args a = new Args(raw, Set.of("stream", "metric", "field", "group_by", "group_by_time", "granularity", "time_zone", "limit", "filter", "connection_id"));
        String stream = a.reqStr("stream");
        String metric = a.oneOf("metric", "count", "sum", "min", "max", "count_distinct");
        if (metric == null) throw ToolError.invalidArg("metric", "metric is required (count, sum, min, max, count_distinct)");
        RsClient.Query q = new RsClient.Query().add("metric", metric).add("field", a.str("field")).add("group_by", a.str("group_by"))
                .add("group_by_time", a.str("group_by_time")).add("granularity", a.oneOf("granularity", "minute", "hour", "day", "week", "month", "quarter", "year"))
                .add("time_zone", a.str("time_zone")).add("limit", a.intArg("limit", 1, 100)).add("connection_id", a.str("connection_id"));
        Args.addFilter(q, a.objArg("filter"));
        Map<String, Object> body;
        try { body = gw.rs.getJson(token, "/v1/streams/" + RsClient.seg(stream) + "/aggregate", q); }
        catch (ToolError e) { throw Common.enrich(e, gw, token, stream); }
        Map<String, Object> sc = new LinkedHashMap<>(body);
        sc.remove("links");
        List<Object> warnings = Common.warnings(body);
        sc.remove("meta");
        if (!warnings.isEmpty()) sc.put("warnings", warnings);
        StringBuilder t = new StringBuilder();
        t.append(metric).append(body.get("field") != null ? "(" + body.get("field") + ")" : "").append(" over ").append(stream);
        if (a.str("connection_id") != null) t.append(" [connection_id=").append(a.str("connection_id")).append("]");
        if (body.get("group_by") != null) t.append(" grouped by ").append(body.get("group_by"));
        if (body.get("group_by_time") != null) t.append(" grouped by ").append(body.get("group_by_time")).append(" per ").append(Json.scalarText(body.get("granularity")))
                .append(body.get("time_zone") != null ? " (" + body.get("time_zone") + ")" : "");
        t.append('\n');
        if (body.containsKey("value")) t.append("value: ").append(Json.scalarText(body.get("value"))).append('\n');
        List<Object> groups = Json.list(body, "groups");
        if (groups != null) {
            for (Object go : groups) {
                Map<String, Object> g = Json.asObj(go);
                if (g == null) continue;
                Object val = g.containsKey("count") ? g.get("count") : g.get("value");
                if (!Render.append(t, "  " + Json.scalarText(g.get("key")) + ": " + Json.scalarText(val), Render.TEXT_BUDGET)) break;
            }
            if (body.containsKey("other_count")) t.append("other_count (groups beyond limit): ").append(Json.scalarText(body.get("other_count"))).append('\n');
        }
        if (body.get("filtered_record_count") != null) t.append("filtered_record_count: ").append(Json.scalarText(body.get("filtered_record_count"))).append('\n');
        if (Boolean.TRUE.equals(body.get("approximate"))) t.append("(approximate)\n");
        Common.appendWarnings(t, warnings);
        return Render.toolResult(t.toString().trim(), sc, false);
    }
}
