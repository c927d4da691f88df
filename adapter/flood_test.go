package adapter_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
)

// Every path but POST /mcp answers a request with a body from its headers
// and hangs up: net/http would otherwise drain up to 256 KB of the body
// first, keeping the connection busy for the whole read timeout.
func TestServeStrayBodiesHangUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, rsURL := startRS(t)
	const readTimeout = 6 * time.Second
	_, endpoint := spawnServe(t, ctx, adaptertest.Binary(t), rsURL, "--read-timeout", readTimeout.String())
	addr := hostOf(t, endpoint)
	for _, tc := range []struct{ method, path, host, status string }{
		{"GET", adapter.SetupPath, addr, "200"},
		{"GET", adapter.LLMsPath, addr, "200"},
		{"GET", adapter.IconPath, addr, "200"},
		{"GET", adapter.MetadataPath, addr, "200"},
		{"GET", adapter.MCPMetadataPath, addr, "200"},
		{"POST", "/nope", addr, "404"},
		{"POST", adapter.SetupPath, addr, "405"},
		{"POST", adapter.MCPPath, "evil.example:80", "421"},
		{"POST", adapter.MCPPath, "not a host", "400"},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.status, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// One byte of a declared 100,000: the body has not finished arriving.
			req := tc.method + " " + tc.path + " HTTP/1.1\r\nHost: " + tc.host + "\r\nContent-Length: 100000\r\n\r\n{"
			if _, err := c.Write([]byte(req)); err != nil {
				t.Fatal(err)
			}
			status, after, closed := readUntilClosed(c, readTimeout+5*time.Second)
			if !strings.HasPrefix(status, "HTTP/1.1 "+tc.status+" ") {
				t.Errorf("answer %q, want %s", status, tc.status)
			}
			if !closed || after > readTimeout/3 {
				t.Errorf("connection closed=%v after %s, want closed within %s, without waiting for the body", closed, after.Round(time.Millisecond), readTimeout/3)
			}
		})
	}
}

// floodKind is one way of holding connections without credentials (or
// with them, stalling): each attacking connection sends what it returns
// and then never reads.
type floodKind struct {
	name     string
	maxConns int
	request  func(addr, token string) string
}

