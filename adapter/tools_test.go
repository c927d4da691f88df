package adapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// session connects an in-memory MCP client to the adapter, which reads the
// default fixture RS through its httpmock transport. The RS reads as the
// spec says for client tokens (live capability flags, filter and expand),
// as mcpcheck's targets serve it.
func session(t *testing.T) (*mcp.ClientSession, *fakers.RS) {
	t.Helper()
	return sessionWith(t, specFixture(t))
}

// specFixture is the default fixture, read as the spec says.
func specFixture(t *testing.T) *fakers.Fixture {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.SpecClientReads = true
	return fx
}

func sessionWith(t *testing.T, fx *fakers.Fixture) (*mcp.ClientSession, *fakers.RS) {
	t.Helper()
	rs := fakers.New(fx)
	return connectInMemory(t, adapter.Options{ProviderURL: fakers.MockBaseURL, Token: rs.ClientToken(), HTTPClient: &http.Client{Transport: rs.Transport()}}), rs
}

// connectInMemory builds an adapter and connects a client to it over
// in-memory transports; both sessions close at cleanup.
func connectInMemory(t *testing.T, opts adapter.Options) *mcp.ClientSession {
	t.Helper()
	a, err := adapter.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := a.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestEveryToolForwardsToItsEndpoint(t *testing.T) {
	cs, rs := session(t)
	cases := []struct {
		tool string
		args map[string]any
		path string
		want string // in the text
	}{
		{"schema", map[string]any{}, "/v1/schema", "PDPP schema: connectors=3 streams=5"},
		{"schema", map[string]any{"stream": "messages", "connection_id": "cin_work"}, "/v1/schema", `schema_scope connection_id="cin_work"`},
		{"query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 3, "count": "exact"}, "/v1/streams/messages/records", "next_cursor="},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "label", "connection_id": "cin_work"}, "/v1/streams/messages/aggregate", "other_count="},
		{"search", map[string]any{"q": fakers.FanInTerm, "limit": 4}, "/v1/search", "source_mix="},
		{"fetch", map[string]any{"id": "cin_work/messages:" + fakers.LongBodyRecordID}, "/v1/streams/messages/records/" + fakers.LongBodyRecordID, `"text_truncated":true`},
		{"read_record_field", map[string]any{"id": "cin_work/messages:" + fakers.LongBodyRecordID, "field_path": "body", "limit_chars": 100}, "/field-window", "next read_record_field args="},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			rs.ResetRequests()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("isError: %s", text(res))
			}
			if !strings.Contains(text(res), tc.want) {
				t.Errorf("text lacks %q:\n%s", tc.want, text(res))
			}
			reqs := rs.Requests()
			if len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].Path, tc.path) {
				t.Fatalf("RS calls %+v, want %s", reqs, tc.path)
			}
			for _, r := range reqs {
				if r.Authorization != "Bearer "+rs.ClientToken() {
					t.Errorf("RS got Authorization %q, want the configured client token", r.Authorization)
				}
			}
			if strings.Contains(text(res), rs.ClientToken()) {
				t.Error("tool output contains the bearer")
			}
		})
	}
}

func TestFetchIsDocumentShaped(t *testing.T) {
	cs, _ := session(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "cin_home/messages:m-shared"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	var doc map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &doc)
	if len(doc) != 5 || doc["id"] == nil || doc["title"] == nil || doc["text"] == nil || doc["url"] == nil || doc["metadata"] == nil {
		t.Errorf("structuredContent keys: %v", doc)
	}
	var mirror map[string]any
	if err := json.Unmarshal([]byte(text(res)), &mirror); err != nil || len(mirror) != 5 {
		t.Errorf("content[0] is not the JSON mirror: %v", err)
	}
}

