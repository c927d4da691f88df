package adapter_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Profiles of the whole chain in one process: MCP client, adapter over
// loopback HTTP, fixture RS over loopback HTTP. `mcpcheck bench` is the
// comparable, cross-adapter measurement; these are for pprof.
//
//	go test ./adapter -run '^$' -bench ToolCall -cpuprofile cpu.out

type chain struct {
	endpoint, token string
	tr              *http.Transport
}

func newChain(b *testing.B, fixture string) *chain {
	b.Helper()
	fx, err := fakers.LoadFixture(fixture)
	if err != nil {
		b.Fatal(err)
	}
	fx.SpecClientReads = true
	srv := adaptertest.Start(b, fx, adapter.Options{})
	srv.RS.KeepRequests(0)
	c := &chain{endpoint: srv.MCPURL, token: srv.RS.ClientToken(), tr: &http.Transport{MaxIdleConnsPerHost: 256}}
	b.Cleanup(c.tr.CloseIdleConnections)
	return c
}

func (c *chain) session(b *testing.B) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: c.endpoint, HTTPClient: &http.Client{Transport: bearerRT{c.tr, c.token}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

func callTool(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
	}
	return res
}

var benchCalls = []struct {
	tool string
	args map[string]any
}{
	{"schema", map[string]any{}},
	{"query_records", map[string]any{"stream": "issues", "limit": 25}},
	{"aggregate", map[string]any{"stream": "issues", "metric": "count", "group_by": "state"}},
	{"search", map[string]any{"q": "budget", "limit": 10}},
	{"fetch", map[string]any{"id": "cin_work/messages:m005"}},
	{"read_record_field", map[string]any{"id": "cin_work/messages:m005", "field_path": "body", "limit_chars": 2048}},
}

// BenchmarkToolCall is one tool call through the whole chain, from 64
// concurrent clients (GOMAXPROCS×32 goroutines on 2 cores).
func BenchmarkToolCall(b *testing.B) {
	c := newChain(b, fakers.DefaultFixture)
	for _, bc := range benchCalls {
		b.Run(bc.tool, func(b *testing.B) {
			callTool(b, c.session(b), bc.tool, bc.args)
			b.SetParallelism(32)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				cs := c.session(b)
				defer cs.Close()
				for pb.Next() {
					callTool(b, cs, bc.tool, bc.args)
				}
			})
		})
	}
}

// BenchmarkScaleSchema is the compact schema of a 1,000-stream grant.
func BenchmarkScaleSchema(b *testing.B) {
	c := newChain(b, "scale:50,20,30,2")
	cs := c.session(b)
	defer cs.Close()
	callTool(b, cs, "schema", map[string]any{})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		callTool(b, cs, "schema", map[string]any{})
	}
}

func BenchmarkToolCallSequential(b *testing.B) {
	c := newChain(b, fakers.DefaultFixture)
	cs := c.session(b)
	defer cs.Close()
	for _, bc := range benchCalls {
		b.Run(bc.tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				callTool(b, cs, bc.tool, bc.args)
			}
		})
	}
}
