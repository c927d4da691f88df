package variation

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Whole-dialect variants: adapters an independent author could have written
// from the seeds alone. Each changes, at once and consistently, every
// freedom the seeds leave open: the names of the arguments they do not
// name, where structuredContent keeps hits and records, the id format,
// numbers and wording, text layout, legend notation, the schema index, the
// ellipsis, the highlight tag and error wording. Everything the seeds name
// stays: tool names, connection_id, stream, limit, fields, expand, fetch's
// id and document keys, typed error codes, schema's structuredContent.data.
// The shipped adapter renders the reference dialect; MCP middleware
// translates it, both ways, into another.

// A dialect is one adapter's choices where the seeds leave them open.
type dialect struct {
	// args renames, per tool, the arguments no seed names: reference name
	// → this dialect's. Calls are mapped back; a reference name the
	// dialect does not declare is an unknown argument.
	args map[string]map[string]string
	ids  adapter.IDCodec
	// ellipsis marks every cut; mark is the highlight tag pair.
	ellipsis string
	mark     [2]string
	// num writes an exact count or size.
	num func(n int64) string
	// hitsKey, recordsKey and pageKey are where structuredContent keeps
	// search hits, a page of records, and the paging state ("" for top
	// level).
	hitsKey, recordsKey, pageKey string
	// text writes each tool's text from what the reference text showed.
	text dialectText
	// legend writes the legend of the schema grammar from its entries.
	legend func(entries [][2]string) string
	// flags renames the reference grammar's flag tokens (eq, lex, r=, …).
	flags map[string]string
	// errText writes an error object as the text of an isError result.
	errText func(e map[string]any) string
	// words rewrites error messages' wording.
	words *strings.Replacer
	// style lays out and words the text; caps writes each capability
	// segment of a scoped schema row ("%s": its value).
	style style
	caps  map[string]string
	// flatSchema keeps schema's streams under data.streams by connector
	// key instead of under connectors[].streams.
	flatSchema bool
}

// apply is the Apply of a dialect: its id codec, grammar and ellipsis
// through Tuning, and MCP middleware that renames arguments in both
// directions and rewrites every answer.
func (d *dialect) apply() func(*Seams) {
	return all(
		tune(func(t *adapter.Tuning) {
			t.IDs, t.Ellipsis = d.ids, d.ellipsis
			t.TextBudget = adapter.DefaultTextBudget - 160
			t.Grammar = dialectGrammar{adapter.CompactGrammar{Ellipsis: d.ellipsis}, d}
		}),
		withMiddleware(d.toolsList(), onInitialize(func(r *mcp.InitializeResult) { r.Instructions = d.prose("", r.Instructions) }),
			d.calls()))
}

// toolsList renames the undeclared-by-seed arguments in every input
// schema, its required list and the descriptions that name them.
func (d *dialect) toolsList() mcp.Middleware {
	return onTools(func(tools []*mcp.Tool) []*mcp.Tool {
		for _, t := range tools {
			names := d.args[t.Name]
			t.Description = d.prose(t.Name, t.Description)
			var s map[string]any
			if decodeJSON([]byte(schemaText(t)), &s) != nil {
				continue
			}
			if props, ok := s["properties"].(map[string]any); ok {
				out := map[string]any{}
				for k, v := range props {
					if p, ok := v.(map[string]any); ok {
						if desc, ok := p["description"].(string); ok {
							p["description"] = d.prose(t.Name, desc)
						}
					}
					out[rename(names, k)] = v
				}
				s["properties"] = out
			}
			if req, ok := s["required"].([]any); ok {
				for i, k := range req {
					if ks, ok := k.(string); ok {
						req[i] = rename(names, ks)
					}
				}
			}
			setSchemaText(t, compactJSON(s))
			if key := d.listKey(t.Name); key != "" && t.OutputSchema != nil {
				t.OutputSchema = json.RawMessage(`{"type":"object","anyOf":[{"required":["` + key + `"]},{"required":["error"]}]}`)
			}
		}
		return tools
	})
}

