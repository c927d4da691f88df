package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunPrintsURLAndToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--no-control"}, &out, &errb) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "owner_token=") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "url=http://127.0.0.1:") || !strings.HasPrefix(lines[1], "token=") || !strings.HasPrefix(lines[2], "owner_token=") {
		t.Fatalf("stdout %q", out.String())
	}
	req, _ := http.NewRequest("GET", strings.TrimPrefix(lines[0], "url=")+"/v1/schema?view=compact", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimPrefix(lines[1], "token="))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("schema: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

// By default the control plane is on: its URL and token come last, and the
// token reads the request log but is refused by /v1.
func TestRunPrintsControlPlane(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, &out, &errb) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "control_token=") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[3], "control_url=http://127.0.0.1:") || !strings.HasSuffix(lines[3], "/_fixture/") || !strings.HasPrefix(lines[4], "control_token=") {
		t.Fatalf("stdout %q", out.String())
	}
	base, ctl := strings.TrimPrefix(lines[0], "url="), strings.TrimPrefix(lines[4], "control_token=")
	get := func(path string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+ctl)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("/_fixture/requests"); got != 200 {
		t.Errorf("control request log: %d", got)
	}
	if got := get("/v1/schema"); got != 401 {
		t.Errorf("/v1/schema with the control token: %d, want 401", got)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestRunServesAScaleFixture(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--connectors", "2", "--streams", "3", "--fields", "4", "--records", "5", "--seed", "9"}, &out, &errb)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errb.String(), "serving fixture scale:2,3,4,5") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 || !strings.Contains(errb.String(), "scale:2,3,4,5") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{{"--fixture", "nope"}, {"--bogus"}, {"--scale", "1,2"}, {"--connectors", "-1"}} {
		var out, errb syncBuffer
		if code := run(context.Background(), args, &out, &errb); code != 2 || errb.String() == "" {
			t.Errorf("%v: exit %d stderr %q", args, code, errb.String())
		}
	}
}

// --profile real prints a client token per connector, each reading only its
// connector's streams.
func TestRunRealProfilePrintsATokenPerConnector(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--no-control", "--profile", "real"}, &out, &errb)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "token_github=") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	vals := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k, v, _ := strings.Cut(l, "=")
		vals[k] = v
	}
	if vals["token_gmail"] == "" || vals["token_slack"] == "" || vals["token_github"] == "" {
		t.Fatalf("stdout %q", out.String())
	}
	get := func(token, path string) int {
		req, _ := http.NewRequest("GET", vals["url"]+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(vals["token_github"], "/v1/streams/issues/records"); got != 200 {
		t.Errorf("github token on issues: %d", got)
	}
	if got := get(vals["token_gmail"], "/v1/streams/issues/records"); got != 401 {
		t.Errorf("gmail token on github's issues: %d, want 401 context.stream_not_allowed", got)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
	if code := run(context.Background(), []string{"--profile", "bogus"}, &out, &errb); code != 2 {
		t.Errorf("--profile bogus: exit %d, want 2", code)
	}
}
