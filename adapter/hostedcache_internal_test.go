package adapter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// rsAcceptingAll answers every bearer check as a client token, counting them.
type rsAcceptingAll struct{ checks atomic.Int64 }

func (rs *rsAcceptingAll) RoundTrip(r *http.Request) (*http.Response, error) {
	rs.checks.Add(1)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"bearer":{"token_kind":"client"}}`)), Request: r}, nil
}

// The accepted-bearer cache keeps working past its size: it once stopped
// storing after 4,096 stores for good, so every later bearer cost an RS
// check on every request.
func TestAcceptedBearerCacheKeepsWorking(t *testing.T) {
	rs := &rsAcceptingAll{}
	a, err := New(Options{ProviderURL: "http://rs.invalid", HTTPClient: &http.Client{Transport: rs}, AuthCacheTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const stores = 3 * bearerCacheSize
	for i := range stores {
		if v := a.verifyBearer(ctx, fmt.Sprintf("bearer-%d", i)); v.status != 0 || v.kind != "client" {
			t.Fatalf("bearer %d: %+v", i, v)
		}
	}
	if n := rs.checks.Load(); n != stores {
		t.Fatalf("%d RS checks for %d distinct bearers", n, stores)
	}
	for _, tok := range []string{fmt.Sprintf("bearer-%d", stores-1), "a-new-bearer", "a-new-bearer"} {
		a.verifyBearer(ctx, tok)
	}
	if n := rs.checks.Load() - stores; n != 1 {
		t.Errorf("after %d stores: the latest bearer and a new one twice cost %d RS checks, want 1 (the new one's first)", stores, n)
	}
	if n := a.bearers.len(); n > bearerCacheSize {
		t.Errorf("the cache holds %d bearers, want at most %d", n, bearerCacheSize)
	}
}

// The per-origin server cache evicts the least recently used: made-up Host
// names cannot push the real origin out for good.
func TestOriginCacheKeepsTheRecentlyUsed(t *testing.T) {
	a, err := New(Options{ProviderURL: "http://rs.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	real := a.serverFor("http://localhost:8080")
	for i := range 3 * originCacheSize {
		a.serverFor(fmt.Sprintf("http://127.0.0.%d:8080", i%250+2))
		if i%10 == 0 && a.serverFor("http://localhost:8080") != real {
			t.Fatalf("after %d made-up origins the real origin's server was rebuilt", i+1)
		}
	}
	if n := a.hosted.order.Len(); n != originCacheSize {
		t.Errorf("%d origins kept, want %d", n, originCacheSize)
	}
	for i := range originCacheSize { // not used for a whole cache's worth of others: rebuilt once, then kept
		a.serverFor(fmt.Sprintf("http://127.0.1.%d:8080", i))
	}
	again := a.serverFor("http://localhost:8080")
	if again == real || a.serverFor("http://localhost:8080") != again {
		t.Error("the real origin, pushed out, is not cached again at its next request")
	}
}

// readGrowing returns the body whole, declared or not, at every size
// around its chunk edges.
func TestReadGrowingRoundTrips(t *testing.T) {
	for _, size := range []int{0, 1, 1023, 1024, 1025, 3 << 10, 15<<10 + 1, 64 << 10, 200 << 10} {
		want := strings.Repeat("x", size)
		for _, declared := range []int64{int64(size), -1} {
			got, err := readGrowing(iotest.OneByteReader(strings.NewReader(want)), declared)
			if err != nil || string(got) != want {
				t.Errorf("size %d, declared %d: %d bytes, %v", size, declared, len(got), err)
			}
			if cap(got) != size {
				t.Errorf("size %d, declared %d: capacity %d, want exact", size, declared, cap(got))
			}
		}
	}
}
