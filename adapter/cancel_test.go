package adapter_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// slowRS is the fixture RS on loopback answering record reads only after
// a minute (or when the adapter gives up on them), counting the RS
// requests in flight. It takes the bearer "second-client" for the client
// token too, so a test has two clients.
func slowRS(t *testing.T) (rs *fakers.RS, url string, inflight *atomic.Int64) {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs = fakers.New(fx)
	rs.InjectFault("/v1/streams/", fakers.Fault{Delay: time.Minute})
	inflight = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer second-client" {
			r.Header.Set("Authorization", "Bearer "+rs.ClientToken())
		}
		inflight.Add(1)
		defer inflight.Add(-1)
		rs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rs, srv.URL, inflight
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func slowCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","connection_id":"cin_work"}}}`, id)
}

// A call whose client goes away, or cancels it with notifications/cancelled
// in a POST of its own, ends its RS request at once rather than when the
// RS answers; a cancellation from another bearer cancels nothing.
func TestAbandonedCallsReleaseTheRS(t *testing.T) {
	const calls, released = 20, 2 * time.Second
	start := func(t *testing.T) (string, string, *atomic.Int64) {
		rs, rsURL, inflight := slowRS(t)
		a, err := adapter.New(adapter.Options{ProviderURL: rsURL})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler())
		t.Cleanup(srv.Close)
		return srv.URL + adapter.MCPPath, rs.ClientToken(), inflight
	}

	t.Run("client disconnects", func(t *testing.T) {
		endpoint, token, inflight := start(t)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() { defer wg.Done(); _, _, _ = postRaw(ctx, endpoint, token, slowCall(i+1), nil) }()
		}
		if !waitFor(10*time.Second, func() bool { return inflight.Load() == calls }) {
			t.Fatalf("%d RS requests in flight, want %d", inflight.Load(), calls)
		}
		cancel()
		wg.Wait()
		if !waitFor(released, func() bool { return inflight.Load() == 0 }) {
			t.Errorf("%d of %d RS requests still in flight %s after their clients went away", inflight.Load(), calls, released)
		}
	})

	t.Run("notifications/cancelled in its own POST", func(t *testing.T) {
		endpoint, token, inflight := start(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		answers := make(chan string, calls)
		for i := range calls {
			go func() {
				status, body, err := postRaw(ctx, endpoint, token, slowCall(i+1), nil)
				answers <- fmt.Sprint(status, " ", body, err)
			}()
		}
		if !waitFor(10*time.Second, func() bool { return inflight.Load() == calls }) {
			t.Fatalf("%d RS requests in flight, want %d", inflight.Load(), calls)
		}
		notify := func(bearer string, id int) {
			n := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user gave up"}}`, id)
			if status, body, err := postRaw(ctx, endpoint, bearer, n, nil); err != nil || status != http.StatusAccepted {
				t.Errorf("notifications/cancelled: %d %s %v, want 202", status, body, err)
			}
		}
		// Another client naming these ids cancels nothing of this one's.
		for i := range calls {
			notify("second-client", i+1)
		}
		time.Sleep(200 * time.Millisecond)
		if n := inflight.Load(); n != calls {
			t.Fatalf("another bearer's notifications/cancelled ended %d of these calls", calls-n)
		}
		for i := range calls {
			notify(token, i+1)
		}
		if !waitFor(released, func() bool { return inflight.Load() == 0 }) {
			t.Errorf("%d of %d RS requests still in flight %s after notifications/cancelled", inflight.Load(), calls, released)
		}
		for range calls {
			select {
			case a := <-answers:
				if !strings.Contains(a, "request_cancelled") {
					t.Errorf("a cancelled call answered %.300s, want a request_cancelled tool error", a)
				}
			case <-time.After(released):
				t.Fatal("a cancelled call was not answered")
			}
		}
	})
}
