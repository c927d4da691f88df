package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// --label takes Ginkgo's label-filter syntax over the labels the suite
// uses, and --list says what would run without running it.
func TestLabelAndList(t *testing.T) {
	code, out, stderr := run(t, nil, "--label", "seed:001", "--list")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	ids := regexp.MustCompile(`(?m)^\S+\s+(S\d{3})-`).FindAllStringSubmatch(out, -1)
	if len(ids) != 23 || ids[0][1] != "S010" || ids[22][1] != "S032" {
		t.Errorf("--label seed:001 --list: %d ids, want the 23 of seed 001 (S010–S032):\n%s", len(ids), out)
	}
	if strings.Contains(out, "PASS") || !strings.Contains(stderr, "serves all 6 PDPP read tools") {
		t.Errorf("--list must not run checks, and says what the target serves:\n%s\n%s", out, stderr)
	}
	code, out, _ = run(t, nil, "--label", "seed:000 && level:required", "--skip", "S00[1-4]", "--list")
	ids = regexp.MustCompile(`(?m)^\S+\s+(S\d{3})-`).FindAllStringSubmatch(out, -1)
	if code != 0 || len(ids) != 5 || ids[0][1] != "S005" {
		t.Errorf("--label and --skip: exit %d, want S005–S009\n%s", code, out)
	}
	if code, out, _ = run(t, nil, "--label", "tool:fetch", "--list"); code != 0 || !strings.Contains(out, "S029-") {
		t.Errorf("--label tool:fetch: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--label", "seed:001 &&"}, {"--skip", "("}, {"--label", "seed:999"}} {
		if code, _, stderr := run(t, nil, append(bad, "--list")...); code != conformance.ExitUsage || strings.Contains(stderr, "\\x1b") {
			t.Errorf("%q: exit %d, want 2 with a plain message: %s", bad, code, stderr)
		}
	}
}

// --json - puts the JSON report on stdout and the text report on stderr.
func TestJSONToStdout(t *testing.T) {
	code, out, stderr := run(t, nil, "S012", "--json", "-", "--no-footprint")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if err := conformance.ValidateReportJSON([]byte(out)); err != nil {
		t.Errorf("stdout is not the JSON report: %v\n%s", err, out)
	}
	if !strings.Contains(stderr, "S012-tools-exact-membership") {
		t.Errorf("the text report is not on stderr:\n%s", stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("--json - wrote a file named -")
	}
}

// --stdio -- cmd args… takes the argv as given, and the string form reads
// as a shell reads it: assignments and ~.
func TestStdioForms(t *testing.T) {
	bin := adaptertest.Binary(t)
	home := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(home, "pdpp-mcp")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	t.Setenv("HOME", home)
	for name, args := range map[string][]string{
		"argv":   {"S012", "--no-footprint", "--stdio", "--", bin, "--provider-url", "{rs_url}"},
		"string": {"S012", "--no-footprint", "--stdio", "PDPP_MCP_SERVER_NAME=from-env ~/pdpp-mcp --provider-url {rs_url}"},
	} {
		code, out, stderr := run(t, env, args...)
		if code != 0 || !regexp.MustCompile(`PASS +required +S012`).MatchString(out) {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, out, stderr)
		}
	}
	// A failure's reproduce line keeps the argv last.
	code, out, _ := run(t, env, "U03", "--no-footprint", "--stdio", "--", bin, "--provider-url", "{rs_url}", "--mutant", "x")
	if code != conformance.ExitUnreachable && !strings.Contains(out, "--stdio -- ") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, nil, "--stdio", "--"); code != conformance.ExitUsage {
		t.Errorf("--stdio -- with no command: exit %d, want 2\n%s", code, stderr)
	}
}