func TestHostileArgumentsAreRejectedBeforeTheRS(t *testing.T) {
	cs, rs := session(t)
	for name, call := range map[string]mcp.CallToolParams{
		"traversal id":        {Name: "fetch", Arguments: map[string]any{"id": "messages:../../etc/passwd"}},
		"encoded traversal":   {Name: "read_record_field", Arguments: map[string]any{"id": "messages:%2e%2e%2fx", "field_path": "body"}},
		"string filter":       {Name: "query_records", Arguments: map[string]any{"stream": "messages", "filter": "filter[label]=inbox"}},
		"bracket filter key":  {Name: "query_records", Arguments: map[string]any{"stream": "messages", "filter": map[string]any{"a[b]": "x"}}},
		"over-cap limit":      {Name: "query_records", Arguments: map[string]any{"stream": "messages", "limit": 101}},
		"unknown argument":    {Name: "search", Arguments: map[string]any{"q": "x", "bogus": 1}},
		"full without stream": {Name: "schema", Arguments: map[string]any{"detail": "full"}},
		"conflicting conn":    {Name: "fetch", Arguments: map[string]any{"id": "cin_work/messages:m001", "connection_id": "cin_home"}},
		"stream traversal":    {Name: "aggregate", Arguments: map[string]any{"stream": "../admin", "metric": "count"}},
	} {
		t.Run(name, func(t *testing.T) {
			rs.ResetRequests()
			res, err := cs.CallTool(context.Background(), &call)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError {
				t.Fatalf("accepted: %s", text(res))
			}
			if n := len(rs.Requests()); n != 0 {
				t.Errorf("the RS was called %d times", n)
			}
		})
	}
}

// An omission marker in text carries a call that resumes at the first hidden
// item of the same page; a malformed resume cursor is a typed error.
func TestOmissionMarkersResumeInsideThePage(t *testing.T) {
	cs, _ := session(t)
	res, _ := call(t, cs, "search", map[string]any{"q": "the"})
	out := text(res)
	_, next, ok := strings.Cut(out, "more_results=22; next: search ")
	if !ok {
		t.Fatalf("search text has no resumable more_results marker:\n%s", out)
	}
	var args map[string]any
	if err := json.NewDecoder(strings.NewReader(next)).Decode(&args); err != nil {
		t.Fatal(err)
	}
	page, _ := call(t, cs, "search", args)
	results := func(r *mcp.CallToolResult) []any {
		return r.StructuredContent.(map[string]any)["results"].([]any)
	}
	all, rest := results(res), results(page)
	if len(rest) != 22 || rest[0].(map[string]any)["id"] != all[3].(map[string]any)["id"] {
		t.Errorf("resume gave %d hits starting at %v, want 22 starting at hit 4 %v", len(rest), rest[0], all[3])
	}
	bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "the", "cursor": "skip~x~"}})
	if err != nil || !bad.IsError || !strings.Contains(text(bad), "cursor") {
		t.Errorf("a malformed skip cursor must be a typed cursor error, got %v %s", err, text(bad))
	}
}

// A JSON object field, which the RS's field window refuses as not text, is
// read as windows of its compact JSON; fetch(fields) returns it whole.
func TestJSONFieldIsReadableInFull(t *testing.T) {
	cs, _ := session(t)
	res, _ := call(t, cs, "read_record_field", map[string]any{"id": "cin_work/messages:m007", "field_path": "headers", "limit_chars": 20})
	out := text(res)
	if !strings.Contains(out, "media_type=application/json") || !strings.Contains(out, `"offset_chars":20`) {
		t.Errorf("a JSON field window must name its media type and the next window:\n%s", out)
	}
	doc, _ := call(t, cs, "fetch", map[string]any{"id": "cin_work/messages:m007", "fields": []string{"headers"}})
	var d struct{ Text string }
	if err := json.Unmarshal([]byte(text(doc)), &d); err != nil || !strings.HasPrefix(d.Text, `{"headers":{"message-id":`) {
		t.Errorf("fetch(fields:[headers]) must return the field whole, got %q (%v)", d.Text, err)
	}
}
