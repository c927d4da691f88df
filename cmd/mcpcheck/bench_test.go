package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--concurrency", "0"},
		{"bench", "--tools", "list_streams"},
		{"bench", "--token-file", "x"},
		{"bench", "--env", "A=1"},
		{"bench", "--url", "ftp://x"},
		{"bench", "--stdio", " "},
		{"bench", "extra"},
	} {
		if code, _, errb := run(t, nil, args...); code != 2 || errb == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errb)
		}
	}
}

// In process, bench needs no binary: one tool, tiny phases, JSON written.
func TestBenchInProcessWritesJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	code, stdout, errb := run(t, nil, "bench", "--in-process", "--samples", "3", "--duration", "20ms", "--concurrency", "1,2",
		"--tools", "schema,search", "--scale", "-", "--startup-runs", "-1", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errb)
	}
	for _, want := range []string{"p50 ms", "overhead p50", "c=2 calls/s", "search", "not a child process"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Schema  string
		Targets []struct {
			Tools []struct{ Tool string }
		}
	}
	if err := json.Unmarshal(data, &run); err != nil || run.Schema != "mcpcheck.bench/v1" || len(run.Targets) != 1 || len(run.Targets[0].Tools) != 2 {
		t.Errorf("json %s: %v", data, err)
	}
}

func TestBenchUnreachableURLExits4(t *testing.T) {
	code, stdout, _ := run(t, map[string]string{"MCPCHECK_TOKEN": "t"}, "bench", "--url", "http://127.0.0.1:1/mcp", "--timeout", "2s")
	if code != 4 || !strings.Contains(stdout, "not measured:") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// An HTTP 401 is exit 5, as for the checks.
func TestBenchRejectedTokenExits5(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	code, stdout, _ := run(t, map[string]string{"MCPCHECK_TOKEN": "wrong"}, "bench", "--url", srv.URL+"/mcp")
	if code != 5 || !strings.Contains(stdout, "authentication rejected") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}