// A run whose only failure is recommended (a U id) exits 0; --strict
// makes it 1.
func TestStrict(t *testing.T) {
	code, out, _ := run(t, nil, "U03", "S012", "--mutant", "accept-unknown-arguments", "--no-footprint")
	if code != 0 || !strings.Contains(out, "WARN") {
		t.Errorf("a recommended failure: exit %d, want 0 and a WARN row\n%s", code, out)
	}
	if code, out, _ := run(t, nil, "U03", "S012", "--mutant", "accept-unknown-arguments", "--no-footprint", "--strict"); code != conformance.ExitFail {
		t.Errorf("--strict: exit %d, want 1\n%s", code, out)
	}
}

// A generic MCP server is not a PDPP adapter: the first lines say so,
// nothing passes, and the run exits 6.
func TestGenericServerIsNotJudged(t *testing.T) {
	srv := httptest.NewServer(hostile.Generic())
	defer srv.Close()
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "j.xml")
	code, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "t"}, "--url", srv.URL, "--json", js, "--junit", junit)
	if code != conformance.ExitNotAdapter {
		t.Errorf("exit %d, want %d\n%s\n%s", code, conformance.ExitNotAdapter, out, stderr)
	}
	head := strings.Join(strings.SplitN(out, "\n", 4)[:3], "\n")
	if !strings.Contains(head, "not a PDPP adapter: serves 0 of the 6 PDPP read tools") {
		t.Errorf("the first lines do not say it is not a PDPP adapter:\n%s", head)
	}
	if regexp.MustCompile(`(?m)^\s+(PASS|PARTIAL)\s`).MatchString(out) {
		t.Errorf("a scenario passed against a server that is not an adapter:\n%s", out)
	}
	rep, err := conformance.ReadReport(js)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := checks.LoadRegistry()
	manual := 0
	for _, e := range entries {
		if e.Check == nil {
			manual++
		}
	}
	if rep.Totals.NotApplicable != len(entries)-manual || rep.Totals.Passed != 0 {
		t.Errorf("totals %+v; want every checked scenario n/a", rep.Totals)
	}
}

// Under GitHub Actions, each failed clause is an annotation at its line in
// the catalog, and a step summary is written.
func TestGitHubOutput(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	code, out, _ := run(t, env, "S003", "S012", "--mutant", "strip-routing-from-aggregate", "--no-footprint")
	if code != conformance.ExitFail {
		t.Fatalf("exit %d\n%s", code, out)
	}
	ann := regexp.MustCompile(`(?m)^::error file=scenarios/openspec/specs/000-tool-surface-footprint/spec.md,line=\d+,title=S003.1 [^:]+::.*aggregate`).FindString(out)
	if ann == "" {
		t.Errorf("no ::error annotation for S003.1:\n%s", out)
	}
	data, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(data), "| S003.1 | required |") {
		t.Errorf("step summary: %v\n%s", err, data)
	}
	if code, out, _ := run(t, map[string]string{"GITHUB_ACTIONS": "true"}, "S012", "--no-footprint", "--github=false"); code != 0 || strings.Contains(out, "::") {
		t.Errorf("--github=false still annotates:\n%s", out)
	}
}

