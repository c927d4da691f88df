package adapter_test

import (
	"fmt"
	"net/http"
	"sync"
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
