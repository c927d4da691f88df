package adapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// TestLoad drives `pdpp-mcp serve` on loopback with concurrent MCP clients
// making mixed tool calls, one in ten with bad arguments that must come back
// as typed isError results. It is not part of `go test ./...`:
//
//	MCPCHECK_LOAD=1 go test ./adapter -run '^TestLoad$' -v -timeout 15m
//
// MCPCHECK_LOAD_CLIENTS (64) and MCPCHECK_LOAD_CALLS (1000 per client) size
// it. It stops by itself after the calls, or at a 10-minute deadline.
func TestLoad(t *testing.T) {
	if os.Getenv("MCPCHECK_LOAD") == "" {
		t.Skip("load test: set MCPCHECK_LOAD=1")
	}
	clients, calls := envInt(t, "MCPCHECK_LOAD_CLIENTS", 64), envInt(t, "MCPCHECK_LOAD_CALLS", 1000)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.SpecClientReads = true
	rs := fakers.New(fx)
	rsURL, stopRS, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stopRS(context.Background()) }()
	pid, endpoint := startServe(t, ctx, rsURL)
	idle := snapshot(t, pid)
	t.Logf("fixture RS %s; pdpp-mcp serve %s (pid %d)", rsURL, endpoint, pid)

	// Each client is its own MCP session on its own HTTP connection pool.
	sessions := make([]*mcp.ClientSession, clients)
	transports := make([]*http.Transport, clients)
	for i := range sessions {
		transports[i] = &http.Transport{MaxIdleConnsPerHost: 2}
		hc := &http.Client{Transport: bearerRT{tr: transports[i], token: rs.ClientToken()}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("load-%d", i)}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		sessions[i] = cs
	}
	start := snapshot(t, pid)

	var (
		unexpected atomic.Int64
		badTyped   atomic.Int64
		firstErr   sync.Once
		firstMsg   string
		latMu      sync.Mutex
		latencies  = make([]time.Duration, 0, clients*calls)
	)
	// run makes n calls per client, all clients at once, and returns the wall time.
	run := func(n int, record bool) time.Duration {
		began := time.Now()
		var wg sync.WaitGroup
		for c, cs := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := make([]time.Duration, 0, n)
				for i := 0; i < n && ctx.Err() == nil; i++ {
					lc := loadCalls[(c*7+i)%len(loadCalls)]
					if i%10 == 9 {
						lc = badCalls[(c+i/10)%len(badCalls)]
					}
					cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
					t0 := time.Now()
					res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: lc.tool, Arguments: lc.args})
					mine = append(mine, time.Since(t0))
					ccancel()
					var problem string
					switch {
					case err != nil:
						problem = err.Error()
					case lc.code == "" && res.IsError:
						problem = text(res)
					case lc.code != "" && !res.IsError:
						problem = "bad arguments accepted: " + lc.tool
					case lc.code != "" && resultCode(res) != lc.code:
						problem = fmt.Sprintf("%s: code %q, want %q", lc.tool, resultCode(res), lc.code)
					case lc.code != "" && record:
						badTyped.Add(1)
					}
					if problem != "" {
						unexpected.Add(1)
						firstErr.Do(func() { firstMsg = problem })
					}
					if i%100 == 99 {
						rs.ResetRequests() // the fixture's log would otherwise grow with the run
					}
				}
				if record {
					latMu.Lock()
					latencies = append(latencies, mine...)
					latMu.Unlock()
				}
			}()
		}
		wg.Wait()
		return time.Since(began)
	}

	run(max(calls/20, 10), false) // warm-up: connections, caches, heap
	warm := snapshot(t, pid)
	wall := run(calls, true)
	busy := snapshot(t, pid)
	for i, cs := range sessions {
		_ = cs.Close()
		transports[i].CloseIdleConnections()
	}
	time.Sleep(2 * time.Second) // let the server notice closed connections
	end := snapshot(t, pid)

	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	total := len(latencies)
	t.Logf("clients=%d calls/client=%d total=%d wall=%s throughput=%.0f calls/s", clients, calls, total, wall.Round(time.Millisecond), float64(total)/wall.Seconds())
	t.Logf("latency p50=%s p90=%s p99=%s max=%s", pct(0.50), pct(0.90), pct(0.99), latencies[total-1])
	t.Logf("bad-argument calls answered with their typed code: %d; unexpected errors: %d", badTyped.Load(), unexpected.Load())
	t.Logf("pdpp-mcp RSS: idle %d MB, clients connected %d MB, after warm-up %d MB, after run %d MB, clients closed %d MB",
		idle.rssKB>>10, start.rssKB>>10, warm.rssKB>>10, busy.rssKB>>10, end.rssKB>>10)
	t.Logf("pdpp-mcp fds: idle %d, clients connected %d, after warm-up %d, after run %d, clients closed %d", idle.fds, start.fds, warm.fds, busy.fds, end.fds)

	if n := unexpected.Load(); n > 0 {
		t.Errorf("%d unexpected errors; first: %s", n, firstMsg)
	}
	if want := int64(total / 10); badTyped.Load() != want {
		t.Errorf("%d bad-argument calls typed, want %d", badTyped.Load(), want)
	}
	if total != clients*calls {
		t.Errorf("%d calls made, want %d (deadline hit?)", total, clients*calls)
	}
	// Flat: the warm-up already opened every connection and filled the
	// caches, so the run itself may add only GC headroom (the serve GC limit
	// is 40 MiB) and a few descriptors; a leak of one per thousand calls
	// would show.
	if busy.rssKB > warm.rssKB+16<<10 {
		t.Errorf("RSS grew from %d MB after warm-up to %d MB after the run", warm.rssKB>>10, busy.rssKB>>10)
	}
	if busy.fds > warm.fds+8 {
		t.Errorf("fds grew during the run: %d after warm-up, %d after", warm.fds, busy.fds)
	}
	// Once the clients close, only the pool of idle RS connections
	// (bounded, expiring after 90 s) may remain.
	if end.fds > idle.fds+rsclient.MaxIdleConnsPerHost {
		t.Errorf("fds not given back: %d idle, %d once the clients closed", idle.fds, end.fds)
	}
}

