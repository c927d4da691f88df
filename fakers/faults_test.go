package fakers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFaultInjection(t *testing.T) {
	fx, _ := LoadFixture(DefaultFixture)
	rs := New(fx)
	base, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	get := func(timeout time.Duration) (int, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/schema?view=compact", nil)
		req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	normal, body, _ := get(5 * time.Second)
	full := len(body)

	cases := []struct {
		name  string
		fault Fault
		check func(status int, body string, err error, took time.Duration) bool
	}{
		{"status", Fault{Status: 503}, func(s int, b string, err error, _ time.Duration) bool {
			return s == 503 && strings.Contains(b, `"code":"fault_injected"`)
		}},
		{"non-JSON body", Fault{Status: 502, Body: "<html>bad gateway</html>"}, func(s int, b string, err error, _ time.Duration) bool {
			return s == 502 && strings.HasPrefix(b, "<html>")
		}},
		{"truncated JSON", Fault{Truncate: true}, func(s int, b string, err error, _ time.Duration) bool {
			return s == 200 && len(b) == full/2
		}},
		{"oversized body", Fault{Oversize: 1 << 20}, func(s int, b string, err error, _ time.Duration) bool {
			return s == 200 && len(b) == full+1<<20
		}},
		{"delay past the client's patience", Fault{Delay: 2 * time.Second}, func(s int, b string, err error, took time.Duration) bool {
			return err != nil && took < time.Second
		}},
		{"connection reset", Fault{Reset: true}, func(s int, b string, err error, _ time.Duration) bool {
			return err != nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs.ClearFaults()
			rs.InjectFault("/v1/schema", tc.fault)
			start := time.Now()
			s, b, err := get(300 * time.Millisecond)
			if !tc.check(s, b, err, time.Since(start)) {
				t.Errorf("status %d, %d bytes, err %v after %s", s, len(b), err, time.Since(start))
			}
		})
	}
	// A slow drip answers at once, then sends the body a byte at a time:
	// a reader that gives up after 300ms has part of it, not all.
	t.Run("slow drip", func(t *testing.T) {
		rs.ClearFaults()
		rs.InjectFault("/v1/schema", Fault{Drip: 5 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/schema?view=compact", nil)
		req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got := make(chan int, 1)
		go func() { n, _ := io.Copy(io.Discard, resp.Body); got <- int(n) }()
		time.Sleep(300 * time.Millisecond)
		cancel()
		if n := <-got; resp.StatusCode != 200 || n == 0 || n >= full {
			t.Errorf("status %d, %d of %d bytes after 300ms", resp.StatusCode, n, full)
		}
	})
	rs.ClearFaults()
	rs.InjectFault("/v1/schema", Fault{Status: 500, Times: 1})
	if s, _, _ := get(time.Second); s != 500 {
		t.Errorf("first call: %d, want the one-shot fault", s)
	}
	if s, _, _ := get(time.Second); s != normal {
		t.Errorf("second call: %d, want normal service again", s)
	}
	// The httpmock path turns a reset into a transport error too.
	rs.InjectFault("/v1/streams", Fault{Reset: true})
	req, _ := http.NewRequest("GET", MockBaseURL+"/v1/streams", nil)
	if _, err := (&http.Client{Transport: rs.Transport()}).Do(req); err == nil {
		t.Error("in-process reset: want an error")
	}
}
