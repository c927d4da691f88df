package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
)

// TestInvocationRepeatsVerdictFlags pins which flags a reproduction line
// carries: every one that can change a verdict, none that cannot.
func TestInvocationRepeatsVerdictFlags(t *testing.T) {
	code := 0
	root := newRootCommand(context.Background(), io.Discard, io.Discard, func(string) string { return "" }, &code, conformance.NewRedactor(), nil)
	args := []string{"--stdio", "my adapter {rs_url}", "--env", "A=1", "--env", "B=two words", "--fixture", "single-connection",
		"--timeout", "7s", "--budget", "4096", "--baseline", "base.yaml", "--parallel", "2", "--json", "r.json", "--golden-dir", "g", "--no-footprint", "--strict"}
	if err := root.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	want := []string{"--stdio", "'my adapter {rs_url}'", "--env", "A=1", "--env", "'B=two words'", "--fixture", "single-connection",
		"--timeout", "7s", "--budget", "4096", "--baseline", "base.yaml", "--strict"}
	if got := invocation(root.Flags()); !reflect.DeepEqual(got, want) {
		t.Errorf("invocation\n got %q\nwant %q", got, want)
	}
	root = newRootCommand(context.Background(), io.Discard, io.Discard, func(string) string { return "" }, &code, conformance.NewRedactor(), nil)
	if err := root.ParseFlags([]string{"--url", "https://h/mcp", "--token-file", "t", "--owner-token-file", "o"}); err != nil {
		t.Fatal(err)
	}
	want = []string{"--url", "https://h/mcp", "--token-file", "t", "--owner-token-file", "o"}
	if got := invocation(root.Flags()); !reflect.DeepEqual(got, want) {
		t.Errorf("invocation\n got %q\nwant %q", got, want)
	}
	words := []string{"it's", "a b", "{rs_url}", "plain"}
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, shellquote.Quote(w))
	}
	if got, err := conformance.SplitCommand(strings.Join(quoted, " ")); err != nil || !reflect.DeepEqual(got, words) {
		t.Errorf("shellquote.Quote does not round-trip: %q, %v", got, err)
	}
}

// TestFailureRowsReproduce walks every failed or errored row of a run built
// from CLI flags and reruns its reproduce line: the line must name only that
// check and give the same verdict, so a flag it dropped (here --budget)
// shows up as a different verdict.
func TestFailureRowsReproduce(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "report.json")
	code, out, stderr := run(t, nil, "--mutant", "hide-paging-handles", "--budget", "1000", "--timeout", "20s",
		"--json", js, "S004", "S012", "S023")
	if code != conformance.ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	rep := readReport(t, js)
	// Checks that judge the handshake make no tool call; the others must show theirs.
	noCalls := map[string]bool{"S004": true}
	failed := 0
	for _, row := range rep.Rows {
		if row.Result == nil || (row.Result.Verdict != conformance.Fail && row.Result.Verdict != conformance.Error) {
			continue
		}
		failed++
		calls := len(row.Result.Calls)
		for _, c := range row.Result.FailedClauses() {
			if c.Text == "" || len(c.Failures) == 0 {
				t.Errorf("%s: failed clause %s without its text or failures", row.ID, c.Key)
			}
			calls += len(c.Calls)
		}
		if len(row.Result.FailedClauses()) == 0 && row.Result.Message == "" {
			t.Errorf("%s: a failure that names no clause and says nothing", row.ID)
		}
		if !noCalls[row.ID] && calls == 0 {
			t.Errorf("%s: no calls", row.ID)
		}
		if !strings.HasSuffix(row.Reproduce, " --focus "+row.ID) || !strings.HasPrefix(row.Reproduce, "mcpcheck ") {
			t.Errorf("%s: reproduce %q, want mcpcheck … --focus %s", row.ID, row.Reproduce, row.ID)
			continue
		}
		args, err := conformance.SplitCommand(strings.TrimPrefix(row.Reproduce, "mcpcheck "))
		if err != nil {
			t.Fatalf("%s: %v", row.ID, err)
		}
		path := filepath.Join(dir, row.ID+".json")
		run(t, nil, append(args, "--json", path)...)
		again := readReport(t, path)
		got := again.Verdicts()
		if len(got) != 1 || got[row.ID] != row.Result.Verdict {
			t.Errorf("%s: %q gave %v, want only %s: %s", row.ID, row.Reproduce, got, row.ID, row.Result.Verdict)
		}
	}
	if failed < 2 {
		t.Errorf("%d failed rows, want S004 (budget) and S023 (mutant)", failed)
	}
}

func readReport(t *testing.T, path string) conformance.Report {
	t.Helper()
	var rep conformance.Report
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	return rep
}
