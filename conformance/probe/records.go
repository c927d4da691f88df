package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// MaxStreamProbes bounds how many streams a check reads while looking for
// data of the shape it needs.
const MaxStreamProbes = 10

// A Source is one stream on one connection ("" when the row names none).
type Source struct {
	Stream, Conn string
}

// Roles are the arguments that read source s, with extra.
func (s Source) Roles(extra dialect.Args) dialect.Args {
	a := dialect.Args{dialect.Stream: s.Stream}
	if s.Conn != "" {
		a[dialect.Connection] = s.Conn
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// Sources lists one (stream, connection) per index row, in index order.
func Sources(rows []SchemaRow) []Source {
	var out []Source
	for _, r := range rows {
		s := Source{Stream: r.Name}
		if len(r.Connections) > 0 {
			s.Conn = r.Connections[0]
		}
		out = append(out, s)
	}
	return out
}

// eachPage reads a page of limit records from each of the first
// MaxStreamProbes sources of the target's index, and hands each page that
// is not an error to f, in index order.
func eachPage(t *conformance.T, limit int, f func(s Source, c *conformance.Call)) {
	index := Grant(t)
	for i, s := range Sources(index) {
		if i == MaxStreamProbes {
			break
		}
		if c := t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: limit})); !c.IsError() {
			f(s, c)
		}
	}
}