type loadCall struct {
	tool string
	args map[string]any
	code string // the typed code a bad call must get; "" for a good call
}

var loadCalls = []loadCall{
	{"schema", map[string]any{}, ""},
	{"schema", map[string]any{"stream": "messages", "connection_id": "cin_work"}, ""},
	{"query_records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 5}, ""},
	{"aggregate", map[string]any{"stream": "messages", "connection_id": "cin_work", "metric": "count", "group_by": "label"}, ""},
	{"search", map[string]any{"q": fakers.FanInTerm, "limit": 4}, ""},
	{"fetch", map[string]any{"id": "cin_work/messages:m001"}, ""},
	{"read_record_field", map[string]any{"id": "cin_work/messages:" + fakers.LongBodyRecordID, "field_path": "body", "limit_chars": 200}, ""},
}

var badCalls = []loadCall{
	{"query_records", map[string]any{"stream": "messages", "limit": 101}, "invalid_arguments"},
	{"search", map[string]any{"q": "x", "bogus": 1}, "unknown_argument"},
	{"fetch", map[string]any{"id": "messages:../../etc/passwd"}, "invalid_id"},
	{"query_records", map[string]any{"stream": "messages", "filter": "filter[label]=inbox"}, "invalid_filter"},
	{"read_record_field", map[string]any{"id": "cin_work/messages:m001", "field_path": "body", "cursor": "5", "offset_chars": 1}, "invalid_field_window_selector"},
	{"schema", map[string]any{"detail": "full"}, "invalid_request"},
}

// resultCode is the typed code of an isError result.
func resultCode(res *mcp.CallToolResult) string {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal([]byte(text(res)), &e)
	return e.Code
}

type bearerRT struct {
	tr    http.RoundTripper
	token string
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.tr.RoundTrip(r)
}

// startServe runs the built cmd/pdpp-mcp as `pdpp-mcp serve` on loopback; it
// returns the process id and the /mcp endpoint.
func startServe(t *testing.T, ctx context.Context, rsURL string) (int, string) {
	t.Helper()
	return spawnServe(t, ctx, adaptertest.Binary(t), rsURL)
}

// spawnServe runs `bin serve` on loopback with extra flags; it returns the
// process id and the /mcp endpoint. The process ends with the test.
func spawnServe(t *testing.T, ctx context.Context, bin, rsURL string, flags ...string) (int, string) {
	t.Helper()
	sctx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(sctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--provider-url", rsURL}, flags...)...)
	cmd.Env = append(os.Environ(), "PDPP_CLIENT_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); _ = cmd.Wait() })
	found, exited := make(chan string, 1), make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving (http://\S+/mcp)`)
		sc := bufio.NewScanner(stderr)
		var said strings.Builder
		for sc.Scan() {
			said.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		exited <- said.String()
	}()
	select {
	case u := <-found:
		return cmd.Process.Pid, u
	case said := <-exited:
		t.Fatalf("pdpp-mcp serve exited:\n%s", said)
	case <-time.After(30 * time.Second):
		t.Fatal("pdpp-mcp serve did not report its address")
	}
	return 0, ""
}

type procStats struct{ rssKB, fds int }

// snapshot reads a process's resident set (VmRSS) and open descriptors.
func snapshot(t *testing.T, pid int) procStats {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var s procStats
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			s.rssKB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	s.fds = len(fds)
	return s
}

func envInt(t *testing.T, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", key, v)
	}
	return n
}
