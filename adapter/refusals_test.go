package adapter_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// probes is how many bearer checks the RS has answered.
func probes(rs *fakers.RS) int { return len(rs.RequestsTo("/v1/schema")) }

// A bearer the RS refused is refused again, for a few seconds, without an
// RS check each time: an invented bearer repeated N times costs a handful
// of checks, not N. Acceptance is unchanged: a good bearer is still checked
// on every request.
func TestRefusedBearersAreRememberedBriefly(t *testing.T) {
	post := func(t *testing.T, url, bearer string, want int) {
		t.Helper()
		if resp, body := hostedDo(t, "POST", url, bearer, initialize, nil); resp.StatusCode != want {
			t.Fatalf("bearer %.12s…: HTTP %d %s, want %d", bearer, resp.StatusCode, body, want)
		}
	}
	t.Run("one invented bearer, many requests", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{})
		url := srv.URL + adapter.MCPPath
		for range 50 {
			post(t, url, "invented-bearer", http.StatusUnauthorized)
		}
		if n := probes(rs); n > 1 {
			t.Errorf("50 requests with one invented bearer: %d RS checks, want 1", n)
		}
		// Eight clients at once: at most one check each before the first refusal lands.
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 25 {
					hostedDo(t, "POST", url, fmt.Sprintf("invented-%d", w%2), initialize, nil)
				}
			}()
		}
		wg.Wait()
		if n := probes(rs) - 1; n > 8 {
			t.Errorf("200 concurrent requests with two invented bearers: %d RS checks, want at most 8", n)
		}
		for _, tc := range []struct {
			bearer string
			status int
		}{{rs.OwnerToken(), http.StatusForbidden}, {rs.ControlPlaneToken(), http.StatusForbidden}, {rs.RevokedToken(), http.StatusUnauthorized}} {
			before := probes(rs)
			for range 10 {
				post(t, url, tc.bearer, tc.status)
			}
			if n := probes(rs) - before; n != 1 {
				t.Errorf("10 requests with a refused %d bearer: %d RS checks, want 1", tc.status, n)
			}
		}
		before := probes(rs)
		for range 5 {
			post(t, url, rs.ClientToken(), http.StatusOK)
		}
		if n := probes(rs) - before; n != 5 {
			t.Errorf("5 requests with the client token: %d RS checks, want 5 (acceptances are not cached by default)", n)
		}
	})
	t.Run("refusals expire", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{RefusalCacheTTL: 100 * time.Millisecond})
		url := srv.URL + adapter.MCPPath
		post(t, url, "invented-bearer", http.StatusUnauthorized)
		post(t, url, "invented-bearer", http.StatusUnauthorized)
		time.Sleep(150 * time.Millisecond)
		post(t, url, "invented-bearer", http.StatusUnauthorized)
		if n := probes(rs); n != 2 {
			t.Errorf("%d RS checks, want 2 (one, then one after the TTL)", n)
		}
	})
	t.Run("turned off", func(t *testing.T) {
		srv, rs := hostedAdapter(t, adapter.Options{RefusalCacheTTL: -1})
		for range 5 {
			post(t, srv.URL+adapter.MCPPath, "invented-bearer", http.StatusUnauthorized)
		}
		if n := probes(rs); n != 5 {
			t.Errorf("%d RS checks, want 5", n)
		}
	})
}

// The 401 body repeats the RS's refusal message, but never the caller's
// bearer in any spelling the RS might echo it in, and never at length.
func TestRefusalMessagesNeverEchoTheBearer(t *testing.T) {
	const token = "sEcReT-t0k3n/with+odd=chars~42"
	pct := func(s string, upper bool) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			if upper {
				fmt.Fprintf(&b, "%%%02X", c)
			} else {
				fmt.Fprintf(&b, "%%%02x", c)
			}
		}
		return b.String()
	}
	uesc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\u%04X`, c)
		}
		return b.String()
	}
	forms := map[string]string{
		"as is":                token,
		"upper case":           strings.ToUpper(token),
		"lower case":           strings.ToLower(token),
		"base64":               base64.StdEncoding.EncodeToString([]byte(token)),
		"base64url":            base64.RawURLEncoding.EncodeToString([]byte(token)),
		"query-escaped":        url.QueryEscape(token),
		"path-escaped":         url.PathEscape(token),
		"percent, every byte":  pct(token, true),
		"json \\u, every char": uesc(token),
		"json \\u, some chars": strings.ReplaceAll(strings.ReplaceAll(token, "/", `\u002f`), "e", `\u0065`),
		"percent, some bytes":  strings.ReplaceAll(token, "t", "%74"),
	}
	var message atomic.Value
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "authentication_error", "code": "invalid_token",
			"message": message.Load().(string)}})
	}))
	defer hostile.Close()
	a, err := adapter.New(adapter.Options{ProviderURL: hostile.URL, RefusalCacheTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	for name, form := range forms {
		message.Store("token " + form + " is not valid")
		resp, body := hostedDo(t, "POST", srv.URL+adapter.MCPPath, token, initialize, nil)
		var got struct {
			Error struct{ Message string } `json:"error"`
		}
		_ = json.Unmarshal(body, &got)
		seen := strings.ToLower(string(body) + resp.Header.Get("WWW-Authenticate") + got.Error.Message)
		for _, f := range forms {
			if strings.Contains(seen, strings.ToLower(f)) {
				t.Errorf("%s: the 401 echoes the bearer (%q): %s", name, f, body)
				break
			}
		}
		// A bearer escaped only in part has no span to cut out: the message is withheld.
		kept := strings.Contains(got.Error.Message, "token [redacted] is not valid") ||
			strings.Contains(name, "some") && strings.Contains(got.Error.Message, "withheld")
		if resp.StatusCode != http.StatusUnauthorized || !kept {
			t.Errorf("%s: HTTP %d %s, want 401 with the RS's message, bearer redacted", name, resp.StatusCode, body)
		}
	}
	message.Store(strings.Repeat("very long RS message ", 500) + token)
	_, body := hostedDo(t, "POST", srv.URL+adapter.MCPPath, token, initialize, nil)
	var got struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal(body, &got)
	if n := len([]rune(got.Error.Message)); n > 300 {
		t.Errorf("a 10,000-character RS message became a %d-character 401 message", n)
	}
}
