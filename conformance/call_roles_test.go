package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// foreignFieldRead serves one read_record_field in another dialect: its
// window starts at "take", which inference reads as the window's length.
func foreignFieldRead(t *testing.T) (string, func() map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var last map[string]any
	srv := mcp.NewServer(&mcp.Implementation{Name: "foreign", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read_record_field", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"handle":{"type":"string","description":"Record handle"},"key":{"type":"string","description":"Field to read"},` +
		`"take":{"type":"integer","description":"Where the window starts"}},"required":["handle","key"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			mu.Lock()
			last = args
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, func() map[string]any { mu.Lock(); defer mu.Unlock(); return last }
}

func oneClauseEntry(run func(t *T)) Entry {
	sc := scenarios.Scenario{ID: "S999", Slug: "dialect-probe", Clauses: []scenarios.Clause{{Key: "S999.1", Kind: "THEN", Text: "reads a window", Level: scenarios.Required}}}
	return Entry{Scenario: sc, Status: Checked, Check: &Check{ID: "S999", Slug: "dialect-probe", Run: run}}
}

func openForeign(t *testing.T, url string, o *dialect.Overrides) *Target {
	t.Helper()
	tgt, err := Open(context.Background(), TargetSpec{URL: url, ConnectTimeout: 10 * time.Second, Dialect: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tgt.Close)
	return tgt
}

// A window read by role: the offset goes under the target's own name, and
// --dialect corrects an inference that got that name wrong.
func TestDialectFileCorrectsAWrongInferenceEndToEnd(t *testing.T) {
	url, last := foreignFieldRead(t)
	readAtOffset := oneClauseEntry(func(t *T) {
		t.Clause(1, func() {
			c := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: "r1", dialect.Field: "body", dialect.Offset: 200})
			t.Assert(!c.IsError(), "%s", c.Describe())
		})
	})

	wrong := openForeign(t, url, nil)
	res := Evaluate(context.Background(), readAtOffset, wrong, Settings{})
	if res.Verdict != Skip || !strings.Contains(res.Message, "the target declares no argument for the offset on read_record_field") {
		t.Fatalf("inferred dialect: %s %q, want a skip naming the offset", res.Verdict, res.Message)
	}
	if got := summaryLine(wrong, "read_record_field"); !strings.Contains(got, "length = take (inputSchema)") {
		t.Errorf("inferred summary: %q", got)
	}

	o, err := dialect.ParseOverrides([]byte("arguments:\n  read_record_field:\n    offset: take\n"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := openForeign(t, url, o)
	res = Evaluate(context.Background(), readAtOffset, fixed, Settings{})
	if res.Verdict != Pass {
		t.Fatalf("corrected dialect: %s %q, want pass", res.Verdict, res.Message)
	}
	if got := last(); got["take"] != 200.0 || got["handle"] != "r1" || got["key"] != "body" {
		t.Errorf("the call sent %v, want handle, key and take=200", got)
	}
	if got := summaryLine(fixed, "read_record_field"); !strings.Contains(got, "record id = handle, field = key (inputSchema); offset = take (--dialect)") {
		t.Errorf("corrected summary: %q", got)
	}
}

// An argument the target does not declare is never sent: the clause is not
// exercised (a harness error only for the reference adapter under go
// test); CallAsGiven sends it on purpose.
func TestUndeclaredArgumentsAreRefused(t *testing.T) {
	url, last := foreignFieldRead(t)
	tgt := openForeign(t, url, nil)
	res := Evaluate(context.Background(), oneClauseEntry(func(t *T) {
		t.Clause(1, func() { t.Call("read_record_field", map[string]any{"handle": "r1", "field_path": "body"}) })
	}), tgt, Settings{})
	if res.Verdict != Skip || !strings.Contains(res.Message, "the target declares no argument field_path on read_record_field") || last() != nil {
		t.Fatalf("undeclared argument: %s %q (sent %v), want a skip and nothing sent", res.Verdict, res.Message, last())
	}
	res = Evaluate(context.Background(), oneClauseEntry(func(t *T) {
		t.Clause(1, func() {
			c := t.CallAsGiven("read_record_field", map[string]any{"handle": "r1", "key": "body", "bogus": 1})
			t.Assert(c != nil, "sent")
		})
	}), tgt, Settings{})
	if res.Verdict != Pass || last()["bogus"] != 1.0 {
		t.Fatalf("CallAsGiven: %s %q (sent %v)", res.Verdict, res.Message, last())
	}
}

func summaryLine(tgt *Target, tool string) string {
	for _, s := range tgt.DialectSummary() {
		if s.Tool == tool {
			return s.Line()
		}
	}
	return ""
}
