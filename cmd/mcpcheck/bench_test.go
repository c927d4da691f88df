package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
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
	data := requireOutput(t, stdout, out, "p50 ms", "overhead p50", "c=2 calls/s", "search", "not a child process")
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

// Beside a stdio adapter, the reference adapter runs over stdio too: the
// same fixture RS, the same plan, every figure labelled with its
// transport, and the result and journey costs in the text and the JSON.
func TestBenchReferenceBesideStdioIsLikeForLike(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asMCPCheckEnv, "1") // the children: this binary as mcpcheck
	out := filepath.Join(t.TempDir(), "bench.json")
	code, stdout, errb := run(t, nil, "bench", "--reference", "--stdio", self+" pdpp-mcp --provider-url {rs_url}",
		"--samples", "20", "--duration", "200ms", "--startup-runs", "-1", "--scale", "-", "--concurrency", "1,4", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errb)
	}
	data := requireOutput(t, stdout, out,
		"[1] reference adapter (pdpp-mcp child process over stdio, fixture RS); every figure over stdio",
		"; every figure over stdio\n", "[1] stdio  [2] stdio  [2]/[1]", "result cost", "journey total", "bounded structured tokens")
	var run struct {
		Targets []struct {
			Transport string
			Journey   struct {
				Steps []struct{ Step string }
				Total struct {
					TextTokens    int `json:"text_tokens"`
					BoundedTokens int `json:"structured_bounded_tokens"`
				}
			}
			Tools []struct {
				Tool string
				Cost *struct {
					StructuredTokens int `json:"structured_tokens"`
				}
			}
		}
		Comparison []struct{ Tool, Figure string }
	}
	if err := json.Unmarshal(data, &run); err != nil || len(run.Targets) != 2 {
		t.Fatalf("json %v: %s", err, data)
	}
	for i, tg := range run.Targets {
		if tg.Transport != "stdio" || len(tg.Journey.Steps) != 6 || tg.Journey.Total.TextTokens == 0 || tg.Journey.Total.BoundedTokens == 0 {
			t.Errorf("target %d: transport %q, journey %+v", i+1, tg.Transport, tg.Journey)
		}
		for _, tool := range tg.Tools {
			if tool.Cost == nil || tool.Cost.StructuredTokens == 0 {
				t.Errorf("target %d: %s has no cost", i+1, tool.Tool)
			}
		}
	}
	if len(run.Comparison) == 0 {
		t.Error("no comparison in the JSON")
	}
}

// The reference adapter is measured over each transport the other targets
// use, and over HTTP alone.
func TestBenchReferenceTransports(t *testing.T) {
	env := func(string) string { return "tok" }
	for _, tc := range []struct {
		urls, stdios []string
		want         string
	}{
		{nil, nil, "http"},
		{[]string{"http://x/mcp"}, nil, "http url"},
		{nil, []string{"a"}, "stdio stdio"},
		{[]string{"http://x/mcp"}, []string{"a"}, "http stdio url stdio"},
	} {
		targets, err := benchSpecs(tc.urls, tc.stdios, nil, "", "", true, time.Second, env)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tg := range targets {
			if tg.spec.Kind() == conformance.KindReference {
				got = append(got, string(tg.referenceOver))
			} else {
				got = append(got, string(tg.spec.Kind()))
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("urls %v, stdios %v: %v, want %s", tc.urls, tc.stdios, got, tc.want)
		}
	}
}

// requireOutput checks that stdout holds every want, and returns the JSON
// file the run wrote.
func requireOutput(t *testing.T, stdout, jsonFile string, wants ...string) []byte {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
