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
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, &out, &errb) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "token=") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "url=http://127.0.0.1:") || !strings.HasPrefix(lines[1], "token=") {
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

func TestRunRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{{"--fixture", "nope"}, {"--bogus"}} {
		var out, errb syncBuffer
		if code := run(context.Background(), args, &out, &errb); code != 2 || errb.String() == "" {
			t.Errorf("%v: exit %d stderr %q", args, code, errb.String())
		}
	}
}
