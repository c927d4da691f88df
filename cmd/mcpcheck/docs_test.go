package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// Commands and examples in the docs run as written.

// The README's baseline example loads, and keeps its whole reason.
func TestReadmeBaselineExampleLoads(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(# mcpcheck-baseline.yml\n.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```yaml block starting # mcpcheck-baseline.yml")
	}
	path := filepath.Join(t.TempDir(), "baseline.yml")
	if err := os.WriteFile(path, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := conformance.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ExpectedFailures["S025"]; !strings.HasSuffix(got, "(tracked in #123)") {
		t.Errorf("the example's reason reads %q: a YAML comment ate its end", got)
	}
}

// docs/CI.md's official-suite command passes the baseline the script
// passes, and the file is there.
func TestCIDocOfficialSuiteCommand(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CI.md")
	if err != nil {
		t.Fatal(err)
	}
	cmd := regexp.MustCompile(`(?m)^npx @modelcontextprotocol/conformance@\S+ server (?:[^\n\\]|\\\n)*`).Find(doc)
	if cmd == nil {
		t.Fatal("docs/CI.md has no npx @modelcontextprotocol/conformance server command")
	}
	m := regexp.MustCompile(`--expected-failures (\S+)`).FindSubmatch(cmd)
	if m == nil {
		t.Fatalf("the documented command has no --expected-failures:\n%s", cmd)
	}
	if _, err := os.Stat(filepath.Join("../..", string(m[1]))); err != nil {
		t.Errorf("the documented baseline: %v", err)
	}
	script, _ := os.ReadFile("../../.ci/official-conformance.sh")
	version := regexp.MustCompile(`conformance@(\S+)`).FindSubmatch(cmd)
	lock, _ := os.ReadFile("../../.ci/npm/package.json")
	if version == nil || !strings.Contains(string(lock), `"@modelcontextprotocol/conformance": "`+string(version[1])+`"`) || !strings.Contains(string(script), "--expected-failures") {
		t.Errorf("the documented command and the CI script disagree on the suite version or the baseline")
	}
}

// make fuzz fuzzes every Fuzz function of the adapter.
func TestMakeFuzzCoversEveryTarget(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "-C", "../..", "-n", "fuzz", "FUZZTIME=1s").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n fuzz: %v\n%s", err, out)
	}
	var missing []string
	for _, f := range []string{"../../adapter"} {
		files, _ := filepath.Glob(filepath.Join(f, "*_test.go"))
		for _, file := range files {
			src, _ := os.ReadFile(file)
			for _, m := range regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`).FindAllSubmatch(src, -1) {
				if !strings.Contains(string(out), string(m[1])) {
					missing = append(missing, string(m[1]))
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("make fuzz leaves out %v:\n%s", missing, out)
	}
}

// The README's --list examples select what they say, on the reference
// adapter: each lists at least one scenario and exits 0.
func TestReadmeListExamplesRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^mcpcheck (.*--list.*)$`).FindAllSubmatch(readme, -1)
	if len(lines) == 0 {
		t.Fatal("README.md shows no mcpcheck … --list example")
	}
	for _, l := range lines {
		_, args, err := conformance.ParseCommand(string(l[1]))
		if err != nil {
			t.Fatalf("%s: %v", l[1], err)
		}
		code, out, stderr := run(t, nil, args...)
		if code != 0 || !regexp.MustCompile(`(?m)^\S*\s*[SU]\d{2,3}`).MatchString(out) {
			t.Errorf("mcpcheck %s: exit %d, want 0 and a listed scenario\n%s%s", l[1], code, out, stderr)
		}
	}
}