// TestServeLockoutFloods runs the red team's lockout floods against
// `pdpp-mcp serve` at a small --max-conns, from another loopback address
// (127.0.0.2), each for a few seconds and a few hundred connections:
// authenticated pings from 127.0.0.1 must all succeed meanwhile.
func TestServeLockoutFloods(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rs, rsURL := startRS(t)
	pipelined := strings.Repeat("GET "+adapter.SetupPath+" HTTP/1.1\r\nHost: HOST\r\n\r\n", 2000)
	for _, k := range []floodKind{
		{"stalled bodies on a 404", 32, func(addr, _ string) string {
			return "POST /nope HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 100000\r\n\r\n{"
		}},
		{"stalled body on the setup page", 32, func(addr, _ string) string {
			return "GET " + adapter.SetupPath + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 100000\r\n\r\n{"
		}},
		{"pipelined setup pages never read", 10, func(addr, _ string) string {
			return strings.ReplaceAll(pipelined, "HOST", addr)
		}},
		{"authenticated stalled bodies", 10, func(addr, token string) string {
			return "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token +
				"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"
		}},
		{"silent", 10, func(string, string) string { return "" }},
	} {
		t.Run(k.name, func(t *testing.T) {
			_, endpoint := spawnServe(t, ctx, adaptertest.Binary(t), rsURL, "--max-conns", strconv.Itoa(k.maxConns))
			addr := hostOf(t, endpoint)
			opened, failed := floodWhilePinging(t, addr, k.request(addr, rs.ClientToken()), endpoint, rs.ClientToken())
			t.Logf("%d attacking connections; %d of 20 pings failed", opened, failed)
			if opened < 100 {
				t.Errorf("only %d attacking connections opened: no flood to survive", opened)
			}
			if failed > 0 {
				t.Errorf("%d of 20 authenticated pings failed during the flood", failed)
			}
		})
	}
}

// floodWhilePinging opens up to 400 connections from 127.0.0.2 over about
// three seconds, each sending req and never reading, while 20 authenticated
// pings go from 127.0.0.1; it returns how many connections opened and how
// many pings failed.
func floodWhilePinging(t *testing.T, addr, req, endpoint, token string) (opened int, failed int) {
	t.Helper()
	stop := make(chan struct{})
	var (
		wg   sync.WaitGroup
		n    atomic.Int64
		mu   sync.Mutex
		held []net.Conn
	)
	defer func() {
		mu.Lock()
		for _, c := range held {
			_ = c.Close()
		}
		mu.Unlock()
	}()
	d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n.Load() < 400 {
				select {
				case <-stop:
					return
				case <-time.After(25 * time.Millisecond): // about 160 a second in all
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					continue
				}
				n.Add(1)
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
				if req != "" {
					_ = c.SetWriteDeadline(time.Now().Add(time.Second))
					_, _ = c.Write([]byte(req))
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // the flood is on
	for range 20 {
		if status, body, err := mcpPost(endpoint, token, ping, 5*time.Second); err != nil || status != http.StatusOK {
			failed++
			t.Logf("ping: %d %.100s %v", status, body, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	return int(n.Load()), failed
}

// Under a 512-descriptor limit, serve lowers the default --max-conns to fit
// and refuses an explicit one that does not; a flood larger than the limit
// then meets eviction, not a failing accept, and a ping gets through.
func TestServeFitsTheOpenFileLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, rsURL := startRS(t)
	limited := filepath.Join(t.TempDir(), "pdpp-mcp-ulimit")
	script := "#!/bin/sh\nulimit -n 512 || exit 99\nexec " + adaptertest.Binary(t) + " \"$@\"\n"
	if err := os.WriteFile(limited, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("explicit --max-conns over the limit", func(t *testing.T) {
		out, err := exec.CommandContext(ctx, limited, "serve", "--addr", "127.0.0.1:0", "--provider-url", rsURL, "--max-conns", "1024").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != adapter.ExitUsage || !strings.Contains(string(out), "--max-conns 1024: the open-file limit (ulimit -n) is 512") {
			t.Errorf("exit %v, output %q; want exit %d naming the limit", err, out, adapter.ExitUsage)
		}
	})
	t.Run("default lowered, and a 600-connection flood evicted", func(t *testing.T) {
		pid, endpoint := spawnServe(t, ctx, limited, rsURL)
		addr := hostOf(t, endpoint)
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
		for range 600 {
			if c, err := d.Dial("tcp", addr); err == nil {
				held = append(held, c)
			}
		}
		during := settle(t, pid)
		for i := range 5 {
			if status, body, err := mcpPost(endpoint, rs.ClientToken(), ping, 5*time.Second); err != nil || status != http.StatusOK {
				t.Errorf("ping %d during the flood: %d %.100s %v", i, status, body, err)
			}
		}
		t.Logf("600 connections opened; serve holds %d descriptors", during.fds)
		if during.fds > 512-64 {
			t.Errorf("serve holds %d descriptors of its 512", during.fds)
		}
	})
}

// stalledBodiesBoundMB bounds serve's resident set holding 1,000
// authenticated /mcp bodies stalled a byte short of the 64 KiB cap, at the
// default limits (docs/SECURITY.md states the measured figure).
const stalledBodiesBoundMB = 128

// TestServeStalledBodiesMemory measures what 1,000 stalled 64 KiB bodies
// cost serve (the red team saw 116 MB against a documented 64 MB): they
// come from two loopback addresses, each under its per-client cap.
func TestServeStalledBodiesMemory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, rsURL := startRS(t)
	pid, endpoint := spawnServe(t, ctx, adaptertest.Binary(t), rsURL)
	addr, token := hostOf(t, endpoint), rs.ClientToken()
	if status, _, err := mcpPost(endpoint, token, ping, 5*time.Second); err != nil || status != http.StatusOK {
		t.Fatalf("ping: %d %v", status, err)
	}
	before := snapshot(t, pid)
	head := "POST " + adapter.MCPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " +
		strconv.Itoa(adapter.DefaultMaxBodyBytes) + "\r\n\r\n" + strings.Repeat(" ", adapter.DefaultMaxBodyBytes-1)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		held []net.Conn
	)
	defer func() {
		for _, c := range held {
			_ = c.Close()
		}
	}()
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+w%2))}}
			for range 125 {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
				_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
				if _, err := c.Write([]byte(head)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	during := settle(t, pid) // every connection accepted, every body read to its last byte but one
	t.Logf("1,000 stalled 64 KiB bodies: serve RSS %d MB (%d MB before, %d MB more), %d descriptors, peak %d MB",
		during.rssKB>>10, before.rssKB>>10, (during.rssKB-before.rssKB)>>10, during.fds, peakRSSKB(t, pid)>>10)
	if during.fds < 1000 {
		t.Errorf("serve holds %d descriptors: not every stalled body was held", during.fds)
	}
	if mb := during.rssKB >> 10; mb >= stalledBodiesBoundMB {
		t.Errorf("serve's RSS %d MB holding 1,000 stalled bodies, want under %d MB", mb, stalledBodiesBoundMB)
	}
}
