package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"go.yaml.in/yaml/v3"
)

// docs/ci/github-actions.yml is the action's example workflow.

const workflowExample = "../../docs/ci/github-actions.yml"

type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

func exampleSteps(t *testing.T) []workflowStep {
	t.Helper()
	data, err := os.ReadFile(workflowExample)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", workflowExample, err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("%s: want one job, got %d", workflowExample, len(wf.Jobs))
	}
	for _, job := range wf.Jobs {
		return job.Steps
	}
	return nil
}

func stepNamed(t *testing.T, steps []workflowStep, match func(workflowStep) bool, what string) workflowStep {
	t.Helper()
	for _, s := range steps {
		if match(s) {
			return s
		}
	}
	t.Fatalf("%s has no step that %s", workflowExample, what)
	return workflowStep{}
}

func actionStep(t *testing.T) workflowStep {
	t.Helper()
	return stepNamed(t, exampleSteps(t), func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "pdpp-connect/mcpcheck@") }, "uses the mcpcheck action")
}

func TestWorkflowExampleIsWiredUp(t *testing.T) {
	check := actionStep(t)
	if ref := strings.TrimPrefix(check.Uses, "pdpp-connect/mcpcheck@"); ref == "" || ref == "latest" {
		t.Errorf("the action is used at %q: pin a tag or a commit", check.Uses)
	}
	if check.With["token"] != "${{ secrets.MCPCHECK_TOKEN }}" {
		t.Errorf("the action's token is %q, want it from the secret", check.With["token"])
	}
	upload := stepNamed(t, exampleSteps(t), func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") }, "uploads an artifact")
	if !strings.Contains(upload.If, "!cancelled()") && !strings.Contains(upload.If, "always()") {
		t.Errorf("the upload step runs only on success (if: %q); failed runs need their reports most", upload.If)
	}
	for _, input := range []string{"junit", "json"} {
		if report := check.With[input]; report == "" || !strings.Contains(upload.With["path"], report) {
			t.Errorf("the %s report (%q) is not both written by the action and uploaded", input, report)
		}
	}
}

// exampleInput evaluates the example's ${{ secrets.X }} and ${{ vars.X }}
// with the repository's settings.
func exampleInputs(t *testing.T, with map[string]string, settings map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range with {
		out[k] = expression.ReplaceAllStringFunc(v, func(m string) string {
			e := expression.FindStringSubmatch(m)[1]
			if !strings.HasPrefix(e, "secrets.") && !strings.HasPrefix(e, "vars.") {
				t.Fatalf("the example's input %s uses ${{ %s }}", k, e)
			}
			return settings[e]
		})
	}
	return out
}

// The example's action step, run as the runner would with the
// repository's secrets set, against pdpp-mcp served over HTTP: it passes
// with the right token, lends the refused bearers to the auth checks,
// writes the reports the upload step takes, and fails without a token.
func TestWorkflowExampleCheckStepRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mcpcheck and runs the whole registry")
	}
	fx, err := conformance.LoadFixture("") // as mcpcheck's own targets serve it
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS
	settings := map[string]string{"vars.PDPP_MCP_URL": hosted.MCPURL, "secrets.MCPCHECK_TOKEN": rs.ClientToken(),
		"secrets.MCPCHECK_OWNER_TOKEN": rs.OwnerToken(), "secrets.MCPCHECK_EXPIRED_TOKEN": rs.ExpiredToken(),
		"secrets.MCPCHECK_FOREIGN_TOKEN": rs.ForeignResourceToken()}
	r := runAction(t, exampleInputs(t, actionStep(t).With, settings))
	if r.code != 0 {
		t.Fatalf("the example's action step with the token: exit %d, want 0\n%s", r.code, r.out)
	}
	// The lent bearers reach the auth checks: S015 runs, U13 tries every case.
	if !regexp.MustCompile(`PASS +required +S015`).MatchString(r.out) || !regexp.MustCompile(`PASS +recommended +U13-bearer-challenge\n`).MatchString(r.out) {
		t.Errorf("with the refused bearers lent, S015 and U13 must pass with nothing left untried:\n%s", r.out)
	}
	for _, secret := range []string{rs.ClientToken(), rs.OwnerToken(), rs.ExpiredToken(), rs.ForeignResourceToken()} {
		if strings.Contains(r.out, secret) {
			t.Errorf("the action printed a token")
		}
	}
	for _, f := range []string{"mcpcheck-report.json", "mcpcheck-junit.xml"} {
		if _, err := os.Stat(filepath.Join(r.workspace, f)); err != nil {
			t.Error(err)
		}
	}

	delete(settings, "secrets.MCPCHECK_TOKEN")
	r = runAction(t, exampleInputs(t, actionStep(t).With, settings))
	if r.code != conformance.ExitAuth {
		t.Errorf("the example's action step without a token: exit %d, want %d (auth rejected)\n%s", r.code, conformance.ExitAuth, r.out)
	}
	if _, err := os.Stat(filepath.Join(r.workspace, "mcpcheck-junit.xml")); err != nil {
		t.Errorf("a rejected run must still leave its JUnit report for the upload step: %v", err)
	}
}
