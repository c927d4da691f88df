package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"strings"
	"testing"
)

// Regression coverage for the default tools/list payload: exact membership,
// byte budget, instructions present, no duplicated cross-tool guidance.
const toolsListBudgetBytes = 10000

func testServer() *Server {
	rs, _ := NewRSClient("http://127.0.0.1:1")
	return &Server{rs: rs, logger: log.New(io.Discard, "", 0)}
}

func rpc(t *testing.T, s *Server, req string) map[string]any {
	t.Helper()
	out := s.Handle(context.Background(), []byte(req), "")
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("bad response %q: %v", out, err)
	}
	return m
}

func TestToolsListFootprint(t *testing.T) {
	s := testServer()
	out := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "")
	if len(out) > toolsListBudgetBytes {
		t.Fatalf("tools/list payload %d bytes exceeds budget %d", len(out), toolsListBudgetBytes)
	}
	var m struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range m.Result.Tools {
		names = append(names, tl["name"].(string))
		ann := tl["annotations"].(map[string]any)
		if ann["readOnlyHint"] != true {
			t.Errorf("%s not read-only", tl["name"])
		}
	}
	if strings.Join(names, ",") != "schema,query_records,aggregate,search,fetch,read_record_field" {
		t.Fatalf("unexpected tool set %v", names)
	}
	body := string(out)
	for _, banned := range []string{"connector_instance_id", "list_streams", "fetch_blob", "subscription", "owner token", "profile"} {
		if strings.Contains(body, banned) {
			t.Errorf("tools/list mentions %q", banned)
		}
	}
	// connection_id recovery guidance must not be repeated across tool schemas.
	if n := strings.Count(body, "ambiguous_connection"); n > 0 {
		t.Errorf("ambiguity recovery guidance repeated in tool schemas (%d)", n)
	}
	if n := strings.Count(body, "Optional source connection (from schema)"); n > 6 {
		t.Errorf("connection_id description repeated %d times", n)
	}
}

func TestInitializeInstructions(t *testing.T) {
	s := testServer()
	for _, v := range []string{"2025-06-18", "2025-03-26", "2024-11-05"} {
		m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`"}}`)
		res := m["result"].(map[string]any)
		if res["protocolVersion"] != v {
			t.Errorf("version %s not echoed: %v", v, res["protocolVersion"])
		}
		ins := res["instructions"].(string)
		head := ins[:512]
		for _, want := range []string{"schema", "connection_id", "Filters are typed", "limit", "next_cursor", "fields"} {
			if !strings.Contains(head, want) {
				t.Errorf("first 512 chars of instructions miss %q", want)
			}
		}
		if strings.Contains(strings.ToLower(ins), "use an owner") || strings.Contains(strings.ToLower(ins), "owner token to") {
			t.Error("instructions must not ask for owner tokens")
		}
	}
	m := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`)
	if m["result"].(map[string]any)["protocolVersion"] != latestVersion {
		t.Error("unknown version should get latest")
	}
}

func TestBadInputNeverCrashes(t *testing.T) {
	s := testServer()
	for _, in := range []string{`{`, `[]`, `[1,2]`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zzz"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"schema","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`, `"str"`, `null`, `42`} {
		out := s.Handle(context.Background(), []byte(in), "")
		if out != nil && !json.Valid(out) {
			t.Errorf("invalid JSON for %s: %s", in, out)
		}
	}
	// tools/call without a token: typed tool error, not a crash
	m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"schema","arguments":{}}}`)
	if m["result"].(map[string]any)["isError"] != true {
		t.Error("expected isError without token")
	}
}

func TestHandles(t *testing.T) {
	h := makeHandle("cin/a", "messages", "id:1/x")
	c, s, r, ok := parseHandle(h)
	if !ok || c != "cin/a" || s != "messages" || r != "id:1/x" {
		t.Fatalf("roundtrip failed: %s -> %q %q %q", h, c, s, r)
	}
	if _, _, _, ok := parseHandle("garbage"); ok {
		t.Error("garbage accepted")
	}
	if balanceMarks("a <mark>b") != "a b" || balanceMarks("<mark>x</mark>") != "<mark>x</mark>" {
		t.Error("balanceMarks")
	}
}
