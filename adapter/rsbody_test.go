package adapter

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddBodies are 2xx JSON answers of the wrong shape.
var oddBodies = []string{
	`null`, `{}`, `[]`, `1`, `"x"`, `{"data":"x"}`, `{"data":[1,2]}`, `{"data":[null]}`,
	`{"data":[{"id":5,"data":"x","stream":7}]}`, `{"streams":5,"connectors":[{"streams":"x"}]}`,
	`{"connectors":[{"connector_key":"k","streams":[{"name":"messages","fields":{"a":5},"expand_capabilities":"x"}]}]}`,
	`{"text":5,"total_chars":"x"}`, `{"data":[{"id":"a","snippet":5,"evidence":"x"}]}`, `{"groups":[{"key":null,"value":"x"}]}`,
	`{"next_cursor":5,"has_more":"yes"}`, `{"data":[{"id":"a","data":{"body":null}}]}`,
}

// oddCalls reach every tool with arguments that make exactly the reads
// whose bodies oddBodies replaces.
var oddCalls = []struct{ tool, args string }{
	{"schema", `{}`}, {"schema", `{"stream":"messages","connection_id":"c"}`}, {"schema", `{"stream":"messages","detail":"full"}`},
	{"query_records", `{"stream":"messages","connection_id":"c"}`}, {"query_records", `{"stream":"messages","fields":["a"],"expand":["x"]}`},
	{"aggregate", `{"stream":"messages","connection_id":"c","metric":"count","group_by":"a"}`}, {"search", `{"q":"x"}`},
	{"fetch", `{"id":"c/messages:m1"}`}, {"read_record_field", `{"id":"messages:m1","field_path":"body"}`},
}

// oddRS answers every request with the current body as application/json.
type oddRS struct {
	mu   sync.Mutex
	body string
}

func (o *oddRS) set(b string) { o.mu.Lock(); o.body = b; o.mu.Unlock() }

func (o *oddRS) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	o.mu.Lock()
	b := o.body
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(b))
}

// An RS that answers 2xx JSON of the wrong shape never crashes the adapter:
// every tool answers, with a result or a typed error, and keeps serving.
// Before, a null schema or search body panicked the whole process.
func TestOddRSBodiesNeverCrash(t *testing.T) {
	rs := &oddRS{}
	srv := httptest.NewServer(rs)
	defer srv.Close()
	a, err := New(Options{ProviderURL: srv.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range oddBodies {
		rs.set(b)
		for _, c := range oddCalls {
			res := dispatchNoRecover(t, a, c.tool, c.args)
			if res.IsError && resultCode(res) == "" {
				t.Errorf("%s %s on %s: untyped error %v", c.tool, c.args, b, res.Content)
			}
		}
	}
	rs.set(`null`)
	for _, tool := range []string{"schema", "search"} {
		args := map[string]string{"schema": `{}`, "search": `{"q":"x"}`}[tool]
		if res := dispatchNoRecover(t, a, tool, args); resultCode(res) != "rs_malformed_body" {
			t.Errorf("%s on null: %v, want rs_malformed_body", tool, res.Content)
		}
	}
}

func dispatchNoRecover(t *testing.T, a *Adapter, tool, args string) (res *mcp.CallToolResult) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s %s panicked: %v", tool, args, p)
		}
	}()
	return a.dispatch(context.Background(), &mcp.CallToolRequest{}, tool, json.RawMessage(args))
}

// A panic in a tool handler becomes a typed isError result naming no caller
// data, instead of ending the process.
func TestToolPanicsBecomeTypedErrors(t *testing.T) {
	res, err := recoverTool(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var window []byte
		_ = window[len(oddBodies)] // a renderer's off-by-one
		return nil, nil
	})(context.Background(), &mcp.CallToolRequest{})
	if err != nil || !res.IsError || resultCode(res) != "internal_error" || !strings.Contains(text(res), "index out of range") {
		t.Fatalf("%v %+v", err, res)
	}
	res, _ = recoverTool(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("secret-bearer-value")
	})(context.Background(), &mcp.CallToolRequest{})
	if strings.Contains(text(res), "secret") {
		t.Errorf("a non-runtime panic value reached the caller: %s", text(res))
	}
}

// FuzzRSBody answers every RS read with a fuzzed 2xx JSON body: no tool may
// panic, and an error must be typed.
func FuzzRSBody(f *testing.F) {
	for i, b := range oddBodies {
		f.Add(uint8(i%len(oddCalls)), []byte(b))
	}
	f.Add(uint8(1), []byte(`{"connectors":[{"connector_key":"gmail","granted_connections":[{"connection_id":"c"}],"streams":[{"name":"messages","fields":{"body":{"type":"string"}}}]}]}`))
	f.Add(uint8(6), []byte(`{"object":"list","data":[{"id":"c/messages:m1","stream":"messages","connection_id":"c","snippet":"a <mark>b</mark>","score":1}],"has_more":false}`))
	f.Add(uint8(8), []byte(`{"field":"body","text":"hello","offset_chars":0,"limit_chars":5,"total_chars":10,"complete":false,"next_offset_chars":5}`))
	rs := &oddRS{}
	srv := httptest.NewServer(rs)
	f.Cleanup(srv.Close)
	a, err := New(Options{ProviderURL: srv.URL, Token: "t"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		if !json.Valid(body) {
			return // the RS client refuses it before any tool sees it
		}
		rs.set(string(body))
		c := oddCalls[int(which)%len(oddCalls)]
		if res := dispatchNoRecover(t, a, c.tool, c.args); res.IsError && resultCode(res) == "" {
			t.Fatalf("%s on %s: untyped error %v", c.tool, body, res.Content)
		}
	})
}