// diff lists regressions and fixes between two reports, and exits 1 on a
// regression.
func TestDiff(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	run(t, nil, "S003", "S012", "--json", good)
	run(t, nil, "S003", "S012", "--json", bad, "--mutant", "strip-routing-from-aggregate")
	code, out, stderr := run(t, nil, "diff", good, bad)
	if code != conformance.ExitFail || !strings.Contains(out, "Regressions (2)") || !regexp.MustCompile(`S003\.1 +pass → fail`).MatchString(out) {
		t.Errorf("good → bad: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "aggregate") || !strings.Contains(out, "Footprint") {
		t.Errorf("no footprint delta for the aggregate description:\n%s", out)
	}
	code, out, _ = run(t, nil, "diff", bad, good, "--json")
	var d conformance.ReportDiff
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.Fixes) != 2 || len(d.Regressions) != 0 {
		t.Errorf("bad → good: exit %d\n%s", code, out)
	}
	if code, _, _ := run(t, nil, "diff", good, filepath.Join(dir, "missing.json")); code != conformance.ExitFail && code != conformance.ExitUsage {
		t.Errorf("a missing report: exit %d", code)
	}
	if _, out, _ := run(t, nil, "diff", good, bad); !regexp.MustCompile(`non-breaking +aggregate: description changed`).MatchString(out) {
		t.Errorf("the aggregate description change is not classified non-breaking:\n%s", out)
	}
	// A tool removed is a breaking change, classified as --golden-dir does.
	dropped := filepath.Join(dir, "dropped.json")
	run(t, nil, "S003", "S012", "--json", dropped, "--mutant", "drop-tool-fetch")
	code, out, _ = run(t, nil, "diff", good, dropped)
	if code != conformance.ExitFail || !regexp.MustCompile(`BREAKING +fetch: tool removed`).MatchString(out) {
		t.Errorf("good → fetch dropped: exit %d\n%s", code, out)
	}
	// A report without a footprint cannot show tool changes: refused.
	bare := filepath.Join(dir, "bare.json")
	run(t, nil, "S003", "S012", "--json", bare, "--no-footprint")
	code, _, stderr = run(t, nil, "diff", good, bare)
	if code != conformance.ExitUsage || !strings.Contains(stderr, "has no footprint") {
		t.Errorf("diff against a --no-footprint report: exit %d, stderr %q", code, stderr)
	}
}

// No line of the default text outputs is over 160 columns: wide values go
// to --verbose or the JSON.
func TestNoLineOver160Columns(t *testing.T) {
	for name, args := range map[string][]string{
		"report":   {"--mutant", "add-fetch-data-key"}, // failures with long messages and calls
		"list":     {"--list"},
		"scenario": {"scenarios"},
		"mutants":  {"mutants", "add-fetch-data-key", "hide-fetch-ids"},
		"variants": {"variants", "ascii-ellipsis"},
	} {
		_, out, stderr := run(t, nil, args...)
		for _, l := range strings.Split(out+stderr, "\n") {
			if n := utf8.RuneCountInString(l); n > conformance.TextWidth {
				t.Errorf("%s: a line of %d columns:\n%s", name, n, l)
			}
		}
	}
}

// Progress goes to a terminal only: one status line, cleared at the end;
// with stderr not a terminal, or in CI, there is none.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf strings.Builder
	terminal = &buf
	defer func() { terminal = nil }()
	p := progressTo(nil, nil, "checks")
	p(1, 2, "S001-init-instructions")
	p(2, 2, "S002-tools-list-no-duplicated-guidance")
	if got := buf.String(); !strings.Contains(got, "\r\x1b[Kchecks: 1/2 S001-init-instructions") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("progress wrote %q", got)
	}
	setTerminal(&buf, func(string) string { return "" }) // not a file: no terminal
	if terminal != nil || progressTo(nil, nil, "checks") != nil {
		t.Error("progress without a terminal")
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	setTerminal(f, func(k string) string { return map[string]string{"CI": "true"}[k] })
	if terminal != nil {
		t.Error("progress in CI")
	}
}

// A golden that differs says how to rewrite it: the run's own command
// with --update-golden.
func TestGoldenDriftPrintsTheUpdateCommand(t *testing.T) {
	t.Setenv("CI", "") // --update-golden is refused under CI
	dir := filepath.Join(t.TempDir(), "golden dir")
	if code, out, _ := run(t, nil, "S012", "--golden-dir", dir, "--update-golden"); code != 0 {
		t.Fatalf("writing the goldens: exit %d\n%s", code, out)
	}
	code, out, _ := run(t, nil, "S012", "--mutant", "strip-routing-from-aggregate", "--golden-dir", dir)
	want := "mcpcheck --mutant strip-routing-from-aggregate --golden-dir '" + dir + "' --update-golden"
	if code != conformance.ExitFail || !strings.Contains(out, want) {
		t.Errorf("exit %d; the report does not print %q:\n%s", code, want, out)
	}
}
