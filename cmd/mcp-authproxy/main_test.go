package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

func TestProxyReplacesAuthorizationAndKeepsHost(t *testing.T) {
	type seen struct{ auth, host, path, query, body string }
	got := make(chan seen, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Get("Authorization"), r.Host, r.URL.Path, r.URL.RawQuery, string(body)}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL + "/mcp")
	proxy := httptest.NewServer(newProxy(target, "tok-123"))
	defer proxy.Close()

	req, _ := http.NewRequest("POST", proxy.URL+"/mcp?x=1", strings.NewReader(`{"jsonrpc":"2.0"}`))
	req.Host = "localhost:9999"
	req.Header.Set("Authorization", "Bearer caller-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s := <-got
	want := seen{"Bearer tok-123", "localhost:9999", "/mcp", "x=1", `{"jsonrpc":"2.0"}`}
	if s != want {
		t.Errorf("backend saw %+v, want %+v", s, want)
	}
	if resp.StatusCode != 200 || string(body) != `{"ok":true}` {
		t.Errorf("client got %d %q", resp.StatusCode, body)
	}
}

// The official suite's dns-rebinding-protection scenario only means
// something if the adapter still sees the client's Host through the proxy.
func TestProxyInFrontOfTheAdapterKeepsRebindingProtection(t *testing.T) {
	mcpSrv := adaptertest.Start(t, mustFixture(t), adapter.Options{})
	target, _ := url.Parse(mcpSrv.MCPURL)
	proxy := httptest.NewServer(newProxy(target, mcpSrv.RS.ClientToken()))
	defer proxy.Close()

	post := func(host string) int {
		req, _ := http.NewRequest("POST", proxy.URL+adapter.MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != 200 {
		t.Errorf("tools/list through the proxy: HTTP %d, want 200 (the proxy must add the bearer)", code)
	}
	if code := post("evil.example.com"); code < 400 || code > 499 {
		t.Errorf("foreign Host through the proxy: HTTP %d, want 4xx", code)
	}
}

// N6: a DNS-rebinding page reaches the proxy with its own name as Host:
// the proxy refuses it with 421 and forwards nothing, so no bearer is
// added; loopback names, with or without a port, go through.
func TestProxyForwardsOnlyLoopbackHosts(t *testing.T) {
	var forwarded atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL + "/mcp")
	proxy := httptest.NewServer(loopbackHostsOnly(newProxy(target, "tok-123")))
	defer proxy.Close()
	for _, tc := range []struct {
		host string
		want int
	}{
		{"localhost", 200}, {"localhost:8080", 200}, {"LOCALHOST.:8080", 200}, {"127.0.0.1:1", 200},
		{"127.9.9.9", 200}, {"[::1]:8080", 200}, {"[::1]", 200},
		{"evil.example.com", 421}, {"evil.example.com:8080", 421}, {"localhost.evil.example", 421},
		{"127.0.0.1.nip.io", 421}, {"10.0.0.1:80", 421}, {"[::ffff:7f00:1]", 200}, {"[fe80::1%25lo]", 421}, {"0.0.0.0", 421},
	} {
		before := forwarded.Load()
		req, _ := http.NewRequest("POST", proxy.URL+"/mcp", strings.NewReader(`{}`))
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %q: %v", tc.host, err)
		}
		resp.Body.Close()
		went := forwarded.Load() > before
		if resp.StatusCode != tc.want || went != (tc.want == 200) {
			t.Errorf("Host %q: HTTP %d, forwarded=%v; want %d", tc.host, resp.StatusCode, went, tc.want)
		}
	}
}

func mustFixture(t *testing.T) *fakers.Fixture {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func TestRunPrintsTheProxyURLAndStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	env := map[string]string{tokenEnv: "secret-token"}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--target", "http://127.0.0.1:1/mcp"}, func(k string) string { return env[k] }, &stdout, &stderr)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	line := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(line, "url=http://127.0.0.1:") || !strings.HasSuffix(line, "/mcp") {
		t.Errorf("stdout %q, want url=http://127.0.0.1:PORT/mcp", line)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	if strings.Contains(stdout.String()+stderr.String(), "secret-token") {
		t.Error("the token was printed")
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	twoLines := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(twoLines, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withToken := map[string]string{tokenEnv: "t"}
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"no target":          {nil, withToken, "missing --target"},
		"relative target":    {[]string{"--target", "/mcp"}, withToken, "want an http:// or https:// URL"},
		"ftp target":         {[]string{"--target", "ftp://h/mcp"}, withToken, "want an http:// or https:// URL"},
		"no token":           {[]string{"--target", "http://h/mcp"}, nil, "want one non-empty token line"},
		"two-line token":     {[]string{"--target", "http://h/mcp", "--token-file", twoLines}, nil, "want one non-empty token line"},
		"missing token file": {[]string{"--target", "http://h/mcp", "--token-file", "/nonexistent"}, nil, "--token-file"},
		"public listener":    {[]string{"--target", "http://h/mcp", "--addr", "0.0.0.0:0"}, withToken, "want a loopback address"},
		"stray argument":     {[]string{"--target", "http://h/mcp", "extra"}, withToken, `unexpected argument "extra"`},
		"unknown flag":       {[]string{"--nope"}, withToken, "flag provided but not defined"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr.String(), tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