// listKey is where structuredContent keeps a tool's list ("" when the
// dialect keeps the reference layout).
func (d *dialect) listKey(tool string) string {
	return map[string]string{"search": d.hitsKey, "query_records": d.recordsKey}[tool]
}

func rename(names map[string]string, k string) string {
	if n, ok := names[k]; ok {
		return n
	}
	return k
}

// prose renames argument names where descriptions and instructions
// mention them, and swaps the highlight tag they name.
func (d *dialect) prose(tool, s string) string {
	tools := []string{tool}
	if tool == "" {
		tools = []string{"read_record_field", "search"}
	}
	for _, t := range tools {
		for from, to := range d.args[t] {
			if from == "id" || from == "cursor" {
				continue
			}
			s = regexp.MustCompile(`\b`+regexp.QuoteMeta(from)+`\b`).ReplaceAllString(s, to)
		}
	}
	if tool == "" || tool == "read_record_field" {
		s = strings.ReplaceAll(s, "{id, "+rename(d.args["read_record_field"], "field_path")+"}", "{"+rename(d.args["read_record_field"], "id")+", "+rename(d.args["read_record_field"], "field_path")+"}")
	}
	s = strings.ReplaceAll(s, "balanced <mark> snippets", "balanced "+d.mark[0]+" snippets")
	return strings.ReplaceAll(s, "connection_id/stream:record_id", d.ids.Format(adapter.RecordRef{ConnectionID: "cin_x", Stream: "stream", RecordID: "record"}))
}

// calls maps a call's arguments back to the reference names, refuses
// reference names the dialect does not declare, and rewrites the answer.
func (d *dialect) calls() mcp.Middleware {
	return onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		tool := req.Params.Name
		// The adapter's own command line calls its tools in process, with
		// no session, in the names its handlers read, and prints their
		// answers itself.
		if names := d.args[tool]; len(names) > 0 && req.Session != nil {
			args := map[string]json.RawMessage{}
			if json.Unmarshal(req.Params.Arguments, &args) == nil && args != nil {
				back := map[string]json.RawMessage{}
				for k, v := range args {
					if _, renamed := names[k]; renamed && !declares(names, k) {
						return d.errorResult(map[string]any{"type": "invalid_request", "code": "unknown_argument", "param": k,
							"message": "unknown argument " + k + "; " + tool + " takes " + strings.Join(d.declared(tool), ", ")}), nil
					}
					back[d.refName(tool, k)] = v
				}
				req = withArgs(req, back)
			}
		}
		res, err := next(ctx, req)
		if err != nil || res == nil || req.Session == nil {
			return res, err
		}
		r := &result{res}
		if r.IsError {
			if e := d.errorObject(r); e != nil {
				return d.errorResult(d.rewriteError(tool, e)), nil
			}
			return res, nil
		}
		d.rewrite(tool, r)
		return res, nil
	})
}

// declares reports whether k is also a name the dialect gives some argument.
func declares(names map[string]string, k string) bool {
	for _, to := range names {
		if to == k {
			return true
		}
	}
	return false
}

// refName is the reference name of a dialect argument.
func (d *dialect) refName(tool, k string) string {
	for from, to := range d.args[tool] {
		if to == k {
			return from
		}
	}
	return k
}

