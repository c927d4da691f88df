package main

import (
	"context"
	"io"
	"reflect"
	"testing"
)

// TestInvocationRepeatsVerdictFlags pins which flags a reproduction line
// carries: every one that can change a verdict, none that cannot.
func TestInvocationRepeatsVerdictFlags(t *testing.T) {
	code := 0
	root := newRootCommand(context.Background(), io.Discard, io.Discard, func(string) string { return "" }, &code)
	args := []string{"--stdio", "my adapter {rs_url}", "--env", "A=1", "--env", "B=two words", "--fixture", "single-connection",
		"--timeout", "7s", "--budget", "4096", "--baseline", "base.yaml", "--parallel", "2", "--json", "r.json", "--golden-dir", "g", "--no-footprint"}
	if err := root.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	want := []string{"--stdio", "'my adapter {rs_url}'", "--env", "A=1", "--env", "'B=two words'", "--fixture", "single-connection",
		"--timeout", "7s", "--budget", "4096", "--baseline", "base.yaml"}
	if got := invocation(root.Flags()); !reflect.DeepEqual(got, want) {
		t.Errorf("invocation\n got %q\nwant %q", got, want)
	}
	root = newRootCommand(context.Background(), io.Discard, io.Discard, func(string) string { return "" }, &code)
	if err := root.ParseFlags([]string{"--url", "https://h/mcp", "--token-file", "t", "--owner-token-file", "o"}); err != nil {
		t.Fatal(err)
	}
	want = []string{"--url", "https://h/mcp", "--token-file", "t", "--owner-token-file", "o"}
	if got := invocation(root.Flags()); !reflect.DeepEqual(got, want) {
		t.Errorf("invocation\n got %q\nwant %q", got, want)
	}
}
