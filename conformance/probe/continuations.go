package probe

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Continuations: the calls a target prints for going on (next pages,
// omitted content, handles to read), in its own argument names.

// A Continuation is a model-callable next step found in visible text,
// with its arguments in the target's own names.
type Continuation = dialect.PrintedCall

// readTools are the tools a continuation may call.
var readTools = []string{"read_record_field", "fetch", "query_records", "search", "aggregate", "schema"}

// ContinuationsIn parses every tool call written into visible text, in
// any notation the dialect package reads (JSON arguments, name(k=v),
// name k=v).
func ContinuationsIn(text string) []Continuation {
	return dialect.PrintedCalls(text, readTools)
}

// cursorHandleRe finds a cursor handle written into text: next_cursor=…,
// cursor: "…" and the like.
var cursorHandleRe = regexp.MustCompile(`\b([a-z_]*cursor)\s*[=:]\s*(?:"((?:[^"\\]|\\.)+)"|([^\s,;"]+))`)

// NextCalls are the calls a read's text offers to go on with: tool calls
// with JSON arguments written into it, and, for each cursor handle it
// shows, the same call again with that cursor.
func NextCalls(c *conformance.Call) []Continuation {
	out := ContinuationsIn(c.Text())
	cursor, ok := c.ArgName(dialect.Cursor)
	if !ok {
		return out
	}
	for _, m := range cursorHandleRe.FindAllStringSubmatch(c.Text(), -1) {
		v := strings.TrimRight(m[2]+m[3], ".")
		if m[2] != "" {
			_ = json.Unmarshal([]byte(`"`+m[2]+`"`), &v)
		}
		args := map[string]any{}
		for k, a := range c.Args {
			args[k] = a
		}
		args[cursor] = v
		out = append(out, Continuation{Tool: c.Tool, Args: args, At: m[0]})
	}
	return out
}

// RefersTo reports whether a call's arguments name record id (as a token
// of some string argument).
func RefersTo(cont Continuation, id string) bool {
	for _, v := range cont.Args {
		if s, ok := v.(string); ok && ContainsToken(s, id) {
			return true
		}
	}
	return false
}

// CallKey identifies a call by its tool and arguments.
func CallKey(cont Continuation) string {
	b, _ := json.Marshal(cont.Args)
	return cont.Tool + " " + string(b)
}

// LearnFrom lets a printed call teach the dialect the roles its
// inputSchema left unresolved, by the values the check knows it holds.
func LearnFrom(t *conformance.T, c Continuation, known dialect.Args) {
	t.Target.Dialect().Learn(c, known)
}

// RoleOf is the value a continuation the target printed gives role r, in
// the target's own name for it; nil when it gives none.
func RoleOf(t *conformance.T, c Continuation, r dialect.Role) any {
	return t.Target.Dialect().Value(c.Tool, c.Args, r)
}

// WrittenCall finds a call of tool written into text with arguments that
// name record recID (and, for read_record_field, field).
func WrittenCall(t *conformance.T, text, tool, recID, field string) (Continuation, bool) {
	for _, c := range ContinuationsIn(text) {
		if c.Tool == tool && RefersTo(c, recID) && tool == "read_record_field" {
			LearnFrom(t, c, dialect.Args{dialect.Field: field})
		}
		if c.Tool == tool && RefersTo(c, recID) && (tool != "read_record_field" || RoleOf(t, c, dialect.Field) == field) {
			return c, true
		}
	}
	return Continuation{}, false
}

// FetchOffered is the fetch a text offers for a record: a fetch call
// written with its id, else the first token holding its id that fetch
// takes. Nil when there is none.
func FetchOffered(t *conformance.T, text, recID string) (Continuation, *conformance.Call) {
	if c, ok := WrittenCall(t, text, "fetch", recID, ""); ok {
		return c, t.Follow(c)
	}
	for _, id := range IDTokens(text, recID) {
		c := Continuation{Tool: "fetch", Args: t.ArgsFor("fetch", dialect.Args{dialect.RecordID: id})}
		if r := t.Follow(c); !r.IsError() {
			return c, r
		}
	}
	return Continuation{}, nil
}

// VisibleCursor finds the token of a page's text that pages on, by
// following: the RS's cursor where the text shows it, then the cursors of
// calls the text prints for the same tool, then the text's opaque tokens
// (not the fixture's content, not mcpcheck's own arguments). Each is sent
// as the cursor with args; the first whose answer shows records (or hits)
// the first page does not hold is the cursor, returned with that answer;
// the RS's own cursor, shown, is the cursor whatever it reaches. At most
// six tries; "" and nil when none pages on.
func VisibleCursor(t *conformance.T, page *conformance.Call, args dialect.Args, first []RecordRef, rsCursor string, shows func(*conformance.Call) []RecordRef) (string, *conformance.Call) {
	if !t.HasRole(page.Tool, dialect.Cursor) {
		return "", nil
	}
	text := page.Text()
	var cands []string
	add := func(s string) {
		if s != "" && !slices.Contains(cands, s) && read.ContainsToken(text, s) {
			cands = append(cands, s)
		}
	}
	add(rsCursor)
	for _, pc := range t.Target.PrintedCalls(text) {
		if pc.Tool == page.Tool {
			add(String(t.Target.Dialect().Value(pc.Tool, pc.Args, dialect.Cursor)))
		}
	}
	content := fixtureContent(t)
	for _, tok := range idTokenRe.FindAllString(text, -1) {
		// key=value gives its value; base64's "=" padding is no key.
		if _, v, ok := strings.Cut(tok, "="); ok && strings.Trim(v, "=") != "" {
			tok = v
		}
		tok = strings.Trim(tok, ".,;:\"'`")
		if len(tok) >= 8 && !content[tok] && !argValue(page, tok) && strings.ContainsAny(tok, "0123456789=") {
			add(tok)
		}
	}
	for i, cur := range cands {
		if i == 6 {
			break
		}
		next := dialect.Args{dialect.Cursor: cur}
		for k, v := range args {
			next[k] = v
		}
		r := t.CallRoles(page.Tool, next)
		switch {
		case cur == rsCursor:
			return cur, r // the RS's own cursor, shown: what it reaches is the adapter's doing
		case r.IsError():
		case slices.ContainsFunc(shows(r), func(ref RecordRef) bool { return !slices.Contains(first, ref) }):
			return cur, r
		}
	}
	return "", nil
}

// IsJSONObject reports whether text is one JSON object (a document's
// mirror): calls written inside its strings are read from the decoded
// strings, never from the escaped text.
func IsJSONObject(text string) bool {
	var m map[string]any
	return json.Unmarshal([]byte(strings.TrimSpace(text)), &m) == nil
}
