// Package itest runs the adapter end to end against a PDPP resource
// server. Set PDPP_FAKE_RS to the path of a stand-in RS binary that accepts
// "--profile spec --addr 127.0.0.1:0 --fixture NAME" and prints url=,
// token= and owner_token= lines; the tests are skipped otherwise.
package itest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/adapter"
	"example.com/pdppadapter-t/internal/hosted"
)

type rsProc struct {
	url, token, owner string
}

func startRS(t *testing.T, fixture string) rsProc {
	t.Helper()
	bin := os.Getenv("PDPP_FAKE_RS")
	if bin == "" {
		t.Skip("PDPP_FAKE_RS not set")
	}
	cmd := exec.Command(bin, "--profile", "spec", "--addr", "127.0.0.1:0", "--fixture", fixture, "--no-control")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var p rsProc
	sc := bufio.NewScanner(out)
	deadline := time.Now().Add(10 * time.Second)
	for sc.Scan() && time.Now().Before(deadline) {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "url":
			p.url = v
		case "token":
			p.token = v
		case "owner_token":
			p.owner = v
		}
		if p.url != "" && p.token != "" && p.owner != "" {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if p.url == "" || p.token == "" {
		t.Fatal("fake RS did not print url/token")
	}
	return p
}

func session(t *testing.T, rs rsProc, token string) *mcp.ClientSession {
	t.Helper()
	a, err := adapter.New(adapter.Config{RSURL: rs.url})
	if err != nil {
		t.Fatal(err)
	}
	srv := a.NewServer(adapter.StaticToken(token))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "itest", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type result struct {
	text  string
	sc    map[string]any
	isErr bool
	raw   *mcp.CallToolResult
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var r result
	r.raw = res
	r.isErr = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &r.sc)
	return r
}

func errCode(r result) string {
	e, _ := r.sc["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func TestSchemaIndexListsEveryStream(t *testing.T) {
	rs := startRS(t, "default")
	cs := session(t, rs, rs.token)
	r := call(t, cs, "schema", map[string]any{})
	if r.isErr {
		t.Fatal(r.text)
	}
	for _, s := range []string{"messages", "attachments", "channels", "issues", "cin_work", "cin_home", "cin_slack", "cin_github", "gmail", "slack", "github"} {
		if !strings.Contains(r.text, s) {
			t.Errorf("schema index text lacks %q", s)
		}
	}
	data := r.sc["data"].(map[string]any)
	if _, dup := data["streams"]; dup {
		t.Error("index duplicates stream rows at top level")
	}
	// detail full without stream is refused before any fetch.
	r = call(t, cs, "schema", map[string]any{"detail": "full"})
	if !r.isErr || !strings.Contains(r.text, `"detail": "full"`) {
		t.Errorf("detail full without stream: %v %s", r.isErr, r.text)
	}
	// Scoped full detail on a shared name needs connection_id.
	r = call(t, cs, "schema", map[string]any{"stream": "messages", "detail": "full"})
	if !r.isErr || errCode(r) != "ambiguous_connection" || !strings.Contains(r.text, "retry_with connection_id") {
		t.Errorf("ambiguous full schema: %s", r.text)
	}
	r = call(t, cs, "schema", map[string]any{"stream": "messages", "connection_id": "cin_work", "detail": "full"})
	if r.isErr {
		t.Fatal(r.text)
	}
	d := r.sc["data"].(map[string]any)
	if _, nested := d["data"]; nested {
		t.Error("schema document nested under data.data")
	}
	if !strings.Contains(r.text, "raw JSON Schema") || strings.Contains(r.text, "cin_home") {
		t.Errorf("scoped full schema text wrong: %s", r.text)
	}
}

func TestQueryPagingToEnd(t *testing.T) {
	rs := startRS(t, "default")
	cs := session(t, rs, rs.token)
	args := map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 9, "count": "exact", "fields": []string{"subject"}}
	seen := map[string]bool{}
	total := -1
	re := regexp.MustCompile(`next page: query_records (\{.*\})`)
	for i := 0; i < 50; i++ {
		r := call(t, cs, "query_records", args)
		if r.isErr {
			t.Fatal(r.text)
		}
		for _, d := range r.sc["data"].([]any) {
			rec := d.(map[string]any)
			seen[rec["record_id"].(string)] = true
			data := rec["data"].(map[string]any)
			for k := range data {
				if k != "subject" {
					t.Errorf("projection leaked field %q", k)
				}
			}
		}
		if c, ok := r.sc["count"].(map[string]any); ok && total < 0 {
			total = int(c["value"].(float64))
		}
		m := re.FindStringSubmatch(r.text)
		if m == nil {
			break
		}
		args = map[string]any{}
		json.Unmarshal([]byte(m[1]), &args)
	}
	if total <= 0 || len(seen) != total {
		t.Errorf("paged %d unique records, count said %d", len(seen), total)
	}
}

func TestFetchDocumentContract(t *testing.T) {
	rs := startRS(t, "default")
	cs := session(t, rs, rs.token)
	r := call(t, cs, "fetch", map[string]any{"id": "pdpp://record/cin_work/messages/m007"})
	if r.isErr {
		t.Fatal(r.text)
	}
	want := []string{"id", "metadata", "text", "title", "url"}
	var keys []string
	for k := range r.sc {
		keys = append(keys, k)
	}
	if len(keys) != len(want) {
		t.Errorf("document keys = %v", keys)
	}
	var mirror map[string]any
	if err := json.Unmarshal([]byte(r.text), &mirror); err != nil {
		t.Fatalf("content is not the JSON mirror: %v", err)
	}
	a, _ := json.Marshal(mirror)
	b, _ := json.Marshal(r.sc)
	if string(a) != string(b) {
		t.Error("content[] mirror differs from structuredContent")
	}
	doc := r.sc["text"].(string)
	if len(doc) > 20000 || !strings.Contains(doc, "read_record_field") {
		t.Errorf("large body not bounded with a continuation (len %d)", len(doc))
	}
	// Projection: unrequested fields appear nowhere.
	r = call(t, cs, "fetch", map[string]any{"id": "pdpp://record/cin_work/messages/m007", "fields": []string{"subject"}})
	for _, leak := range []string{"sender2@example.com", "Paragraph 0", "receipts", "x-priority"} {
		if strings.Contains(r.text, leak) {
			t.Errorf("projected fetch leaked %q", leak)
		}
	}
	md := r.sc["metadata"].(map[string]any)
	for _, k := range []string{"connection_id", "connector_key", "stream", "record_id"} {
		if md[k] == nil || md[k] == "" {
			t.Errorf("metadata lacks %s", k)
		}
	}
}

func TestAmbiguityAndExpandGate(t *testing.T) {
	rs := startRS(t, "default")
	cs := session(t, rs, rs.token)
	r := call(t, cs, "fetch", map[string]any{"id": "m-shared", "stream": "messages"})
	if !r.isErr || errCode(r) != "ambiguous_connection" {
		t.Fatalf("expected ambiguous_connection, got %s", r.text)
	}
	e := r.sc["error"].(map[string]any)
	if e["retry_with"] != "connection_id" {
		t.Error("retry_with missing")
	}
	for _, c := range e["available_connections"].([]any) {
		m := c.(map[string]any)
		for _, k := range []string{"grant_id", "connector_key", "connection_id"} {
			if m[k] == nil {
				t.Errorf("available_connections entry lacks %s: %v", k, m)
			}
		}
	}
	r = call(t, cs, "query_records", map[string]any{"stream": "attachments", "expand": []string{"message"}})
	if !r.isErr || errCode(r) != "invalid_expand" || !strings.Contains(r.text, "attachments") || !strings.Contains(r.text, "/v1/schema") {
		t.Errorf("expand gate: %s", r.text)
	}
	r = call(t, cs, "query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "expand": []string{"attachments"}, "limit": 2})
	if r.isErr {
		t.Errorf("expand on advertised relation failed: %s", r.text)
	}
}

func TestSearchAndFieldReads(t *testing.T) {
	rs := startRS(t, "default")
	cs := session(t, rs, rs.token)
	r := call(t, cs, "search", map[string]any{"q": "budget", "limit": 3})
	if r.isErr {
		t.Fatal(r.text)
	}
	results := r.sc["results"].([]any)
	if len(results) > 3 {
		t.Errorf("limit 3 returned %d hits", len(results))
	}
	if !strings.Contains(r.text, "source mix") {
		t.Error("no source mix for a multi-connection fan-in")
	}
	for _, h := range results {
		m := h.(map[string]any)
		for _, k := range []string{"id", "title", "connection_id", "connector_key", "stream", "record_id"} {
			if m[k] == nil || m[k] == "" {
				t.Errorf("hit lacks %s", k)
			}
		}
		if ev, ok := m["evidence"].(map[string]any); ok {
			p := ev["preview"].(string)
			if strings.Count(p, "<mark>") != strings.Count(p, "</mark>") {
				t.Errorf("unbalanced highlight %q", p)
			}
			if m["title"] == p {
				t.Error("title equals snippet")
			}
		}
		// Every id is fetchable.
		f := call(t, cs, "fetch", map[string]any{"id": m["id"]})
		if f.isErr {
			t.Errorf("fetch of search id failed: %s", f.text)
		}
	}
	// Bounded field window with continuation.
	w := call(t, cs, "read_record_field", map[string]any{"id": "pdpp://record/cin_work/messages/m007", "field": "body", "limit_chars": 500})
	if w.isErr || !strings.Contains(w.text, "next: read_record_field") {
		t.Fatalf("window: %s", w.text)
	}
	win := w.sc["window"].(map[string]any)
	if win["complete"] != false || win["total_chars"].(float64) < 1000 {
		t.Errorf("window metadata: %v", win)
	}
	// Binary-looking field is metadata-only by default.
	b := call(t, cs, "read_record_field", map[string]any{"id": "pdpp://record/cin_work/attachments/a001", "field": "payload"})
	if b.isErr || strings.Contains(b.text, "UE5H") || !strings.Contains(b.text, `"raw":true`) {
		t.Errorf("binary field: %s", b.text)
	}
	q := call(t, cs, "query_records", map[string]any{"stream": "attachments", "limit": 3})
	if strings.Contains(q.text, "UE5HLT") {
		t.Error("query_records inlined base64 payload")
	}
	// Non-text field reads through JSON windows.
	h := call(t, cs, "read_record_field", map[string]any{"id": "pdpp://record/cin_work/messages/m007", "field": "headers"})
	if h.isErr || !strings.Contains(h.text, "x-priority") {
		t.Errorf("object field: %s", h.text)
	}
}

func TestOwnerTokenRefused(t *testing.T) {
	rs := startRS(t, "default")
	a, _ := adapter.New(adapter.Config{RSURL: rs.url})
	if _, err := a.VerifyToken(context.Background(), rs.owner); err == nil {
		t.Fatal("owner token verified")
	}
	cs := session(t, rs, rs.owner)
	r := call(t, cs, "schema", map[string]any{})
	if !r.isErr || errCode(r) != "owner_token_rejected" {
		t.Errorf("owner token tool call: %s", r.text)
	}
}

type bearerRT struct {
	tok string
	rt  http.RoundTripper
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.rt.RoundTrip(r)
}

func TestHostedStreamableHTTP(t *testing.T) {
	rs := startRS(t, "default")
	a, _ := adapter.New(adapter.Config{RSURL: rs.url})
	srv := httptest.NewServer(hosted.Handler(hosted.Options{Adapter: a}))
	defer srv.Close()
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{rs.token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "h", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := call(t, cs, "schema", map[string]any{})
	if r.isErr || !strings.Contains(r.text, "messages") {
		t.Errorf("hosted schema: %s", r.text)
	}
	// No bearer: 401 with a resource_metadata challenge.
	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("missing bearer: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// Owner bearer: 403 before any MCP processing.
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
	req.Header.Set("Authorization", "Bearer "+rs.owner)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("owner bearer: status %d", resp.StatusCode)
	}
}
