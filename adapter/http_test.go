package adapter_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// hostedAdapter serves the adapter's hosted surface over loopback, in front
// of a fixture RS.
func hostedAdapter(t *testing.T, opts adapter.Options) (*adaptertest.Server, *fakers.RS) {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := adaptertest.Start(t, fx, opts)
	return srv, srv.RS
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func hostedDo(t *testing.T, method, url, bearer, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// publicURLs are the four places the hosted surface names its own origin.
type publicURLs struct{ challenge, resource, connect, icon string }

func observePublicURLs(t *testing.T, srv *adaptertest.Server, rs *fakers.RS, header map[string]string) publicURLs {
	t.Helper()
	var p publicURLs
	resp, _ := hostedDo(t, "POST", srv.URL+adapter.MCPPath, "", initialize, header)
	p.challenge = resp.Header.Get("WWW-Authenticate")
	_, body := hostedDo(t, "GET", srv.URL+adapter.MCPMetadataPath, "", "", header)
	var meta map[string]any
	_ = json.Unmarshal(body, &meta)
	p.resource, _ = meta["resource"].(string)
	_, body = hostedDo(t, "GET", srv.URL+adapter.SetupPath, "", "", header)
	if i := strings.Index(string(body), `<code id="mcp-url">`); i >= 0 {
		p.connect, _, _ = strings.Cut(string(body)[i+len(`<code id="mcp-url">`):], "<")
	}
	_, body = hostedDo(t, "POST", srv.URL+adapter.MCPPath, rs.ClientToken(), initialize, header)
	var init struct {
		Result struct {
			ServerInfo struct {
				Icons []struct {
					Src string `json:"src"`
				} `json:"icons"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	_ = json.Unmarshal(body, &init)
	if len(init.Result.ServerInfo.Icons) > 0 {
		p.icon = init.Result.ServerInfo.Icons[0].Src
	}
	return p
}

func wantPublicURLs(origin string) publicURLs {
	return publicURLs{
		challenge: `Bearer resource_metadata="` + origin + adapter.MCPMetadataPath + `"`,
		resource:  origin + adapter.MCPPath,
		connect:   origin + adapter.MCPPath,
		icon:      origin + adapter.IconPath,
	}
}

func TestPublicOrigin(t *testing.T) {
	forwarded := map[string]string{"X-Forwarded-Host": "mcp.example.org", "X-Forwarded-Proto": "https"}
	t.Run("forwarded headers trusted", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{TrustForwarded: true})
		if got, want := observePublicURLs(t, srv, rs, forwarded), wantPublicURLs("https://mcp.example.org"); got != want {
			t.Errorf("with --trust-forwarded-headers:\n got %+v\nwant %+v", got, want)
		}
		// A forwarded host that is not a host is ignored.
		bad := map[string]string{"X-Forwarded-Host": "evil.example/path", "X-Forwarded-Proto": "gopher"}
		if got, want := observePublicURLs(t, srv, rs, bad), wantPublicURLs(srv.URL); got != want {
			t.Errorf("malformed forwarded headers:\n got %+v\nwant %+v", got, want)
		}
	})
	t.Run("forwarded headers ignored by default", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{})
		if got, want := observePublicURLs(t, srv, rs, forwarded), wantPublicURLs(srv.URL); got != want {
			t.Errorf("without --trust-forwarded-headers:\n got %+v\nwant %+v", got, want)
		}
	})
	t.Run("public origin wins", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{PublicOrigin: "https://public.example", TrustForwarded: true})
		if got, want := observePublicURLs(t, srv, rs, forwarded), wantPublicURLs("https://public.example"); got != want {
			t.Errorf("with --public-origin:\n got %+v\nwant %+v", got, want)
		}
	})
}

// By default every request's bearer goes to the RS: a grant revoked after
// the bearer was accepted is refused on the very next request. The opt-in
// cache trades that for one RS request saved per call.
func TestRevokedBearerRefusedOnNextRequest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ttl       time.Duration
		afterward int
	}{{"default", 0, 401}, {"auth cache 30s", 30 * time.Second, 200}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rs := hostedAdapter(t, adapter.Options{AuthCacheTTL: tc.ttl})
			tok := rs.ClientToken()
			if resp, body := hostedDo(t, "POST", srv.URL+adapter.MCPPath, tok, initialize, nil); resp.StatusCode != 200 {
				t.Fatalf("before revocation: %d %s", resp.StatusCode, body)
			}
			rs.Revoke(tok)
			if resp, body := hostedDo(t, "POST", srv.URL+adapter.MCPPath, tok, initialize, nil); resp.StatusCode != tc.afterward {
				t.Errorf("after revocation: %d %s, want %d", resp.StatusCode, body, tc.afterward)
			}
		})
	}
}