// declared lists the tool's arguments under the dialect's names.
func (d *dialect) declared(tool string) []string {
	for _, t := range adapter.Tools() {
		if t.Name != tool {
			continue
		}
		var s struct {
			Properties map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(mustJSON(t.InputSchema), &s)
		var out []string
		for k := range s.Properties {
			out = append(out, rename(d.args[tool], k))
		}
		sort.Strings(out)
		return out
	}
	return nil
}

// errorObject is an error result's object, from structuredContent or text.
func (d *dialect) errorObject(r *result) map[string]any {
	if sc := r.structured(); sc != nil {
		if e, ok := sc["error"].(map[string]any); ok {
			return e
		}
	}
	return r.errorObject()
}

// rewriteError renames arguments the error names and rewords its message;
// the typed code, retry_with and available_connections stay.
func (d *dialect) rewriteError(tool string, e map[string]any) map[string]any {
	if p, ok := e["param"].(string); ok {
		e["param"] = rename(d.args[tool], p)
	}
	if m, ok := e["message"].(string); ok {
		m = d.prose(tool, m)
		if strings.HasPrefix(m, "unknown argument(s) ") {
			m = unknownArgsRe.ReplaceAllStringFunc(m, func(list string) string {
				names := strings.Split(strings.TrimPrefix(list, "this tool takes "), ", ")
				for i, n := range names {
					names[i] = rename(d.args[tool], n)
				}
				return "this tool takes " + strings.Join(names, ", ")
			})
		}
		e["message"] = d.words.Replace(m)
	}
	return e
}

var unknownArgsRe = regexp.MustCompile(`this tool takes [a-z_, ]+`)

// errorResult is an isError result in the dialect's wording.
func (d *dialect) errorResult(e map[string]any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: d.errText(e)}},
		StructuredContent: map[string]any{"error": e}}
}

// rewrite translates a successful answer: structuredContent, then text.
func (d *dialect) rewrite(tool string, r *result) {
	sc := r.structured()
	if sc != nil {
		d.renameCalls(sc)
		switch tool {
		case "search":
			sc = d.moveList(sc, "results", d.hitsKey, func(env map[string]any) map[string]any {
				delete(env, "results_ref")
				return env
			})
			d.renameHighlights(sc)
		case "query_records":
			sc = d.moveList(sc, "data", d.recordsKey, nil)
		case "schema":
			if d.flatSchema {
				flattenSchema(sc)
			}
		case "fetch":
			// A cut document's text ends with its continuation call.
			if text, ok := sc["text"].(string); ok {
				sc["text"] = d.callsIn(text)
			}
			r.setStructured(sc)
			r.setText(fetchMirror(sc, d.style.indentFetch))
			return
		}
		r.setStructured(sc)
	}
	if f := d.text.of(tool); f != nil {
		r.setText(f(d, r.text(), sc))
	}
}

// renameCalls renames the arguments of every {tool, args} continuation
// in a structured answer.
func (d *dialect) renameCalls(v any) {
	eachObject(v, func(m map[string]any) {
		tool, _ := m["tool"].(string)
		args, ok := m["args"].(map[string]any)
		if tool == "" || !ok {
			return
		}
		out := map[string]any{}
		for k, a := range args {
			out[rename(d.args[tool], k)] = a
		}
		m["args"] = out
	})
}

// moveList moves the list under data.<from> (the RS envelope's data, or
// structuredContent's own results) to <to> and the page's state to the
// dialect's page key.
func (d *dialect) moveList(sc map[string]any, from, to string, trim func(map[string]any) map[string]any) map[string]any {
	env, _ := sc["data"].(map[string]any)
	if env == nil {
		return sc
	}
	list, ok := env[from]
	if from != "data" {
		list, ok = sc[from]
	}
	if !ok {
		return sc
	}
	delete(sc, from)
	delete(sc, "data")
	delete(env, "data")
	if trim != nil {
		env = trim(env)
	}
	out := map[string]any{to: list}
	for k, v := range sc {
		out[renameLadder(k)] = v
	}
	if d.pageKey == "" {
		for k, v := range env {
			out[k] = v
		}
	} else {
		out[d.pageKey] = env
	}
	return out
}

func renameLadder(k string) string {
	if k == "content_ladder" {
		return "omitted_fields"
	}
	return k
}

// renameHighlights swaps the highlight tag everywhere in hits.
func (d *dialect) renameHighlights(v any) {
	eachObject(v, func(m map[string]any) {
		for k, x := range m {
			if s, ok := x.(string); ok && strings.Contains(s, "<mark>") {
				m[k] = d.marked(s)
			}
		}
	})
}

