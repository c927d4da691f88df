package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"go.yaml.in/yaml/v3"
)

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

func TestWorkflowExampleIsWiredUp(t *testing.T) {
	steps := exampleSteps(t)
	// mcpcheck is built from a pinned checkout, never `go install …@latest`,
	// which fails until the module is published.
	checkout := stepNamed(t, steps, func(s workflowStep) bool {
		return strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["repository"] == "pdpp-connect/mcpcheck"
	}, "checks out mcpcheck")
	if checkout.With["ref"] == "" {
		t.Error("the mcpcheck checkout names no ref to pin")
	}
	build := stepNamed(t, steps, func(s workflowStep) bool {
		return strings.Contains(s.Run, "go build") && strings.Contains(s.Run, "./cmd/mcpcheck")
	}, "builds mcpcheck")
	if !strings.Contains(build.Run, "GITHUB_PATH") {
		t.Error("the build step does not put mcpcheck on the PATH of later steps")
	}
	for _, s := range steps {
		if strings.Contains(s.Run, "@latest") {
			t.Errorf("a step installs @latest, which fails until the module is published: %s", s.Run)
		}
	}
	check := stepNamed(t, steps, func(s workflowStep) bool { return strings.Contains(s.Run, "mcpcheck --url") }, "runs mcpcheck --url")
	if check.Env["MCPCHECK_TOKEN"] != "${{ secrets.MCPCHECK_TOKEN }}" {
		t.Errorf("the check step's MCPCHECK_TOKEN is %q, want it from the secret", check.Env["MCPCHECK_TOKEN"])
	}
	upload := stepNamed(t, steps, func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") }, "uploads an artifact")
	if !strings.Contains(upload.If, "!cancelled()") && !strings.Contains(upload.If, "always()") {
		t.Errorf("the upload step runs only on success (if: %q); failed runs need their reports most", upload.If)
	}
	for _, report := range []string{"mcpcheck-junit.xml", "mcpcheck-report.json"} {
		if !strings.Contains(check.Run, report) || !strings.Contains(upload.With["path"], report) {
			t.Errorf("%s is not both written by the check step and uploaded", report)
		}
	}
}

// Runs the example's check step as GitHub Actions would (bash -eo pipefail)
// with a freshly built mcpcheck against the reference adapter served over
// HTTP: it must pass with the right token and fail the job without one.
func TestWorkflowExampleCheckStepRuns(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build mcpcheck")
	}
	// The example's own build step, in this checkout (the example's
	// .mcpcheck), puts mcpcheck on the PATH through $GITHUB_PATH.
	build := stepNamed(t, exampleSteps(t), func(s workflowStep) bool { return strings.Contains(s.Run, "go build") }, "builds mcpcheck")
	runner := t.TempDir()
	ghPath := filepath.Join(runner, "github_path")
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", build.Run)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "RUNNER_TEMP="+runner, "GITHUB_PATH="+ghPath, "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the build step: %v\n%s", err, out)
	}
	added, err := os.ReadFile(ghPath)
	if err != nil {
		t.Fatal(err)
	}
	bin := strings.TrimSpace(string(added))
	fx, err := conformance.LoadFixture("") // as mcpcheck's own targets serve it
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS

	check := stepNamed(t, exampleSteps(t), func(s workflowStep) bool { return strings.Contains(s.Run, "mcpcheck --url") }, "runs mcpcheck --url")
	runStep := func(token string, extraEnv ...string) (int, string, string) {
		dir := t.TempDir()
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", check.Run)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"MCPCHECK_TOKEN="+token, "PDPP_MCP_URL="+hosted.MCPURL)
		cmd.Env = append(cmd.Env, extraEnv...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, dir, string(out)
	}

	code, dir, out := runStep(rs.ClientToken(), "MCPCHECK_OWNER_TOKEN="+rs.OwnerToken(),
		"MCPCHECK_EXPIRED_TOKEN="+rs.ExpiredToken(), "MCPCHECK_FOREIGN_TOKEN="+rs.ForeignResourceToken())
	if code != 0 {
		t.Fatalf("check step with the token: exit %d, want 0\n%s", code, out)
	}
	// The lent bearers reach the auth checks: S015 runs, U13 tries every case.
	if !regexp.MustCompile(`PASS +required +S015`).MatchString(out) || !regexp.MustCompile(`PASS +recommended +U13-bearer-challenge\n`).MatchString(out) {
		t.Errorf("with the refused bearers lent, S015 and U13 must pass with nothing left untried:\n%s", out)
	}
	for _, secret := range []string{rs.ClientToken(), rs.OwnerToken(), rs.ExpiredToken(), rs.ForeignResourceToken()} {
		if strings.Contains(out, secret) {
			t.Errorf("the check step printed a token")
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "mcpcheck-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.ValidateReportJSON(data); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcpcheck-junit.xml")); err != nil {
		t.Error(err)
	}

	code, dir, out = runStep("")
	if code != conformance.ExitAuth {
		t.Errorf("check step without a token: exit %d, want %d (auth rejected)\n%s", code, conformance.ExitAuth, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcpcheck-junit.xml")); err != nil {
		t.Errorf("a rejected run must still leave its JUnit report for the upload step: %v", err)
	}
}
