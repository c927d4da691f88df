package variation

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
	json "github.com/segmentio/encoding/json"
)

// An observation is what a client sees of an adapter, by what it did:
// initialize, tools/list, a fixed script of tool calls (successes and
// rejections), resources, --help, and the hosted setup pages.
type observation map[string]string

// A step is one tool call of the script.
type step struct {
	name, tool string
	args       map[string]any
}

// script reads every tool over the default fixture, and provokes the
// rejections a variation may answer differently.
var script = []step{
	{"schema index", "schema", map[string]any{}},
	{"schema shared", "schema", map[string]any{"stream": "messages"}},
	{"schema scoped", "schema", map[string]any{"stream": "messages", "connection_id": "cin_work"}},
	{"schema full global", "schema", map[string]any{"detail": "full"}},
	{"records page", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 2, "count": "exact"}},
	{"records default", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work"}},
	{"records changes", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 2, "changes_since": "beginning"}},
	{"records long body", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "fields": []string{"body"}, "limit": 10}},
	{"records no connection", "query_records", map[string]any{"stream": "messages", "limit": 1}},
	{"aggregate grouped", "aggregate", map[string]any{"stream": "messages", "connection_id": "cin_work", "metric": "count", "group_by": "label"}},
	{"search fan-in", "search", map[string]any{"q": fakers.FanInTerm, "limit": 5}},
	{"search paged", "search", map[string]any{"q": fakers.FanInTerm, "limit": 1}},
	{"fetch", "fetch", map[string]any{"id": "cin_work/messages:" + fakers.ShortBodyRecordID}},
	{"fetch long", "fetch", map[string]any{"id": "cin_work/messages:" + fakers.LongBodyRecordID}},
	{"field small", "read_record_field", map[string]any{"id": "cin_work/messages:" + fakers.ShortBodyRecordID, "field_path": "body"}},
	{"field window", "read_record_field", map[string]any{"id": "cin_work/messages:" + fakers.LongBodyRecordID, "field_path": "body", "limit_chars": 200}},
	{"reject unknown argument", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "mcpcheck_bogus": 1}},
	{"reject limit", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 101}},
	{"reject string filter", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "filter": "filter[label]=work"}},
	{"reject filter operator", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "filter": map[string]any{"sent_at": map[string]any{"after": "2026-01-01"}}}},
	{"reject order", "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "order": "sideways"}},
	{"reject aggregate limit", "aggregate", map[string]any{"stream": "messages", "connection_id": "cin_work", "metric": "count", "group_by": "label", "limit": 500}},
	{"reject id", "fetch", map[string]any{"id": "messages:../secret"}},
}

// observe serves the adapter with v (nil: as shipped) in front of the
// default fixture and records what a client sees.
func observe(t *testing.T, v *Variation) observation {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.SpecClientReads = true
	var opts adapter.Options
	Configure(v, &opts)
	srv := adaptertest.Start(t, fx, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hc := &http.Client{Transport: bearer{http.DefaultTransport, srv.RS.ClientToken()}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "observe"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.MCPURL, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // as mcpcheck pins it
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	obs := observation{"initialize": normalized(cs.InitializeResult())}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	obs["tools/list"] = normalized(tools)
	for _, s := range script {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
		var rpc *jsonrpc.Error
		switch {
		case errors.As(err, &rpc):
			obs[s.name] = "JSON-RPC error " + normalized(rpc)
		case err != nil:
			t.Fatalf("%s: %v", s.name, err)
		default:
			obs[s.name] = normalized(res)
		}
	}
	if templates, err := cs.ListResourceTemplates(ctx, nil); err == nil {
		obs["resources/templates/list"] = normalized(templates)
		if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: adapter.RecordURIPrefix + "cin_work%2Fmessages:" + fakers.ShortBodyRecordID}); err == nil {
			obs["resources/read"] = normalized(rr)
		}
	}
	var help strings.Builder
	Run(ctx, v, []string{"--help"}, func(string) string { return "" }, strings.NewReader(""), io.Discard, &help)
	obs["--help"] = help.String()
	for _, page := range []string{adapter.SetupPath, adapter.LLMsPath} {
		resp, err := http.Get(srv.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		obs[page] = stable(string(body))
	}
	return obs
}

type bearer struct {
	http.RoundTripper
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.RoundTripper.RoundTrip(r)
}

// requestIDRe matches the RS's per-request ids and the loopback ports,
// which differ on every run.
var requestIDRe = regexp.MustCompile(`"request_id":"[^"]*"|req_[A-Za-z0-9]+|127\.0\.0\.1:\d+`)

// normalized is v as JSON without the values that change from run to run.
func normalized(v any) string {
	b, _ := json.Marshal(v)
	return stable(string(b))
}

// stable is s without the RS's request ids and the servers' ports.
func stable(s string) string { return requestIDRe.ReplaceAllString(s, "") }
