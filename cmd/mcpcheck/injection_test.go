package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// ownAnnotation is a workflow command mcpcheck itself writes with --github.
var ownAnnotation = regexp.MustCompile(`^::(error|warning) file=scenarios/openspec/specs/[^,:]+\.md(,line=\d+)?,title=[^:]*::`)

// workflowUnsafe lists what in printed text a GitHub Actions runner would
// obey or a reader would not see: a workflow command mcpcheck did not
// write (a line that starts with "::" once the whitespace the runner trims
// is gone, or "##[" anywhere), and raw C1, bidi or zero-width characters.
func workflowUnsafe(text string) []string {
	var bad []string
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "##[") {
			bad = append(bad, fmt.Sprintf("line %d holds ##[: %q", i+1, l))
		}
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") && !ownAnnotation.MatchString(l) {
			bad = append(bad, fmt.Sprintf("line %d is a workflow command: %q", i+1, l))
		}
	}
	for i, r := range text {
		if termsafe.Escaped(r) {
			bad = append(bad, fmt.Sprintf("raw %U at byte %d", r, i))
		}
	}
	if len(bad) > 8 {
		bad = bad[:8]
	}
	return bad
}

// A target's strings cannot issue workflow commands or hide text: not in
// the text report, --github annotations, the JSON and JUnit reports, or
// `mcpcheck diff`, while mcpcheck's own annotations still work.
func TestTargetTextCannotIssueWorkflowCommands(t *testing.T) {
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.WorkflowInjection})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	env := map[string]string{"MCPCHECK_TOKEN": "workflow-test-bearer"}
	_, out, stderr := run(t, env, "--url", srv.URL+"/mcp", "--timeout", "3s", "--github=true", "--json", js, "--junit", junit, "S003", "S012", "S024")
	if !strings.Contains(out, hostile.WorkflowForgery) || !strings.Contains(out, `\u202e`) {
		t.Fatalf("stdout does not quote the payloads, so the test proves nothing:\n%s\n%s", out, stderr)
	}
	if !regexp.MustCompile(`(?m)^::error file=scenarios/`).MatchString(out) {
		t.Errorf("stdout has no annotation of mcpcheck's own:\n%s", out)
	}
	texts := map[string]string{"stdout": out, "stderr": stderr}
	for name, path := range map[string]string{"JSON report": js, "JUnit report": junit} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(data)
	}
	// diff against a report whose footprint differs in every tool, so it
	// prints every tool name the target chose.
	var rep map[string]any
	if err := json.Unmarshal([]byte(texts["JSON report"]), &rep); err != nil {
		t.Fatal(err)
	}
	fp, _ := rep["footprint"].(map[string]any)
	tools, _ := fp["tools"].([]any)
	if len(tools) == 0 {
		t.Fatal("the JSON report has no footprint tools")
	}
	for _, tool := range tools {
		tool.(map[string]any)["bytes"] = 1.0
	}
	old, _ := json.Marshal(rep)
	oldPath := filepath.Join(dir, "old.json")
	if err := os.WriteFile(oldPath, old, 0o644); err != nil {
		t.Fatal(err)
	}
	_, texts["diff"], _ = run(t, nil, "diff", oldPath, js)
	_, texts["diff --json"], _ = run(t, nil, "diff", "--json", oldPath, js)
	if !strings.Contains(texts["diff"], "leak_") {
		t.Errorf("diff names none of the target's tools:\n%s", texts["diff"])
	}
	for name, text := range texts {
		if bad := workflowUnsafe(text); len(bad) > 0 {
			t.Errorf("%s holds %s", name, strings.Join(bad, "; "))
		}
	}
}

// Six tools described in 400 KB each do not put megabytes on stdout: the
// text report clips each message and says so.
func TestHugeDescriptionsAreClippedInText(t *testing.T) {
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.HugeDescriptions})
	t.Cleanup(srv.Close)
	_, out, stderr := run(t, map[string]string{"MCPCHECK_TOKEN": "tok"}, "--url", srv.URL+"/mcp", "--timeout", "5s", "--no-footprint", "S003")
	t.Logf("%d bytes on stdout", len(out))
	if !regexp.MustCompile(`… \[clipped: \d{6} more characters\]|… \d+ more lines \(--verbose`).MatchString(out) {
		t.Errorf("the report does not say a message was clipped:\n%.3000s", out)
	}
	if n := len(out) + len(stderr); n > 100<<10 {
		t.Errorf("%d bytes printed for 6 descriptions of %d bytes", n, hostile.DescriptionBytes)
	}
}
