package conformance

import (
	"context"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// paddedCalls and paddedPad are the padding target's load: answers of
// about 5 MB (4 MB of text, 1 MB of structuredContent), enough of them
// that a tap keeping each would hold 12 × 10 MB (response and result).
const paddedCalls, paddedPad = 12, 4 << 20

// A target that pads every answer cannot grow mcpcheck's memory call by
// call: what stays live after each call is within the tap's budget, and the
// peak heap in use, sampled throughout, within the bound docs/SECURITY.md
// states (the budget plus twelve answers: one answer's copies in flight,
// with the garbage collector's headroom).
func TestPaddedAnswersStayWithinTheMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 60 MB over loopback")
	}
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.PaddedAnswers, Pad: paddedPad})
	defer srv.Close()
	ctx := context.Background()
	tgt, err := Open(ctx, TargetSpec{URL: srv.URL + "/mcp", Token: "tok", ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop, done := make(chan struct{}), sync.WaitGroup{}
	done.Add(1)
	go func() { // sample the heap in use while calls run
		defer done.Done()
		var s runtime.MemStats
		for {
			runtime.ReadMemStats(&s)
			if s.HeapInuse > peak.Load() {
				peak.Store(s.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	answer := uint64(paddedPad + paddedPad/4)
	var maxLive uint64
	for i := range paddedCalls {
		res, raw, err := tgt.CallRaw(ctx, "search", map[string]any{"q": "a"})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if len(raw) < paddedPad || res.IsError {
			t.Fatalf("call %d: %d raw bytes, isError %v: the target did not pad", i+1, len(raw), res.IsError)
		}
		res, raw = nil, nil
		runtime.GC()
		runtime.ReadMemStats(&ms)
		maxLive = max(maxLive, ms.HeapInuse-min(ms.HeapInuse, base))
		if kept := tgt.Tap.Kept(); kept > wiretap.DefaultBudget {
			t.Fatalf("after call %d the tap holds %d bytes, over its budget", i+1, kept)
		}
	}
	close(stop)
	done.Wait()
	grew := peak.Load() - min(peak.Load(), base)
	t.Logf("%d answers of %.1f MB: live after each call at most %.1f MB over the start, peak heap in use %.1f MB over it; tap holds %d bytes",
		paddedCalls, float64(answer)/(1<<20), float64(maxLive)/(1<<20), float64(grew)/(1<<20), tgt.Tap.Kept())
	if maxLive > wiretap.DefaultBudget {
		t.Errorf("%.1f MB stayed live after a call, over the tap's %d MB budget", float64(maxLive)/(1<<20), wiretap.DefaultBudget>>20)
	}
	if bound := wiretap.DefaultBudget + 12*answer; grew > bound {
		t.Errorf("peak heap in use grew %.1f MB, over the %.1f MB bound", float64(grew)/(1<<20), float64(bound)/(1<<20))
	}
}
