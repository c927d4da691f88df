package checks

import (
	"context"
	"net/http/httptest"
	"os"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// hostileBound is how long a whole run against a hostile target may take:
// loose, a multiple of the 3 s handshake and call timeout used here.
const hostileBound = 30 * time.Second

// hostileReasons is what each mode's one-line reason must say, by transport.
var hostileReasons = map[string][2]string{ // mode -> {stdio, http}
	hostile.HangAfterInit:     {"tools/list: no answer within 3s", "tools/list: no answer within 3s"},
	hostile.HangOnCall:        {"stopped serving during the run: call", "stopped serving during the run: call"},
	hostile.Garbage:           {"non-JSON-RPC to stdout", `unsupported content type "text/html"`},
	hostile.HugeToolsList:     {"exceeds the wire tap's size limit", "exceeds the wire tap's size limit"},
	hostile.CrashMidCall:      {"the command exited (exit status 2); stderr ends: panic: runtime error", "a ping then failed too"},
	hostile.InvalidVersion:    {`invalid message version tag "1.0"`, `invalid message version tag "1.0"`},
	hostile.InvalidResult:     {"cannot unmarshal", "cannot unmarshal"},
	hostile.InvalidID:         {"answered with an id no request carried", "answered with an id no request carried"},
	hostile.InvalidMessage:    {"invalid message version tag", "invalid message version tag"},
	hostile.EndlessPagination: {"tools/list: more than 32 MB across pages", "tools/list: more than 32 MB across pages"},
}

// Every hostile target, over stdio (this test binary, see TestMain) and
// over HTTP, ends a full run within hostileBound with exit 4 and a
// one-line reason; the report keeps every row. A 100 MB tools/list, or
// tools/list pages without end, do not balloon memory.
func TestHostileTargetsEndBounded(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range hostile.Modes {
		for i, kind := range []string{"stdio", "http"} {
			t.Run(mode+"/"+kind, func(t *testing.T) {
				huge := mode == hostile.HugeToolsList || mode == hostile.EndlessPagination
				if !huge {
					t.Parallel() // the huge ones run first, alone, so their memory is theirs
				}
				spec := conformance.TargetSpec{ConnectTimeout: 3 * time.Second}
				if mode == hostile.EndlessPagination { // 32 MB to read first, maybe on a busy machine
					spec.ConnectTimeout = 20 * time.Second
				}
				if kind == "stdio" {
					spec.Stdio, spec.Env = self, []string{hostile.Env + "=" + mode}
				} else {
					srv := httptest.NewUnstartedServer(nil)
					srv.Config.Handler = &hostile.Server{Mode: mode, Hold: hostileBound, Crash: func() { srv.Listener.Close() }}
					srv.Start()
					t.Cleanup(srv.Close)
					spec.URL, spec.Token = srv.URL+"/mcp", "hostile-token"
				}
				var peak *heapPeak
				if huge {
					peak = watchHeap()
				}
				start := time.Now()
				rep, err := run(context.Background(), conformance.Config{Target: spec})
				took := time.Since(start)
				if err != nil {
					t.Fatalf("Run: %v (a broken target must still yield a report)", err)
				}
				if took > hostileBound {
					t.Errorf("took %s, want under %s", took, hostileBound)
				}
				if rep.TargetError == nil {
					t.Fatalf("no target error; verdicts %v", rep.Verdicts())
				}
				reason := rep.TargetError.Reason
				if code := rep.ExitCode(); code != conformance.ExitUnreachable {
					t.Errorf("exit %d, want %d (%s)", code, conformance.ExitUnreachable, reason)
				}
				if strings.ContainsAny(reason, "\r\n") || !strings.Contains(reason, hostileReasons[mode][i]) {
					t.Errorf("reason %q, want one line containing %q", reason, hostileReasons[mode][i])
				}
				if strings.Contains(reason, "hostile-token") {
					t.Errorf("the reason holds the bearer")
				}
				countsAgree(t, rep)
				entries, _ := LoadRegistry()
				if len(rep.Rows) != len(entries) {
					t.Errorf("report has %d rows, want %d", len(rep.Rows), len(entries))
				}
				if huge {
					p := peak.stop()
					t.Logf("peak heap growth %d MB", p>>20)
					// Loose: the tap stops at 32 MiB, and so does the handshake
					// across pages (wiretap tests prove the bytes read);
					// allocation growth and unswept garbage can reach a few
					// times that, never an unbounded read.
					if p >= 2*hostile.HugeBytes {
						t.Errorf("peak heap growth %d MB for %s", p>>20, mode)
					}
				}
			})
		}
	}
}

// heapPeak samples live heap bytes until stopped.
type heapPeak struct {
	done chan struct{}
	wg   sync.WaitGroup
	max  uint64
}

func watchHeap() *heapPeak {
	p := &heapPeak{done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > base && v-base > p.max {
				p.max = v - base
			}
			select {
			case <-p.done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return p
}

func (p *heapPeak) stop() uint64 { close(p.done); p.wg.Wait(); return p.max }
