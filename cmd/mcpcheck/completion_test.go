package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

func TestCompletionPrintsAScriptForEveryShell(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "__start_mcpcheck",
		"zsh":        "#compdef mcpcheck",
		"fish":       "complete -c mcpcheck",
		"powershell": "Register-ArgumentCompleter",
	} {
		t.Run(shell, func(t *testing.T) {
			code, out, stderr := run(t, nil, "completion", shell)
			if code != 0 || !strings.Contains(out, marker) {
				t.Fatalf("exit %d, stderr %q; script lacks %q", code, stderr, marker)
			}
			if shell != "bash" {
				return
			}
			bash, err := exec.LookPath("bash")
			if err != nil {
				t.Skip("no bash to syntax-check the script")
			}
			script := filepath.Join(t.TempDir(), "mcpcheck.bash")
			if err := os.WriteFile(script, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			if msg, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, msg)
			}
		})
	}
}

func TestCompletionOffersScenarioIDsNotYetGiven(t *testing.T) {
	code, out, _ := run(t, nil, "__complete", "S012", "S01")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"S010\t", "S011\t", "S019\t", ":4"} { // 4: no file completion
		if !strings.Contains(out, want) {
			t.Errorf("completions lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "S012\t") || strings.Contains(out, "S020") {
		t.Errorf("completions offer an id already given or outside the prefix:\n%s", out)
	}
}

func TestCompletionOffersFixtures(t *testing.T) {
	_, out, _ := run(t, nil, "__complete", "--fixture", "")
	for _, want := range []string{"default\n", "single-connection\n", "scale:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--fixture completions lack %q:\n%s", want, out)
		}
	}
}

func TestVersionNamesTheToolchainAndReportSchema(t *testing.T) {
	_, out, _ := run(t, nil, "version")
	for _, want := range []string{"mcpcheck " + conformance.Version(), runtime.Version(), conformance.ReportSchema} {
		if !strings.Contains(out, want) {
			t.Errorf("version output %q lacks %q", out, want)
		}
	}
}
