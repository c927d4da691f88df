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

// The GitHub Action at the repository root, run step by step as the
// runner would: its own build step, then its check step with the inputs
// in the environment, against pdpp-mcp.

const actionFile = "../../action.yml"

type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Dir   string            `yaml:"working-directory"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// expression is a ${{ … }} of the action; the runner below knows only the
// ones the action may use, so a new one fails the test until it does.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// actionRun is one run of the action on a runner of the test's making.
type actionRun struct {
	code              int // of the first step that failed, else 0
	out               string
	summary, output   string // $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT
	workspace, runner string
}

func runAction(t *testing.T, inputs map[string]string) actionRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build mcpcheck")
	}
	data, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q; this test runs composite steps", a.Runs.Using)
	}
	actionPath, _ := filepath.Abs("../..")
	r := actionRun{workspace: t.TempDir(), runner: t.TempDir()}
	files := map[string]string{}
	for _, f := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_PATH"} {
		files[f] = filepath.Join(r.runner, strings.ToLower(f))
		_ = os.WriteFile(files[f], nil, 0o644)
	}
	eval := func(s string) string {
		return expression.ReplaceAllStringFunc(s, func(m string) string {
			e := expression.FindStringSubmatch(m)[1]
			switch {
			case e == "github.action_path":
				return actionPath
			case strings.HasPrefix(e, "inputs."):
				name := strings.TrimPrefix(e, "inputs.")
				in, declared := a.Inputs[name]
				if !declared {
					t.Fatalf("action.yml uses undeclared input %q", name)
				}
				if v, given := inputs[name]; given {
					return v
				}
				return in.Default
			}
			t.Fatalf("action.yml uses ${{ %s }}, which this test's runner does not know", e)
			return ""
		})
	}
	for name := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the test gives input %q, which action.yml does not declare", name)
		}
	}
	path := os.Getenv("PATH")
	var out strings.Builder
	for _, step := range a.Runs.Steps {
		if step.Uses != "" {
			if !strings.HasPrefix(step.Uses, "actions/setup-go@") {
				t.Fatalf("action.yml uses %s; this test's runner only stands in for actions/setup-go (Go is here)", step.Uses)
			}
			continue
		}
		if step.Shell != "bash" {
			t.Fatalf("a run step with shell %q: the action's steps run in bash", step.Shell)
		}
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", eval(step.Run))
		cmd.Dir = r.workspace
		if step.Dir != "" {
			cmd.Dir = eval(step.Dir)
		}
		cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+r.runner, "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+r.workspace)
		for k, f := range files {
			cmd.Env = append(cmd.Env, k+"="+f)
		}
		for k, v := range step.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		b, err := cmd.CombinedOutput()
		out.Write(b)
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
			break
		} else if err != nil {
			t.Fatal(err)
		}
		// Like the runner, put what a step added to $GITHUB_PATH on later steps' PATH.
		if added, _ := os.ReadFile(files["GITHUB_PATH"]); len(added) > 0 {
			for _, dir := range strings.Fields(string(added)) {
				path = dir + string(os.PathListSeparator) + path
			}
			_ = os.WriteFile(files["GITHUB_PATH"], nil, 0o644)
		}
	}
	r.out = out.String()
	s, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	o, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	r.summary, r.output = string(s), string(o)
	return r
}

func TestActionChecksADeployedAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mcpcheck and runs the whole registry")
	}
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS
	// The footprint goldens a --url target has (the schema goldens need
	// mcpcheck's fixture RS).
	golden := t.TempDir()
	for _, f := range []string{"initialize.golden.json", "tools-list.golden.json"} {
		b, err := os.ReadFile(filepath.Join("../../golden/reference", f))
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(golden, f), b, 0o644)
	}
	r := runAction(t, map[string]string{
		"url": hosted.MCPURL, "token": rs.ClientToken(), "owner-token": rs.OwnerToken(),
		"expired-token": rs.ExpiredToken(), "foreign-token": rs.ForeignResourceToken(), "golden-dir": golden,
	})
	if r.code != 0 {
		t.Fatalf("the action on pdpp-mcp: step exit %d, want 0\n%s", r.code, r.out)
	}
	if !strings.Contains(r.output, "exit-code=") {
		t.Errorf("no exit-code output in $GITHUB_OUTPUT: %q", r.output)
	}
	if !strings.Contains(r.summary, "## mcpcheck: url "+hosted.MCPURL) || !strings.Contains(r.summary, "| passed |") {
		t.Errorf("the step summary does not report the run:\n%s\n---\n%s", r.summary, r.out)
	}
	for _, secret := range []string{rs.ClientToken(), rs.OwnerToken(), rs.ExpiredToken(), rs.ForeignResourceToken()} {
		if strings.Contains(r.out+r.summary, secret) {
			t.Error("the action printed a token")
		}
	}
	data, err := os.ReadFile(filepath.Join(r.workspace, "mcpcheck-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.ValidateReportJSON(data); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(r.workspace, "mcpcheck-junit.xml")); err != nil {
		t.Error(err)
	}
	// Only the reports the inputs name: the action uploads nothing and
	// leaves nothing else in the workspace.
	if left, _ := filepath.Glob(filepath.Join(r.workspace, "*")); len(left) != 2 {
		t.Errorf("the workspace holds %v; want the two reports only", left)
	}
}

func TestActionFailsTheStep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mcpcheck")
	}
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	if r := runAction(t, map[string]string{"url": hosted.MCPURL, "args": "S012 --label 'level:required'"}); r.code != conformance.ExitAuth || !strings.Contains(r.output, "exit-code=5") {
		t.Errorf("without a token: step exit %d, output %q; want 5 (authentication rejected)\n%s", r.code, r.output, r.out)
	}
	if r := runAction(t, map[string]string{}); r.code != conformance.ExitUsage || !strings.Contains(r.out, "give url") {
		t.Errorf("with neither url nor stdio: step exit %d, want 2 saying what to give\n%s", r.code, r.out)
	}
	// A --url run skips what needs a local command: incomplete, which
	// fails the step only when asked to.
	rs := hosted.RS
	in := map[string]string{"url": hosted.MCPURL, "token": rs.ClientToken(), "args": "S011", "fail-on-incomplete": "true"}
	if r := runAction(t, in); r.code != conformance.ExitIncomplete {
		t.Errorf("S011 on a url with fail-on-incomplete: step exit %d, want 3\n%s", r.code, r.out)
	}
	in["fail-on-incomplete"] = "false"
	if r := runAction(t, in); r.code != 0 || !strings.Contains(r.output, "exit-code=3") {
		t.Errorf("S011 on a url: step exit %d, output %q; want 0 with exit-code=3\n%s", r.code, r.output, r.out)
	}
}
