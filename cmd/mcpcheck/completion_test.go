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

// --focus, --skip and --label complete their values: exact ids, id-slug
// names, and the last label of an expression.
func TestCompletionOffersSelectorValues(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--focus", "S012", "--focus", "S01"}, []string{"S010\t", "S019\t", ":4"}, []string{"S012\t", "S020"}},
		{[]string{"--skip", "s02"}, []string{"S029-fetch-document-shape\t", ":4"}, []string{"S012-"}},
		{[]string{"--label", "seed:001 && !mo"}, []string{"seed:001 && !mode:bb\n", "seed:001 && !mode:host\n", ":4"}, []string{"seed:002"}},
		{[]string{"--label", "tool:f"}, []string{"tool:fetch\n"}, []string{"tool:search"}},
	} {
		_, out, _ := run(t, nil, append([]string{"__complete"}, tc.args...)...)
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%q: completions lack %q:\n%s", tc.args, want, out)
			}
		}
		for _, not := range tc.not {
			if strings.Contains(out, not) {
				t.Errorf("%q: completions offer %q:\n%s", tc.args, not, out)
			}
		}
	}
}

func TestVersionNamesTheToolchainAndReportSchema(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := run(t, nil, args...)
		for _, want := range []string{"mcpcheck " + conformance.Version(), runtime.Version(), conformance.ReportSchema} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("%s: exit %d, output %q lacks %q", args[0], code, out, want)
			}
		}
	}
}
