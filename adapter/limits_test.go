package adapter_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// The hosted limits are tested against the real `pdpp-mcp serve` process:
// its descriptors and resident set are what an attack exhausts. Attacking
// connections come from helper processes (this test binary re-executed),
// so no process needs more than half of the 20,000 descriptors a test
// machine may allow.

// startRS serves the default fixture on loopback for a serve process.
func startRS(t *testing.T) (*fakers.RS, string) {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return rs, rsURL
}

func hostOf(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

const attackerEnv = "PDPP_MCP_TEST_ATTACKER" // "HOST:PORT CONNS FIRST-LOCAL-PORT"

// TestAttackerProcess is a helper process, not a test: re-executed with
// attackerEnv set, it opens CONNS connections to HOST:PORT (nine in ten
// after a GET /icon.svg, so idle between requests; the rest silent), says
// how many it opened, and holds them until its stdin closes.
//
// It binds its own local ports, from FIRST-LOCAL-PORT up and below the
// kernel's ephemeral range: with 20,000 ephemeral ports in use, the kernel's
// search for a free one made the flood take three times as long.
func TestAttackerProcess(t *testing.T) {
	spec := strings.Fields(os.Getenv(attackerEnv))
	if len(spec) != 3 {
		t.Skip("helper process of the connection-flood tests")
	}
	addr := spec[0]
	conns, _ := strconv.Atoi(spec[1])
	first, _ := strconv.Atoi(spec[2])
	var (
		mu     sync.Mutex
		held   []net.Conn
		next   atomic.Int64
		wg     sync.WaitGroup
		getReq = "GET " + adapter.IconPath + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A port still taken (a listener, a recent TIME_WAIT) is skipped.
			for i := next.Add(1); i <= int64(conns)*6/5; i = next.Add(1) {
				mu.Lock()
				enough := len(held) >= conns
				mu.Unlock()
				if enough {
					return
				}
				d := net.Dialer{Timeout: 3 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: first + int(i)}}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					continue
				}
				if i%10 != 0 {
					_, _ = c.Write([]byte(getReq))
				}
				mu.Lock()
				if len(held) < conns {
					held = append(held, c)
				} else {
					_ = c.Close()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("opened %d\n", len(held))
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range held {
		_ = c.Close()
	}
}

// flood opens procs*per connections to addr from procs helper processes
// and holds them until release; it returns how many were opened.
func flood(t *testing.T, addr string, procs, per int) (opened int, release func()) {
	t.Helper()
	var stops []func()
	release = func() {
		for _, s := range stops {
			s()
		}
		stops = nil
	}
	t.Cleanup(release)
	counts := make(chan int, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAttackerProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", attackerEnv, addr, per, 4000+p*per*6/5))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stops = append(stops, func() {
			_ = stdin.Close()
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		go func() {
			sc := bufio.NewScanner(stdout)
			n := 0
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "opened "); ok {
					n, _ = strconv.Atoi(v)
					break
				}
			}
			counts <- n
			_, _ = io.Copy(io.Discard, stdout)
		}()
	}
	for range procs {
		select {
		case n := <-counts:
			opened += n
		case <-time.After(90 * time.Second):
			t.Fatal("the attacker processes did not finish opening their connections")
		}
	}
	return opened, release
}

const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// mcpPost sends one JSON-RPC message to endpoint on a fresh connection.
func mcpPost(endpoint, token, body string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return postRaw(ctx, endpoint, token, body, map[string]string{"Mcp-Protocol-Version": "2025-11-25"})
}

