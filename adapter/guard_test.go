package adapter_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// rpcRefusal is the JSON-RPC error the adapter answers a refused POST with.
type rpcRefusal struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code       string `json:"code"`
			LimitBytes int64  `json:"limit_bytes"`
		} `json:"data"`
	} `json:"error"`
}

func decodeRefusal(t *testing.T, body []byte) rpcRefusal {
	t.Helper()
	var r rpcRefusal
	if err := json.Unmarshal(body, &r); err != nil || r.JSONRPC != "2.0" || r.ID != nil || r.Error.Code != -32600 {
		t.Fatalf("want a JSON-RPC Invalid Request error with id null, got %s (%v)", body, err)
	}
	return r
}

// MCP 2025-11-25 has no batching: a batch array is refused whole, before
// any call in it runs, even when the SDK would take it (no
// MCP-Protocol-Version header means 2025-03-26 to the SDK).
func TestBatchArraysAreRefused(t *testing.T) {
	srv, rs := hostedAdapter(t, adapter.Options{})
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","connection_id":"cin_work"}}}`
	for _, body := range []string{"[" + call + "]", " \r\n\t[" + `{"jsonrpc":"2.0","id":1,"method":"ping"},` + call + "]"} {
		rs.ResetRequests()
		resp, got := hostedDo(t, "POST", srv.URL+adapter.MCPPath, rs.ClientToken(), body, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("batch: HTTP %d %.300s, want 400", resp.StatusCode, got)
		}
		if r := decodeRefusal(t, got); r.Error.Data.Code != "batch_not_supported" || !strings.Contains(r.Error.Message, "batch") {
			t.Errorf("batch refusal %s: want data.code batch_not_supported and a message naming batches", got)
		}
		if reqs := rs.RequestsTo("/v1/streams"); len(reqs) != 0 {
			t.Errorf("a refused batch reached the RS: %v", reqs)
		}
	}
}

// An /mcp body over the cap gets a typed 413, whether it declares its
// length or not; a body exactly at the cap is served.
func TestOversizedBodiesAreRefused(t *testing.T) {
	srv, rs := hostedAdapter(t, adapter.Options{})
	const limit = adapter.DefaultMaxBodyBytes
	padded := func(n int) string { // a ping padded with whitespace to n bytes
		p := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		return p + strings.Repeat(" ", n-len(p))
	}
	post := func(body string, chunked bool) (*http.Response, []byte) {
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // unknown length: sent chunked
		}
		req, _ := http.NewRequest("POST", srv.URL+adapter.MCPPath, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for _, chunked := range []bool{false, true} {
		resp, got := post(padded(limit+1), chunked)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked=%v, %d bytes: HTTP %d %.300s, want 413", chunked, limit+1, resp.StatusCode, got)
		}
		if r := decodeRefusal(t, got); r.Error.Data.Code != "body_too_large" || r.Error.Data.LimitBytes != limit {
			t.Errorf("413 body %s: want data.code body_too_large and limit_bytes %d", got, limit)
		}
		if resp, got := post(padded(limit), chunked); resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte(`"result"`)) {
			t.Errorf("chunked=%v, a ping of exactly %d bytes: HTTP %d %.300s, want 200", chunked, limit, resp.StatusCode, got)
		}
	}
}
