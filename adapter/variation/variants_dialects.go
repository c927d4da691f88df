package variation

import (
	"fmt"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// The three whole-dialect variants, and the schema grammar they share.

// dialectVariants are the whole-dialect rows of the variant list.
var dialectVariants = []Variation{
	{ID: "dialect-ts-sdk", Freedom: `a TypeScript-SDK-like adapter: search takes query; read_record_field takes record_id, field, offset, length, query; ids cin::stream::record; hits under hits and records under records with a page object; numbers 12,345; markdown blocks (id and read call on lines under the title); a legend table; "..."; <em>; errors as indented JSON`,
		Allowed: dialectAllowed, Doc: "MCP middleware renames arguments both ways and rewrites every answer; Tuning sets ids, ellipsis, grammar and a text budget with room for the layout",
		Apply: tsDialect.apply(), Advised: legacyIDs, KnownFalse: knownFalse["dialect-ts-sdk"]},
	{ID: "dialect-python", Freedom: `a Python-no-SDK-like adapter: search takes text; read_record_field takes handle, key, skip, max_chars, text; ids cin.stream.record; hits under items and records under rows with paging at top level; numbers 12 345; indented blocks; a "X means …" legend; a flat schema stream list; " [...]"; <b>; calls written name(k=v); errors as "Error (code): message" lines`,
		Allowed: dialectAllowed, Doc: "MCP middleware renames arguments both ways and rewrites every answer; Tuning sets ids, ellipsis, grammar and a text budget with room for the layout",
		Apply: pyDialect.apply(), Advised: legacyIDs, KnownFalse: knownFalse["dialect-python"]},
	{ID: "dialect-terse", Freedom: `a terse adapter: search takes terms; read_record_field takes ref, path, from, len, find; ids rec:cin/stream/record; hits under matches and records under items; numbers 12k (12,345); sigil lines; an "X = …" legend; "⋯"; <hl>; calls written name k=v; errors as "ERR code: message" plus JSON`,
		Allowed: dialectAllowed, Doc: "MCP middleware renames arguments both ways and rewrites every answer; Tuning sets ids, ellipsis, grammar and a text budget with room for the layout",
		Apply: terseDialect.apply(), Advised: legacyIDs, KnownFalse: knownFalse["dialect-terse"]},
}

// legacyIDs: U05.1's legacy {stream}:{record_id} id with connection_id is
// mcpcheck's own recommended contract, in pdpp-mcp's id format, which no
// seed names; an adapter with ids of its own need not take it.
var legacyIDs = []string{"U05.1"}

const dialectAllowed = `each freedom is one the seeds leave open (scenarios/FREEDOMS.md names the clause of each): seed 001 names tools, connection_id, stream, limit, fields, expand, detail, fetch's id and document keys, the typed error codes, retry_with and available_connections, and the schema document under structuredContent.data, and nothing else of the wire; seed 001: "search snippets SHALL use balanced highlight tags or unhighlighted prose"; seed 003: "content[] remains bounded prose, but it must carry the operational handles"; seed 004: the read continuation, not its argument names; seed 003: "accompanied by a visible legend" (no notation)`

var tsDialect = &dialect{
	args: map[string]map[string]string{
		"search":            {"q": "query"},
		"read_record_field": {"id": "record_id", "field_path": "field", "offset_chars": "offset", "limit_chars": "length", "q": "query", "before_chars": "context_before", "after_chars": "context_after"},
	},
	ids:      segmentIDs{sep: "::"},
	ellipsis: "...", mark: [2]string{"<em>", "</em>"}, num: groupedNumber(","),
	hitsKey: "hits", recordsKey: "records", pageKey: "page",
	style:  style{layout: markdownLayout, complete: "complete", partial: "partial", moreHits: "More results are available.", moreRecords: "More records are available.", cut: "cut", indentFetch: true},
	text:   dialectText{call: jsonCall},
	legend: tableLegend,
	flags: map[string]string{"open": " (", "close": ")", "join": "; ", "list": "/", "sep": ", ", "t": "", "role": "role ", "eq": "exact", "r": "range ",
		"lex": "text search", "sem": "semantic search", "a": "aggregate ", "g=false": "not granted", "declared": "untyped"},
	caps: map[string]string{"fields": "Fields: %s", "aggregations": "Aggregations: %s", "primary_key": "Key: %s", "sort": "Sort: %s",
		"projection": "Projection: supported (pass fields as a list of names)", "count": "Counts: %s", "expand": "Expand: %s", "search": "Search modes: %s"},
	errText: indentedErrorText,
	words:   strings.NewReplacer("retry with connection_id", "pass connection_id", "is served by", "exists in"),
}

var pyDialect = &dialect{
	args: map[string]map[string]string{
		"search":            {"q": "text"},
		"read_record_field": {"id": "handle", "field_path": "key", "offset_chars": "skip", "limit_chars": "max_chars", "q": "text", "before_chars": "chars_before", "after_chars": "chars_after"},
	},
	ids:      segmentIDs{sep: "."},
	ellipsis: " [...]", mark: [2]string{"<b>", "</b>"}, num: groupedNumber(" "),
	hitsKey: "items", recordsKey: "rows", pageKey: "",
	style:  style{layout: indentedLayout, complete: "complete", partial: "truncated", moreHits: "(more available)", moreRecords: "(more available)", cut: "truncated"},
	text:   dialectText{call: pythonCall},
	legend: meansLegend,
	flags: map[string]string{"open": "<", "close": ">", "join": " ", "list": ",", "sep": "  ", "t": "", "role": "@", "eq": "E", "r": "R:",
		"lex": "L", "sem": "S", "a": "A:", "g=false": "X", "declared": "?"},
	caps: map[string]string{"fields": "fields: %s", "aggregations": "aggregations: %s", "primary_key": "primary key %s", "sort": "sortable by %s",
		"projection": "supports projection with fields=[...]", "count": "counts: %s", "expand": "expandable relations: %s", "search": "search: %s"},
	errText:    lineErrorText("Error (%s): %s"),
	words:      strings.NewReplacer("retry with connection_id", "call again with connection_id", "Stream", "The stream"),
	flatSchema: true,
}

var terseDialect = &dialect{
	args: map[string]map[string]string{
		"search":            {"q": "terms"},
		"read_record_field": {"id": "ref", "field_path": "path", "offset_chars": "from", "limit_chars": "len", "q": "find", "before_chars": "pre", "after_chars": "post"},
	},
	ids:      segmentIDs{prefix: "rec:", sep: "/"},
	ellipsis: "⋯", mark: [2]string{"<hl>", "</hl>"}, num: abbreviatedNumber,
	hitsKey: "matches", recordsKey: "items", pageKey: "paging",
	style:  style{layout: terseLayout, complete: "end", partial: "more", moreHits: "+more", moreRecords: "+more", cut: "clipped"},
	text:   dialectText{call: kvCall},
	legend: equalsLegend,
	flags: map[string]string{"open": "{", "close": "}", "join": ",", "list": "+", "sep": " ", "t": "", "role": "role:", "eq": "=", "r": "cmp:",
		"lex": "txt", "sem": "vec", "a": "agg:", "g=false": "nogrant", "declared": "any"},
	caps: map[string]string{"fields": "f: %s", "aggregations": "agg: %s", "primary_key": "pk: %s", "sort": "sort: %s",
		"projection": "proj: fields", "count": "count: %s", "expand": "exp: %s", "search": "srch: %s"},
	errText: lineErrorText("ERR %s: %s"),
	words:   strings.NewReplacer("retry with connection_id", "set connection_id", "Stream", "stream"),
}

func init() {
	for _, d := range []*dialect{tsDialect, pyDialect, terseDialect} {
		d.text.search, d.text.records, d.text.field, d.text.schema, d.text.aggregate = searchText, recordsText, fieldText, schemaTextOf, aggregateText
	}
	variants = append(variants, dialectVariants...)
}

// Error texts.

func indentedErrorText(e map[string]any) string {
	return fetchMirror(map[string]any{"error": e}, true)
}

// lineErrorText writes the code and message on a line, then the rest of
// the error object as JSON.
func lineErrorText(format string) func(map[string]any) string {
	return func(e map[string]any) string {
		code, _ := e["code"].(string)
		msg, _ := e["message"].(string)
		rest := map[string]any{}
		for k, v := range e {
			if k != "message" {
				rest[k] = v
			}
		}
		return fmt.Sprintf(format, code, msg) + "\n" + compactJSON(rest)
	}
}

// dialectGrammar writes scoped schema rows with the dialect's own flags,
// capability statements and legend, from the default grammar's rows.
type dialectGrammar struct {
	adapter.CompactGrammar
	d *dialect
}

func (g dialectGrammar) entries() [][2]string {
	f := g.d.flags
	return [][2]string{
		{f["eq"], "exact filter: filter {field: value}"},
		{f["r"] + "<ops>", "range filter operators: filter {field: {op: value}}, op one of gte, gt, lte, lt"},
		{f["lex"], "lexical search matches the field"},
		{f["sem"], "semantic search matches the field"},
		{f["a"] + "<kinds>", "aggregations: aggregate metric=<kind> field=<field>, or metric=count with group_by=<field> (group_by_time=<field> for a time field)"},
		{f["role"] + "<role>", "declared display role"},
		{f["g=false"], "the field is not granted"},
		{f["declared"], "the field is declared, with no capability the RS states"},
		{"<type>", "declared type, first"},
	}
}

func (g dialectGrammar) Legend() (string, map[string]string) {
	m := map[string]string{}
	for _, e := range g.entries() {
		m[e[0]] = e[1]
	}
	return g.d.legend(g.entries()) + "\nsort: the sort field, - first for descending; fields: a list of field names projects records", m
}

func (g dialectGrammar) Row(row map[string]any) []string {
	segs := g.CompactGrammar.Row(row)
	f := g.d.flags
	for i, s := range segs {
		k, v, _ := strings.Cut(s, "=")
		if k == "fields" {
			var fields []string
			for _, x := range strings.Split(v, ";") {
				fields = append(fields, g.field(x))
			}
			v = strings.Join(fields, f["sep"])
		} else {
			v = strings.NewReplacer("|", f["list"], ";", f["sep"]).Replace(v)
		}
		if tmpl, ok := g.d.caps[k]; ok {
			if strings.Contains(tmpl, "%s") {
				segs[i] = fmt.Sprintf(tmpl, v)
			} else {
				segs[i] = tmpl
			}
		}
	}
	if g.d.style.layout != terseLayout {
		return []string{strings.Join(segs, "\n")}
	}
	return segs
}

// field rewrites name[t=x,eq,r=a|b,a=k|l,lex,sem,role=y,g=false].
func (g dialectGrammar) field(x string) string {
	name, flags, ok := strings.Cut(x, "[")
	if !ok {
		return x
	}
	f := g.d.flags
	var out []string
	for _, tok := range strings.Split(strings.TrimSuffix(flags, "]"), ",") {
		k, v, hasValue := strings.Cut(tok, "=")
		v = strings.ReplaceAll(v, "|", f["list"])
		switch {
		case tok == "g=false" || !hasValue:
			if m, ok := f[tok]; ok {
				out = append(out, m)
			} else {
				out = append(out, tok)
			}
		case k == "t":
			out = append([]string{v}, out...)
		default:
			out = append(out, f[k]+v)
		}
	}
	return name + f["open"] + strings.Join(out, f["join"]) + f["close"]
}