// postRaw POSTs body to endpoint on a fresh connection with the headers of
// a Streamable HTTP client and hdr.
func postRaw(ctx context.Context, endpoint, token, body string, hdr map[string]string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// rssBoundMB bounds serve's peak resident set (VmHWM) through every attack
// in TestServeUnderAttack at the default limits (docs/SECURITY.md). The
// red team saw 1.09 GB from one batch and 1.15 GB from stalled bodies.
const rssBoundMB = 200

// TestServeUnderAttack runs the red team's attacks against one serve
// process at its default limits: oversized and batched POSTs, 200 stalled
// multi-megabyte bodies, 1,000 connections sending big headers, and 20,000
// idle or silent connections (which once exhausted the process's
// descriptors). An authenticated client must still be served, and the
// process's peak RSS stay under rssBoundMB.
func TestServeUnderAttack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rs, rsURL := startRS(t)
	pid, endpoint := spawnServe(t, ctx, adaptertest.Binary(t), rsURL)
	addr, token := hostOf(t, endpoint), rs.ClientToken()
	peak := func(when string) {
		t.Logf("serve peak RSS %d MB after %s", peakRSSKB(t, pid)>>10, when)
	}
	peak("start")

	t.Run("batch of 3,000 calls", func(t *testing.T) {
		// Sent without MCP-Protocol-Version, which the SDK takes as 2025-03-26 (batches allowed).
		// The 413 comes from the headers, before the body is sent.
		if status := sendRaw(t, addr, token, batchOf(3000)); status != "HTTP/1.1 413 Request Entity Too Large" {
			t.Errorf("470 KB batch: %q, want 413", status)
		}
		status, body, err := postRaw(ctx, endpoint, token, batchOf(50), nil)
		if err != nil || status != http.StatusBadRequest || !strings.Contains(body, `"code":-32600`) {
			t.Errorf("batch of 50: %d %.200s %v, want 400 with a JSON-RPC -32600 error", status, body, err)
		}
		peak("the batches")
	})
	t.Run("200 stalled 4 MB bodies", func(t *testing.T) {
		const n, size = 200, 4 << 20
		var wg sync.WaitGroup
		var held []net.Conn
		var mu sync.Mutex
		chunk := make([]byte, 64<<10)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
				// A third declare 4 MB (one byte more than they send), a
				// third send it in chunks without declaring it, and a third
				// declare the body cap and stop a byte short of it, so they
				// are held until the read timeout.
				head := "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token +
					"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
				chunked, send := i%3 == 1, size
				switch i % 3 {
				case 0:
					head += "Content-Length: " + strconv.Itoa(size+1) + "\r\n\r\n"
				case 1:
					head += "Transfer-Encoding: chunked\r\n\r\n"
				case 2:
					head += "Content-Length: " + strconv.Itoa(adapter.DefaultMaxBodyBytes) + "\r\n\r\n"
					send = adapter.DefaultMaxBodyBytes - 1
				}
				_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
				if _, err := c.Write([]byte(head)); err != nil {
					return
				}
				for sent := 0; sent < send; sent += len(chunk) {
					chunk := chunk[:min(len(chunk), send-sent)]
					if chunked {
						_, err = fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk)
					} else {
						_, err = c.Write(chunk)
					}
					if err != nil {
						return // the server answered 413 and hung up
					}
				}
			}()
		}
		wg.Wait()
		time.Sleep(500 * time.Millisecond)
		peak("the stalled bodies")
		for _, c := range held {
			_ = c.Close()
		}
	})
	t.Run("1,000 connections sending headers", func(t *testing.T) {
		// Headers come before any credential: half send 1 MB of them
		// (net/http's own cap), half stop just under --max-header.
		// The stalled bodies must be gone first: over --max-conns in all,
		// the cap would evict some of these silent connections.
		t.Logf("serve holds %d descriptors before the flood", settle(t, pid).fds)
		line := "X-Pad: " + strings.Repeat("a", 8000) + "\r\n"
		var wg sync.WaitGroup
		var mu sync.Mutex
		var held []net.Conn
		var refused, reset atomic.Int64
		var other sync.Map // first line read by a 1 MB sender that was neither refused nor reset
		for i := range 1000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// From two addresses, each under its per-client cap (half of --max-conns).
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%2))}}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
				lines := 125
				if i%2 == 1 {
					lines = (adapter.DefaultMaxHeaderBytes - 1024) / len(line)
				} else {
					wg.Add(1)
					go func() { // the refusal comes while the headers are still being sent
						defer wg.Done()
						_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
						status, err := bufio.NewReader(c).ReadString('\n')
						switch {
						case strings.HasPrefix(status, "HTTP/1.1 431 "):
							refused.Add(1)
						case errors.Is(err, syscall.ECONNRESET):
							// net/http closes 500 ms after its 431; the reset of a
							// sender still writing discards a 431 not yet read.
							reset.Add(1)
						default:
							other.Store(i, fmt.Sprintf("%q %v", status, err))
						}
					}()
				}
				_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
				_, _ = c.Write([]byte("GET " + adapter.IconPath + " HTTP/1.1\r\nHost: " + addr + "\r\n"))
				for range lines {
					if _, err := c.Write([]byte(line)); err != nil {
						return // refused with 431
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("of 500 connections sending 1 MB of headers, %d read 431 and %d were reset before reading it", refused.Load(), reset.Load())
		other.Range(func(i, got any) bool {
			t.Errorf("connection %d sending 1 MB of headers was neither refused with 431 nor reset: %s", i, got)
			return true
		})
		if refused.Load() == 0 {
			t.Error("no connection sending 1 MB of headers read a 431")
		}
		time.Sleep(500 * time.Millisecond)
		peak("the header floods")
		for _, c := range held {
			_ = c.Close()
		}
	})
	t.Run("20,000 idle connections", func(t *testing.T) {
		began := time.Now()
		opened, release := flood(t, addr, 2, 10_000)
		defer release()
		during := settle(t, pid)
		t.Logf("%d connections opened in %s; serve holds %d descriptors, RSS %d MB",
			opened, time.Since(began).Round(time.Millisecond), during.fds, during.rssKB>>10)
		if opened < 19_000 {
			t.Fatalf("only %d of 20,000 connections opened: no flood to survive", opened)
		}
		for i := range 5 {
			t0 := time.Now()
			status, body, err := mcpPost(endpoint, token, ping, 5*time.Second)
			took := time.Since(t0)
			if err != nil || status != http.StatusOK {
				t.Fatalf("authenticated ping %d during the flood: %d %s %v", i, status, body, err)
			}
			t.Logf("ping %d during the flood: %s", i, took.Round(time.Microsecond))
			if took > 2*time.Second {
				t.Errorf("authenticated ping %d took %s during the flood", i, took.Round(time.Millisecond))
			}
		}
		if during.fds > adapter.DefaultMaxConns+128 { // and the RS connection pool
			t.Errorf("serve holds %d descriptors during the flood, want at most --max-conns (%d) and a few", during.fds, adapter.DefaultMaxConns)
		}
		peak("the flood")
	})
	if kb := peakRSSKB(t, pid); kb>>10 >= rssBoundMB {
		t.Errorf("serve's peak RSS reached %d MB, want under %d MB", kb>>10, rssBoundMB)
	}
}

