package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
)

func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

func TestDefaultRunReportsEveryScenario(t *testing.T) {
	dir := t.TempDir()
	junit, js := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	code, out, stderr := run(t, nil, "--junit", junit, "--json", js)
	if code != conformance.ExitPass && code != conformance.ExitIncomplete {
		t.Fatalf("exit %d, want 0 or 3\n%s\n%s", code, out, stderr)
	}
	for i := 1; i <= 52; i++ {
		id := "S0" + pad2(i)
		if !regexp.MustCompile(`(?m)^\s+(PASS|SKIP|PENDING|MANUAL|N/A)\s+(required|recommended)\s+` + id + `-`).MatchString(out) {
			t.Errorf("report has no pass/skip/pending/manual/n-a line for %s", id)
		}
	}
	for _, want := range []string{"Footprint", "tools/list total", "o200k"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	entries, err := checks.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var rep conformance.Report
	data, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.Schema != conformance.ReportSchema || len(rep.Rows) != len(entries) {
		t.Errorf("JSON report unreadable or incomplete: %v", err)
	}
	data, err = os.ReadFile(junit)
	var suites struct {
		Tests  int        `xml:"tests,attr"`
		Suites []struct{} `xml:"testsuite"`
	}
	if err != nil || xml.Unmarshal(data, &suites) != nil || len(suites.Suites) != len(entries) || suites.Tests != rep.Totals.Clauses.Total {
		t.Errorf("JUnit report unreadable or incomplete (%d suites, %d tests; want %d and %d): %v", len(suites.Suites), suites.Tests, len(entries), rep.Totals.Clauses.Total, err)
	}
}

func pad2(i int) string {
	s := "0" + string(rune('0'+i/10)) + string(rune('0'+i%10))
	return s[len(s)-2:]
}

func TestUsageErrorsExit2(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "tok")
	_ = os.WriteFile(tok, []byte("a\nb\n"), 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	_ = os.WriteFile(empty, []byte("\n"), 0o600)
	for name, args := range map[string][]string{
		"unknown flag":         {"--nope"},
		"url and stdio":        {"--url", "http://x/mcp", "--stdio", "x"},
		"token without url":    {"--token-file", "t"},
		"fixture with url":     {"--url", "http://x/mcp", "--fixture", "default"},
		"not a url":            {"--url", "ftp://x"},
		"filter matches none":  {"S999"},
		"focus is no prefix":   {"--focus", "S01"},
		"bad env":              {"--stdio", "x", "--env", "NOEQUALS"},
		"missing token file":   {"--url", "http://x/mcp", "--token-file", "/nonexistent"},
		"two-line token file":  {"--url", "http://x/mcp", "--token-file", tok},
		"unknown mutant":       {"--mutant", "nope"},
		"mutants, one bogus":   {"mutants", "drop-tool-fetch", "bogus-name"},
		"expired without url":  {"--expired-token-file", "t"},
		"foreign without url":  {"--foreign-token-file", "t"},
		"empty owner file":     {"--url", "http://x/mcp", "--owner-token-file", empty},
		"bad subcommand arg":   {"version", "extra"},
		"unbalanced quote":     {"--stdio", `./adapter --provider-url "{rs_url}`},
		"unbalanced footprint": {"footprint", "--stdio", "node 'adapter.js"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := run(t, nil, args...)
			if code != conformance.ExitUsage {
				t.Errorf("exit %d, want 2; stderr %q", code, stderr)
			}
			if !strings.HasPrefix(stderr, "mcpcheck: ") {
				t.Errorf("stderr %q, want a one-line mcpcheck: reason", stderr)
			}
		})
	}
}

func TestScenariosListsEveryEntry(t *testing.T) {
	code, out, _ := run(t, nil, "scenarios")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := regexp.MustCompile(`(?m)^S0\d\d-\S+\s+\d{3}\s+\S+\s+required\s+\d+\s+(checked|pending|manual)\s`).FindAllString(out, -1)
	if len(rows) != 52 {
		t.Errorf("listed %d scenarios with a status, want 52:\n%s", len(rows), out)
	}
}

func TestTokenIsNeverPrinted(t *testing.T) {
	const secret = "tok-SECRET-7f3a"
	code, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": secret}, "--url", "http://127.0.0.1:1/mcp", "--timeout", "2s")
	if code != conformance.ExitUnreachable {
		t.Errorf("exit %d, want 4", code)
	}
	if strings.Contains(out+stderr, secret) {
		t.Errorf("the token was printed")
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "mcpcheck ") {
		t.Errorf("version: %d %q", code, out)
	}
}