// Records reads the record list of a query_records result: the RS
// envelope's data, or else the list of objects in structuredContent that
// holds records, under whatever key (seed 003 leaves the envelope open).
func Records(c *conformance.Call) []map[string]any {
	list, named := c.Container()
	if !named {
		switch d := c.Structured()["data"].(type) {
		case map[string]any:
			if l, ok := d["data"].([]any); ok {
				list = l
			} else {
				list, _ = d["records"].([]any)
			}
		case []any:
			list = d
		}
		if list == nil {
			return ListWhere(c.Structured(), LooksLikeRecord)
		}
	}
	var out []map[string]any
	for _, r := range list {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

var wordRe = regexp.MustCompile(`[A-Za-z]{5,}`)

// SearchableWord picks a word of five letters or more from the records'
// string values, for a search the target's own data can answer.
func SearchableWord(recs []map[string]any) string {
	for _, r := range recs {
		data, _ := r["data"].(map[string]any)
		if data == nil {
			data = r
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := data[k].(string); ok {
				if w := wordRe.FindString(s); w != "" {
					return strings.ToLower(w)
				}
			}
		}
	}
	return ""
}

// CallWithEnvelope calls a read tool and returns the RS answer behind it:
// the last successful request to path the call made, answered again by the
// fixture RS. A target without one, or a call that made no such request,
// gives the call's structuredContent.data instead.
func CallWithEnvelope(t *conformance.T, tool string, args dialect.Args, path string) (*conformance.Call, map[string]any) {
	if !t.Target.Has(conformance.CapControlledRS) {
		c := t.CallRoles(tool, args)
		return c, c.Data()
	}
	rs := t.RS()
	var before int64
	if reqs := rs.Requests(); len(reqs) > 0 {
		before = reqs[len(reqs)-1].Seq
	}
	c := t.CallRoles(tool, args)
	reqs := rs.Requests()
	// Checks run side by side on one RS: of the requests to path since the
	// call began, the one whose query holds the most of the call's values
	// is the call's (the latest, among equals).
	best, bestScore := -1, -1
	for i := len(reqs) - 1; i >= 0 && reqs[i].Seq > before; i-- {
		if r := reqs[i]; r.Path == path && r.Status == http.StatusOK {
			if n := argsInQuery(args, r.RawQuery); n > bestScore {
				best, bestScore = i, n
			}
		}
	}
	if best >= 0 {
		var env map[string]any
		if status, body := rs.Replay(reqs[best]); status == http.StatusOK && decodeExact(body, &env) == nil && env != nil {
			return c, env
		}
	}
	return c, c.Data()
}

// argsInQuery counts the call's scalar values a request's query carries.
func argsInQuery(args dialect.Args, rawQuery string) int {
	q, _ := url.ParseQuery(rawQuery)
	have := map[string]bool{}
	for _, vs := range q {
		for _, v := range vs {
			have[v] = true
		}
	}
	n := 0
	for _, v := range args {
		switch v.(type) {
		case string, int, float64, bool:
			if have[fmt.Sprint(v)] {
				n++
			}
		}
	}
	return n
}

// decodeExact decodes JSON keeping numbers as written.
func decodeExact(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// RecordsPath is the RS route of a stream's record list.
func RecordsPath(stream string) string { return "/v1/streams/" + url.PathEscape(stream) + "/records" }

// TypedRejection reports an error a client can act on: one that carries a
// code (an error object's, a JSON-RPC error's such as -32602, or a JSON-RPC
// code quoted in isError text: "MCP error -32602: Input validation error:
// … at filter"), or that names the argument it refuses.
func TypedRejection(c *conformance.Call, arg string) bool {
	switch {
	case !c.IsError():
		return false
	case c.RPCError != nil || c.ErrorCode() != "":
		return true
	case c.ErrorObject() != nil && c.ErrorObject()["type"] != nil:
		return true
	}
	return rpcCodeInText.MatchString(c.Text()) || (arg != "" && NamesArgument(c, arg))
}

// rpcCodeInText matches a JSON-RPC error code quoted in an isError text.
var rpcCodeInText = regexp.MustCompile(`-32[0-9]{3}\b`)

// RecordIDs are the RS ids of a query_records answer's records.
func RecordIDs(c *conformance.Call) []string {
	var out []string
	for _, r := range Records(c) {
		if id := String(r["id"]); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// idTokenRe splits text into the tokens an id may be written as.
var idTokenRe = regexp.MustCompile(`[^\s"'<>(),;\[\]{}]+`)

// FetchIDFor finds the id fetch takes for record rec of source src, from
// the target's own answers: the id of a search hit whose record key is
// rec's, else a token of page's text that holds rec's id. It checks each
// candidate with a plain fetch; "" when none works.
func FetchIDFor(t *conformance.T, src Source, rec map[string]any, page *conformance.Call) string {
	recID := String(rec["id"])
	if recID == "" {
		return ""
	}
	var cands []string
	if w := SearchableWord([]map[string]any{rec}); w != "" {
		args := dialect.Args{dialect.Query: w, dialect.Limit: 25}
		if src.Conn != "" {
			args[dialect.Connection] = src.Conn
		}
		sc := t.CallRoles("search", args)
		for _, h := range Hits(t, sc) {
			if h.Record == recID && h.Stream == src.Stream {
				if id := HitHandle(t, sc, h); id != "" {
					cands = append(cands, id)
				}
			}
		}
	}
	shown := IDTokens(page.Text(), recID)
	for _, id := range append(cands, shown...) {
		if f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: id}); !f.IsError() {
			return id
		}
	}
	return ""
}

// IDTokens are the tokens of text that hold record id recID, longest first:
// the ids a client that reads only content[] could fetch it by.
func IDTokens(text, recID string) []string {
	var out []string
	for _, tok := range idTokenRe.FindAllString(text, -1) {
		if _, v, ok := strings.Cut(tok, "="); ok {
			tok = v
		}
		if tok = strings.TrimRight(tok, ".:"); ContainsToken(tok, recID) && !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// ChunkRunes is the length of the pieces of a value looked for in text.
const ChunkRunes = 24

// PartShown reports whether text shows some piece of v: one of its first
// hundred chunks, escaped as JSON or not.
func PartShown(text, v string) bool {
	r := []rune(v)
	for i := 0; i < len(r) && i < 100*ChunkRunes; i += ChunkRunes {
		if ShownIn(text, string(r[i:min(len(r), i+ChunkRunes)])) {
			return true
		}
	}
	return false
}

// ShownPrefix is how many runes of v, from its start, text shows.
func ShownPrefix(text, v string) int {
	r := []rune(v)
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ShownIn(text, string(r[:mid])) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// RecordIDsShown maps each record of a query_records answer to the id its
// text shows for it, found by value. A token holding the record's own id
// that is neither that bare id nor a word of any record's content is a
// path id: the record maps to its own id (FetchOffered tries its tokens).
// For the other records the text shows part of, id-like tokens that hold
// no record's id and are no word of any record's content are probed with
// fetch, longest first: a token fetch takes and
// that reads a record back is that record's opaque id. A record the text
// shows no id for has no entry. fetched caches the probes.
func RecordIDsShown(t *conformance.T, c *conformance.Call, fetched map[string]*conformance.Call) map[string]string {
	text := c.Text()
	recs := Records(c)
	content := map[string]bool{}
	for _, rec := range recs {
		for _, w := range recordWords(rec) {
			content[w] = true
		}
	}
	out := map[string]string{}
	pending := 0
	for _, rec := range recs {
		recID := String(rec["id"])
		if recID == "" {
			continue
		}
		switch {
		case slices.ContainsFunc(IDTokens(text, recID), func(tok string) bool { return tok != recID && !content[tok] }):
			out[recID] = recID
		case slices.ContainsFunc(RecordValues(rec), func(v string) bool { return PartShown(text, v) }):
			pending++ // shown in part, with no path id: maybe an opaque one
		}
	}
	if pending == 0 {
		return out
	}
	var cands []string
	for _, tok := range idTokenRe.FindAllString(text, -1) {
		if _, v, ok := strings.Cut(tok, "="); ok {
			tok = v
		}
		tok = strings.TrimRight(tok, ".:…")
		if !content[tok] && !slices.Contains(cands, tok) && !slices.ContainsFunc(recs, func(r map[string]any) bool { return String(r["id"]) != "" && ContainsToken(tok, String(r["id"])) }) && (len(tok) >= 16 || len(tok) >= 6 && strings.ContainsAny(tok, "0123456789")) {
			cands = append(cands, tok)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i]) > len(cands[j]) })
	for _, tok := range cands[:min(len(cands), pending+3)] {
		f, ok := fetched[tok]
		if !ok {
			f = t.CallRoles("fetch", dialect.Args{dialect.RecordID: tok})
			fetched[tok] = f
		}
		if f.IsError() {
			continue
		}
		got := strings.Join(StringValues(f.Structured()), "\n")
		for _, rec := range recs {
			recID, conn := String(rec["id"]), String(rec["connection_id"])
			if recID != "" && out[recID] == "" && ContainsToken(got, recID) && (conn == "" || ContainsToken(got, conn)) {
				out[recID] = tok
			}
		}
	}
	return out
}

// RecordValues are a record's text values long enough to recognise it by.
func RecordValues(rec map[string]any) []string {
	data, _ := rec["data"].(map[string]any)
	var vals []string
	for _, v := range data {
		if s, ok := v.(string); ok && s != String(rec["id"]) && len(s) >= 4 && !LooksBinary(s) {
			vals = append(vals, s)
		}
	}
	return vals
}

// recordWords are the tokens of a record's keys and string values: what a
// text shows of its content, never an id the adapter made for it.
func recordWords(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, idTokenRe.FindAllString(x, -1)...)
	case map[string]any:
		for k, e := range x {
			out = append(out, k)
			out = append(out, recordWords(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, recordWords(e)...)
		}
	}
	return out
}

// OnRSIgnoringProjection is t against an RS that returns every field
// whatever the projection (as a spec-conformant RS may add schema-required
// ones), where the fixture can be forked; else t itself.
func OnRSIgnoringProjection(t *conformance.T) *conformance.T {
	if !t.Target.Has(conformance.CapFixture) {
		return t
	}
	fx := t.BaseFixture()
	for _, st := range fx.Streams {
		for _, f := range st.Fields {
			fx.ProjectionAddsFields = append(fx.ProjectionAddsFields, f.Name)
		}
	}
	return t.On(t.Fork(fx))
}