// sendRaw POSTs body to /mcp on a new connection, writing it while it
// reads the answer, and returns the answer's status line.
func sendRaw(t *testing.T, addr, token, body string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = c.Write([]byte(body)) }()
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// batchOf is a JSON-RPC batch of n query_records calls (about 155 bytes each).
func batchOf(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","connection_id":"cin_work","limit":100}}}`, i+1)
	}
	b.WriteByte(']')
	return b.String()
}

// peakRSSKB is a process's peak resident set (VmHWM).
func peakRSSKB(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// settle waits (up to 15 s) until pid has stopped accepting the
// connections queued for it: its descriptor count holds for a second.
func settle(t *testing.T, pid int) procStats {
	t.Helper()
	last, same := snapshot(t, pid), 0
	for deadline := time.Now().Add(15 * time.Second); same < 4 && time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		now := snapshot(t, pid)
		if now.fds == last.fds {
			same++
		} else {
			same = 0
		}
		last = now
	}
	return last
}

// readUntilClosed reads c until the peer closes it or wait passes; it
// returns the status line (if any answer came), and when the close came.
func readUntilClosed(c net.Conn, wait time.Duration) (status string, closedAfter time.Duration, closed bool) {
	t0 := time.Now()
	_ = c.SetReadDeadline(t0.Add(wait))
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	status = strings.TrimSpace(line)
	if err == nil {
		_, err = io.Copy(io.Discard, br)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return status, time.Since(t0), false
	}
	return status, time.Since(t0), true
}

// Stalled requests and idle connections end within the configured
// timeouts; a request without credentials is refused from its headers
// alone, without waiting for its body.
func TestServeTimeouts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rs, rsURL := startRS(t)
	const readTimeout, idleTimeout = 2 * time.Second, time.Second
	_, endpoint := spawnServe(t, ctx, adaptertest.Binary(t), rsURL, "--read-timeout", readTimeout.String(), "--idle-timeout", idleTimeout.String())
	addr := hostOf(t, endpoint)
	post := func(auth string) string {
		return "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\n" + auth +
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"
	}
	for _, tc := range []struct {
		name, send string
		status     string // the answer expected, "" for a plain close
		within     time.Duration
	}{
		{"unauthenticated stalled body", post(""), "HTTP/1.1 401 Unauthorized", readTimeout / 2},
		{"invented bearer, stalled body", post("Authorization: Bearer invented\r\n"), "HTTP/1.1 401 Unauthorized", readTimeout / 2},
		{"authenticated stalled body", post("Authorization: Bearer " + rs.ClientToken() + "\r\n"), "HTTP/1.1 408 Request Timeout", readTimeout + time.Second},
		{"stalled headers", "GET " + adapter.IconPath + " HTTP/1.1\r\nHost: " + addr + "\r\n", "", readTimeout + time.Second},
		{"idle keep-alive", "GET " + adapter.IconPath + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", "HTTP/1.1 200 OK", idleTimeout + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte(tc.send)); err != nil {
				t.Fatal(err)
			}
			status, after, closed := readUntilClosed(c, tc.within+5*time.Second)
			if status != tc.status {
				t.Errorf("answer %q, want %q", status, tc.status)
			}
			if !closed || after > tc.within {
				t.Errorf("connection closed=%v after %s, want closed within %s", closed, after.Round(time.Millisecond), tc.within)
			}
		})
	}
	// The timeouts must not cost a client that keeps up its keep-alive
	// connection: three calls, one connection.
	t.Run("served requests keep the connection", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for i := range 3 {
			req := "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + rs.ClientToken() +
				"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " + strconv.Itoa(len(ping)) + "\r\n\r\n" + ping
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Write([]byte(req)); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("call %d: %s, close=%v", i, resp.Status, resp.Close)
			}
			time.Sleep(idleTimeout / 2)
		}
	})
}