func (d *dialect) marked(s string) string {
	return strings.NewReplacer("<mark>", d.mark[0], "</mark>", d.mark[1]).Replace(s)
}

// flattenSchema moves each connector's streams out of connectors[] into
// data.streams, an object keyed by connector_key; connectors keep their
// granted connections, which a stream without its own inherits.
func flattenSchema(sc map[string]any) {
	doc, _ := sc["data"].(map[string]any)
	conns, ok := doc["connectors"].([]any)
	if !ok {
		return
	}
	byKey := map[string]any{}
	for _, c := range conns {
		cm, _ := c.(map[string]any)
		if key, ok := cm["connector_key"].(string); ok {
			byKey[key] = cm["streams"]
			delete(cm, "streams")
		}
	}
	doc["streams"] = byKey
}

// Id codecs of the dialects.

// segmentIDs writes ids as connection, stream and record id joined by sep,
// each escaped; pdpp://record/ handles hold the escaped id. Other forms
// are refused, as an adapter that knows only its own ids refuses them.
type segmentIDs struct{ prefix, sep string }

func (c segmentIDs) Format(r adapter.RecordRef) string {
	return c.prefix + strings.Join([]string{escape(r.ConnectionID, c.sep), escape(r.Stream, c.sep), escape(r.RecordID, c.sep)}, c.sep)
}

// escape percent-encodes s so that it holds neither ':' nor sep.
func escape(s, sep string) string {
	var enc strings.Builder
	for _, b := range []byte(sep) {
		fmt.Fprintf(&enc, "%%%02X", b)
	}
	return strings.ReplaceAll(strings.ReplaceAll(url.PathEscape(s), ":", "%3A"), sep, enc.String())
}

func (c segmentIDs) Parse(id, connectionID string) (adapter.RecordRef, error) {
	if rest, ok := strings.CutPrefix(id, adapter.RecordURIPrefix); ok {
		u, err := url.PathUnescape(rest)
		if err != nil || !strings.HasPrefix(u, c.prefix) || len(strings.Split(strings.TrimPrefix(u, c.prefix), c.sep)) != 3 {
			// A record handle in the RS's own form: seed 004 makes every
			// pdpp://record/ handle shown callable.
			return adapter.PathIDs{}.Parse(id, connectionID)
		}
		id = u
	}
	rest, ok := strings.CutPrefix(id, c.prefix)
	parts := strings.Split(rest, c.sep)
	if !ok || len(parts) != 3 {
		return adapter.RecordRef{}, &idError{"id must be an id exactly as search, query_records or fetch show it (" + c.Format(adapter.RecordRef{ConnectionID: "connection", Stream: "stream", RecordID: "record"}) + ")"}
	}
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return adapter.RecordRef{}, &idError{"id has a malformed escape"}
		}
		parts[i] = u
	}
	if parts[0] == "" {
		return adapter.RecordRef{}, &idError{"id names no connection"}
	}
	// The path form checks every segment, and a contradicting connection_id.
	return adapter.PathIDs{}.Parse(parts[0]+"/"+parts[1]+":"+parts[2], connectionID)
}

type idError struct{ msg string }

func (e *idError) Error() string { return e.msg }

// Number formats.

// groupedNumber writes n with sep between groups of three digits.
func groupedNumber(sep string) func(int64) string {
	return func(n int64) string {
		s := strconv.FormatInt(n, 10)
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteString(sep)
			}
			b.WriteRune(c)
		}
		if neg {
			return "-" + b.String()
		}
		return b.String()
	}
}

// abbreviatedNumber writes 12345 as "12k (12,345)", small numbers plain.
func abbreviatedNumber(n int64) string {
	if n < 1000 && n > -1000 {
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n/1000, 10) + "k (" + groupedNumber(",")(n) + ")"
}

// numStr writes a decimal string with the dialect's number format; other
// strings are kept.
func (d *dialect) numStr(s string) string {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return s
	}
	return d.num(n)
}
