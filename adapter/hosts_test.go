package adapter_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// serveAt runs one request through h as if it reached the server on local
// (an address the tests cannot bind), with Host host and extra headers.
func serveAt(h http.Handler, local, method, path, host string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(initialize))
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	addr, _ := net.ResolveTCPAddr("tcp", local)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, addr))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// reflecting are the paths that name the request's origin in their answer.
var reflecting = []struct{ method, path string }{
	{"POST", adapter.MCPPath}, // the 401 challenge
	{"GET", adapter.MCPMetadataPath},
	{"GET", adapter.MetadataPath},
	{"GET", adapter.SetupPath},
	{"GET", adapter.LLMsPath},
}

// The Host header is checked before any answer reflects it: a Host that is
// no host[:port] gets 400, and on a loopback listener a Host that is not
// loopback gets 421 (the SDK's DNS-rebinding rule, on every path).
func TestHostHeaderCheckedBeforeItIsReflected(t *testing.T) {
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	a, err := adapter.New(adapter.Options{ProviderURL: fakers.MockBaseURL, HTTPClient: &http.Client{Transport: rs.Transport()}})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handler()
	const public, loopback = "192.0.2.10:443", "127.0.0.1:8080"
	for _, tc := range []struct {
		local, host string
		status      int
	}{
		{public, "mcp.example.org", 0},
		{public, "mcp.example.org:8443", 0},
		{public, "mcp.example.org.", 0},
		{public, "pdpp_mcp:8080", 0},
		{public, "192.0.2.10", 0},
		{public, "[2001:db8::1]:8443", 0},
		{loopback, "localhost:8080", 0},
		{loopback, "127.0.0.1:8080", 0},
		{loopback, "[::1]:8080", 0},
		{public, `evil.example"`, 400},
		{public, "evil.example@x", 400},
		{public, "evil.example?x", 400},
		{public, "evil.example'", 400},
		{public, "evil.example,other", 400},
		{public, "evil.example:99999", 400},
		{public, "evil.example:", 400},
		{public, "evil.example:+80", 400},
		{public, ":8080", 400},
		{public, "", 400},
		{public, "-evil.example", 400},
		{public, "evil..example", 400},
		{public, "[fe80::1%25eth0]", 400},
		{public, "[2001:db8::1]x", 400},
		{loopback, "evil.example", 421},
		{loopback, "evil.example:8080", 421},
		{loopback, "127.0.0.1.evil.example", 421},
	} {
		for _, p := range reflecting {
			rec := serveAt(h, tc.local, p.method, p.path, tc.host, nil)
			body := rec.Body.String()
			switch {
			case tc.status == 0 && (rec.Code == 400 || rec.Code == 421):
				t.Errorf("%s %s Host %q on %s: %d %.200s, want it served", p.method, p.path, tc.host, tc.local, rec.Code, body)
			case tc.status == 0 && !strings.Contains(body+rec.Header().Get("WWW-Authenticate"), "http://"+tc.host):
				t.Errorf("%s %s Host %q: answer does not name http://%s: %.200s", p.method, p.path, tc.host, tc.host, body)
			case tc.status != 0 && rec.Code != tc.status:
				t.Errorf("%s %s Host %q on %s: %d %.200s, want %d", p.method, p.path, tc.host, tc.local, rec.Code, body, tc.status)
			case tc.status != 0 && tc.host != "" && (strings.Contains(body, tc.host) || rec.Header().Get("WWW-Authenticate") != ""):
				t.Errorf("%s %s Host %q: the refusal reflects the host: %.200s", p.method, p.path, tc.host, body)
			}
		}
	}
}

// Behind a trusted proxy, the proxy's X-Forwarded-Host (the last value: a
// proxy appends to what the client sent) names the origin, and only when
// it is a host[:port]; a client's own value never wins.
func TestForwardedHostTakesTheProxysValue(t *testing.T) {
	srv, rs := hostedAdapter(t, adapter.Options{TrustForwarded: true})
	for _, tc := range []struct {
		host, proto string
		want        string
	}{
		{"client.example, mcp.example.org", "http, https", "https://mcp.example.org"},
		{"client.example,mcp.example.org:8443", "https", "https://mcp.example.org:8443"},
		{"mcp.example.org", "https", "https://mcp.example.org"},
		{`mcp.example.org, evil"x`, "https", "https://" + hostOf(t, srv.URL)},
		{"mcp.example.org, evil@x", "https", "https://" + hostOf(t, srv.URL)},
		{"mcp.example.org, evil?x", "https", "https://" + hostOf(t, srv.URL)},
		{"mcp.example.org, evil.example/path", "https, gopher", srv.URL},
	} {
		hdr := map[string]string{"X-Forwarded-Host": tc.host, "X-Forwarded-Proto": tc.proto}
		if got, want := observePublicURLs(t, srv, rs, hdr), wantPublicURLs(tc.want); got != want {
			t.Errorf("X-Forwarded-Host %q, X-Forwarded-Proto %q:\n got %+v\nwant %+v", tc.host, tc.proto, got, want)
		}
	}
}
