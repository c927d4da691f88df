package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Handler-level fuzz targets: each input goes through the real tool handler
// over an in-memory MCP session, to the fixture RS whose request log says
// whether (and how) the RS was called. One session serves a whole worker.

func fuzzSession(tb testing.TB) (*mcp.ClientSession, *fakers.RS) {
	tb.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		tb.Fatal(err)
	}
	fx.SpecClientReads = true
	rs := fakers.New(fx)
	a, err := New(Options{ProviderURL: fakers.MockBaseURL, Token: rs.ClientToken(), HTTPClient: &http.Client{Transport: rs.Transport()}})
	if err != nil {
		tb.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := a.Server().Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close(); ss.Close() })
	return cs, rs
}

// callBound is how long one fuzzed call may take: a hang is a finding.
const callBound = 10 * time.Second

// callJSON calls a tool; a transport failure fails the input, since it
// means the server stopped serving.
func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		t.Fatalf("%s %v: JSON-RPC error %v, want a tool result", tool, args, rpcErr)
	case err != nil:
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// resultCode is the typed code of an isError result ("" when untyped).
func resultCode(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal([]byte(tc.Text), &e)
	return e.Code
}

// asServerSees returns s as the server decodes it from a JSON request
// (invalid UTF-8 becomes U+FFFD).
func asServerSees(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// FuzzRecordIDBeforeRS sends fuzzed ids (and connection_id arguments) to
// fetch and read_record_field. Every traversal or separator variant at any
// percent-encoding depth is a typed isError with no RS call at all; an id
// the adapter accepts reaches the RS with its stream and record segments
// exactly as parsed (nothing decoded twice or lost).
func FuzzRecordIDBeforeRS(f *testing.F) {
	for _, s := range idSeeds {
		f.Add(s.id, s.conn)
	}
	f.Add("cin_work/messages:a b", "")
	f.Add("cin_work/messages:a%20b?c#d", "")
	f.Add("cin_work/messages:"+fakers.LongBodyRecordID, "")
	cs, rs := fuzzSession(f)
	f.Fuzz(func(t *testing.T, id, conn string) {
		sid, sconn := asServerSees(id), asServerSees(conn)
		if rest, ok := strings.CutPrefix(sid, RecordURIPrefix); ok {
			// A handle names the id inside it; one that does not decode
			// must be refused, so it stands for no id at all.
			if inner, bad := decodeRecordHandle(rest); bad == "" {
				sid = inner
			} else {
				sid = ""
			}
		}
		head, rid, hasColon := strings.Cut(sid, ":")
		idConn, stream, hasSlash := strings.Cut(head, "/")
		if !hasSlash {
			idConn, stream = "", head
		}
		hostile := traversal(sconn)
		for _, seg := range []string{idConn, stream, rid} {
			hostile = hostile || traversal(seg)
		}
		for _, tool := range []string{"fetch", "read_record_field"} {
			args := map[string]any{"id": id}
			if conn != "" {
				args["connection_id"] = conn
			}
			if tool == "read_record_field" {
				args["field_path"] = "body"
			}
			rs.ResetRequests()
			res := callJSON(t, cs, tool, args)
			reqs := rs.Requests()
			if hostile {
				if !res.IsError || len(reqs) != 0 {
					t.Fatalf("%s %q (connection_id %q): isError=%t after %d RS calls, want a rejection before any", tool, id, conn, res.IsError, len(reqs))
				}
			}
			if res.IsError && resultCode(res) == "" {
				t.Fatalf("%s %q: untyped error %v", tool, id, res.Content)
			}
			if len(reqs) == 0 {
				continue
			}
			if !hasColon || hostile {
				t.Fatalf("%s %q: the RS was called for an id the adapter should refuse", tool, id)
			}
			want := "/v1/streams/" + stream + "/records/" + rid
			if tool == "read_record_field" {
				want += "/field-window"
			}
			for _, r := range reqs {
				if r.Path != "/v1/schema" && r.Path != want {
					t.Fatalf("%s %q: RS path %q, want %q", tool, id, r.Path, want)
				}
			}
		}
	})
}

// FuzzFieldWindow sends fuzzed read_record_field windows (offset_chars,
// limit_chars, cursor, q, before/after_chars; flags say which are sent).
// A window the schema or the selector rules refuse is a typed isError with
// no RS call; an accepted one is exactly one field-window call whose query
// carries the window as given (a cursor becomes offset_chars).
func FuzzFieldWindow(f *testing.F) {
	const (
		sendOffset = 1 << iota
		sendBefore
		sendAfter
		sendCursor
		sendQ
		sendLimit
	)
	type seed struct {
		flags                        uint8
		offset, limit, before, after int
		cursor, q                    string
	}
	for _, s := range []seed{
		{sendLimit, 0, 100, 0, 0, "", ""},
		{sendOffset | sendLimit, 120, 16384, 0, 0, "", ""},
		{sendCursor, 0, 0, 0, 0, "60000", ""},
		{sendQ | sendBefore | sendAfter, 0, 0, 10, 8192, "", "budget"},
		{sendCursor | sendOffset, 5, 0, 0, 0, "5", ""},
		{sendQ | sendCursor, 0, 0, 0, 0, "1", "x"},
		{sendBefore, 0, 0, 3, 0, "", ""},
		{sendCursor, 0, 0, 0, 0, "-1", ""},
		{sendCursor, 0, 0, 0, 0, "1\n", ""},
		{sendCursor, 0, 0, 0, 0, "99999999999999999999999", ""},
		{sendQ, 0, 0, 0, 0, "", ""},
		{sendOffset, -1, 0, 0, 0, "", ""},
		{sendLimit, 0, 16385, 0, 0, "", ""},
		{sendQ | sendAfter, 0, 0, 0, 8193, "", "x"},
	} {
		f.Add(s.flags, s.offset, s.limit, s.before, s.after, s.cursor, s.q)
	}
	cs, rs := fuzzSession(f)
	const id = "cin_work/messages:m001" // a short body keeps each call cheap
	f.Fuzz(func(t *testing.T, flags uint8, offset, limit, before, after int, cursor, q string) {
		args := map[string]any{"id": id, "field_path": "body"}
		want := url.Values{"field": {"body"}, "connection_id": {"cin_work"}}
		schemaOK := true
		if flags&sendOffset != 0 {
			args["offset_chars"], schemaOK = offset, schemaOK && offset >= 0
		}
		if flags&sendLimit != 0 {
			args["limit_chars"], schemaOK = limit, schemaOK && limit >= 1 && limit <= 16384
			want.Set("limit_chars", strconv.Itoa(limit))
		}
		if flags&sendBefore != 0 {
			args["before_chars"], schemaOK = before, schemaOK && before >= 0 && before <= 8192
			want.Set("before_chars", strconv.Itoa(before))
		}
		if flags&sendAfter != 0 {
			args["after_chars"], schemaOK = after, schemaOK && after >= 0 && after <= 8192
			want.Set("after_chars", strconv.Itoa(after))
		}
		cursor, q = asServerSees(cursor), asServerSees(q)
		if flags&sendCursor != 0 {
			args["cursor"], schemaOK = cursor, schemaOK && digitsOnly(cursor)
		}
		if flags&sendQ != 0 {
			args["q"], schemaOK = q, schemaOK && q != ""
			want.Set("q", q)
		}
		hasCursor, hasOffset, hasQ := flags&sendCursor != 0, flags&sendOffset != 0, flags&sendQ != 0
		selectorOK := !(hasCursor && hasOffset) && !(hasQ && (hasCursor || hasOffset)) && (hasQ || flags&(sendBefore|sendAfter) == 0)
		switch {
		case hasCursor:
			want.Set("offset_chars", cursor)
		case hasOffset:
			want.Set("offset_chars", strconv.Itoa(offset))
		}

		rs.ResetRequests()
		res := callJSON(t, cs, "read_record_field", args)
		reqs := rs.Requests()
		code := resultCode(res)
		switch {
		case !schemaOK:
			if !res.IsError || code != "invalid_arguments" || len(reqs) != 0 {
				t.Fatalf("%v: isError=%t code %q after %d RS calls, want invalid_arguments before any", args, res.IsError, code, len(reqs))
			}
		case !selectorOK:
			if !res.IsError || code != "invalid_field_window_selector" || len(reqs) != 0 {
				t.Fatalf("%v: isError=%t code %q after %d RS calls, want invalid_field_window_selector before any", args, res.IsError, code, len(reqs))
			}
		default:
			if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/field-window") {
				t.Fatalf("%v: RS calls %+v, want one field-window read", args, reqs)
			}
			if got := reqs[0].Query.Encode(); got != want.Encode() {
				t.Fatalf("%v: RS query\n got %s\nwant %s", args, got, want.Encode())
			}
			if res.IsError && code == "" {
				t.Fatalf("%v: untyped error %v", args, res.Content)
			}
		}
	})
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FuzzToolCall sends fuzzed JSON arguments to every tool through the real
// handler: the server never panics or drops the session, and answers each
// call with a result; an error result always carries a typed code.
func FuzzToolCall(f *testing.F) {
	tools := surface()
	for i, s := range []string{
		`{}`, `{"stream":"messages","connection_id":"cin_work","detail":"full"}`,
		`{"stream":"messages","connection_id":"cin_work","fields":["subject"],"filter":{"label":"inbox","sent_at":{"gte":"2026-01-01"}},"limit":3,"expand":["attachments"],"expand_limit":{"attachments":2}}`,
		`{"stream":"messages","metric":"count","group_by":"label","connection_id":"cin_work"}`,
		`{"q":"budget","limit":4}`, `{"id":"cin_work/messages:m007","fields":["body"]}`,
		`{"id":"cin_work/messages:m007","field_path":"body","q":"budget","before_chars":20}`,
		`{"stream":"messages"}`, `{"id":"messages:m001"}`, `{"stream":"messages","metric":"sum","field":"size","group_by_time":"sent_at","granularity":"day"}`,
		`{"stream":"messages","changes_since":"beginning","connection_id":"cin_home"}`, `[]`, `"x"`, `{"stream":"../x"}`,
		`{"stream":"%2e%2e","metric":"count"}`, `{"stream":"a%2fb","limit":1}`, `{"stream":"a\\b","metric":"count"}`, `{"stream":"%252e%252e%252fx"}`,
	} {
		for j := range tools {
			if i < 2 || i%len(tools) == j || i >= 7 {
				f.Add(uint8(j), []byte(s))
			}
		}
	}
	cs, rs := fuzzSession(f)
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		if !json.Valid(raw) {
			return // the client cannot send it
		}
		tool := tools[int(which)%len(tools)].name
		rs.ResetRequests()
		ctx, cancel := context.WithTimeout(context.Background(), callBound)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(raw)})
		var rpcErr *jsonrpc.Error
		if err != nil && !errors.As(err, &rpcErr) {
			t.Fatalf("%s %s: %v", tool, raw, err)
		}
		if err == nil && res.IsError && resultCode(res) == "" {
			t.Fatalf("%s %s: untyped error %v", tool, raw, res.Content)
		}
		// These tools put the stream into the RS path: a traversal or
		// separator variant must be refused before any RS call.
		var args struct {
			Stream any `json:"stream"`
		}
		if (tool == "query_records" || tool == "aggregate") && json.Unmarshal(raw, &args) == nil {
			if stream, ok := args.Stream.(string); ok && traversal(stream) {
				if err == nil && !res.IsError {
					t.Fatalf("%s accepted stream %q", tool, stream)
				}
				if n := len(rs.Requests()); n != 0 {
					t.Fatalf("%s with stream %q reached the RS %d times", tool, stream, n)
				}
			}
		}
	})
}
