package realrs

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const callTimeout = 30 * time.Second

// stdioSession runs pdpp-mcp over stdio with token in its environment.
func stdioSession(t *testing.T, r *realRS, token string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(pdppMCP, "--provider-url", r.URL)
	cmd.Env = append(os.Environ(), "PDPP_CLIENT_TOKEN="+token)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realrs-journey", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("pdpp-mcp over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// serve starts `pdpp-mcp serve` on a free loopback port and returns its
// /mcp endpoint; it stops at cleanup.
func serve(t *testing.T, r *realRS) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(pdppMCP, "serve", "--addr", addr, "--provider-url", r.URL)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) {
			t.Fatalf("pdpp-mcp serve did not listen on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpSession connects to a `pdpp-mcp serve` endpoint with token as bearer.
func httpSession(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerRT{token}}, DisableStandaloneSSE: true, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realrs-journey", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("pdpp-mcp serve at %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A result is one tool answer, read the way an agent reads it.
type result struct {
	call       string
	isError    bool
	text       string
	structured map[string]any
}

func (r result) String() string {
	return fmt.Sprintf("%s → isError=%v %s", r.call, r.isError, clip(r.text, 600))
}

// errorField is a key of the error object of an error result.
func (r result) errorField(k string) string {
	e, _ := r.structured["error"].(map[string]any)
	s, _ := e[k].(string)
	return s
}

func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	a, _ := json.Marshal(args)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	r := result{call: tool + " " + string(a)}
	if err != nil {
		// A protocol error (the SDK's input validation): typed, code -32602.
		r.isError, r.text = true, err.Error()
		return r
	}
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &r.structured)
	return r
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// advertised reads every tool's argument names from tools/list.
func advertised(t *testing.T, cs *mcp.ClientSession) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tool := range lt.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(b, &s)
		out[tool.Name] = []string{}
		for p := range s.Properties {
			out[tool.Name] = append(out[tool.Name], p)
		}
	}
	return out
}

// str reads a string at a path of nested objects.
func str(v any, path ...string) string {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

func list(v any, path ...string) []any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	l, _ := v.([]any)
	return l
}

func hasWord(text, w string) bool { return strings.Contains(strings.ToLower(text), strings.ToLower(w)) }
