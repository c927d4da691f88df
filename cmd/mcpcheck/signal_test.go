package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

const asMainEnv = "MCPCHECK_TEST_AS_MAIN"

// SIGTERM in the middle of a run against a target that holds every call
// ends mcpcheck promptly, with the report of what ran: the checks cut
// short are errors that say they were interrupted, never judged on what
// the cancellation did to their calls.
func TestSIGTERMEndsARunWithItsReport(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.HangOnCall, Hold: time.Minute})
	t.Cleanup(srv.Close)
	cmd := exec.Command(self, "--url", srv.URL+"/mcp", "--timeout", "60s", "--no-footprint")
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "MCPCHECK_TOKEN=signal-test-bearer")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // into the calls, which the target holds
	_ = cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(signalGrace + 10*time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running %s after SIGTERM", signalGrace+10*time.Second)
	}
	if code := cmd.ProcessState.ExitCode(); code != conformance.ExitFail {
		t.Errorf("exit %d, want %d; stderr %s", code, conformance.ExitFail, stderr.String())
	}
	text := out.String()
	if !strings.Contains(text, "interrupted: the run was cancelled") || !strings.Contains(text, " scenarios: ") {
		t.Errorf("no report of what ran, with interrupted checks:\n%s\n%s", text, stderr.String())
	}
	if strings.Contains(text, "context canceled") {
		t.Errorf("a check cut short was judged on what the cancellation did:\n%s", text)
	}
}

// A run that does not stop after the signal is ended at the grace, or at
// once on a second signal; one that returns is left alone.
func TestWatchSignalsEndsAStuckRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var msg bytes.Buffer
	exited := make(chan int, 1)
	watchSignals(ctx, &msg, 50*time.Millisecond, func(code int) { exited <- code })
	select {
	case code := <-exited:
		if code != conformance.ExitFail || !strings.Contains(msg.String(), "did not stop within 50ms") {
			t.Errorf("exit %d: %q", code, msg.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stuck run was not ended")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := watchSignals(ctx2, &msg, 50*time.Millisecond, func(int) { t.Error("a run that returned was exited") })
	done()
	cancel2()
	time.Sleep(150 * time.Millisecond)
}
