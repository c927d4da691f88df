package main

import (
	"errors"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runOptions are the flags that select checks and shape the reports.
type runOptions struct {
	junit, jsonOut, baselineFile, goldenDir, label string
	focus, skip                                    []string
	budget, parallel                               int
	noFootprint, update, strict, verbose, list     bool
	github                                         string // "auto", "true" or "false"
}

func (o *runOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.junit, "junit", "", "write a JUnit XML report (a testsuite per scenario, a testcase per clause) to FILE, or - for stdout")
	f.StringVar(&o.jsonOut, "json", "", "write a JSON report (schema "+conformance.ReportSchema+") to FILE, or - for stdout (the text report then goes to stderr)")
	f.IntVar(&o.budget, "budget", 0, "tools/list byte budget (default 24576, from scenarios/surface.json)")
	f.IntVar(&o.parallel, "parallel", 4, "checks to run at once")
	f.BoolVar(&o.noFootprint, "no-footprint", false, "omit the footprint table")
	f.StringArrayVar(&o.focus, "focus", nil, "run exactly this scenario id, as failure reports' reproduce lines do (repeatable; an argument selects by id prefix)")
	f.StringVar(&o.label, "label", "", "run the scenarios whose labels match a Ginkgo label-filter expression, e.g. 'seed:001 && !mode:host' (labels: the id, seed:NNN, level:required|recommended, mode:M, tool:T, manual)")
	f.StringArrayVar(&o.skip, "skip", nil, "leave out scenarios whose id-slug name matches this regular expression (repeatable)")
	f.BoolVar(&o.list, "list", false, "list what would run on the target (run, skip, n/a, manual) without running it")
	f.BoolVar(&o.strict, "strict", false, "fail the run on recommended clauses too: mcpcheck's own adapter contract (U ids) and its own thresholds")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print everything in the text report: whole tool calls, every failure and blocked row, past its default bound of about 150 lines")
	f.StringVar(&o.baselineFile, "baseline", "", "YAML file of scenario ids expected to fail on this target, each with a reason; a baselined id that passes fails the run as stale")
	f.StringVar(&o.goldenDir, "golden-dir", "", "compare the target's normalised tools/list and initialize with the goldens in DIR, showing a diff per changed tool")
	f.BoolVar(&o.update, "update-golden", false, "rewrite the goldens in --golden-dir instead of comparing (never under CI)")
	f.StringVar(&o.github, "github", "auto", "write a GitHub Actions step summary and an ::error annotation per failed clause: true, false, or auto (on when GITHUB_ACTIONS=true)")
	f.Lookup("github").NoOptDefVal = "true"
}

// config builds the run's configuration from the flags and the target.
func (o *runOptions) config(spec conformance.TargetSpec, args []string, fs *pflag.FlagSet, tail []string) (conformance.Config, error) {
	cfg := conformance.Config{Target: spec, BudgetBytes: o.budget, Only: args, Focus: o.focus, Label: o.label, Skip: o.skip,
		Parallel: o.parallel, Strict: o.strict, GoldenDir: o.goldenDir, UpdateGolden: o.update, Invocation: invocation(fs), InvocationTail: tail}
	switch {
	case o.update && o.goldenDir == "":
		return cfg, usageError{errors.New("--update-golden needs --golden-dir")}
	case o.jsonOut == "-" && o.junit == "-":
		return cfg, usageError{errors.New("--json - and --junit - both want stdout; write one of them to a file")}
	case o.github != "auto" && o.github != "true" && o.github != "false":
		return cfg, usageError{errors.New("--github takes true, false or auto")}
	}
	var err error
	if o.baselineFile != "" {
		if cfg.Baseline, err = conformance.LoadBaseline(o.baselineFile); err != nil {
			return cfg, err
		}
	}
	if cfg.Entries, err = checks.LoadRegistry(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// report writes the run's reports and sets the exit code. The text report
// goes to stdout, or to stderr when a machine report takes stdout.
func (o *runOptions) report(rep *conformance.Report, stdout, stderr io.Writer, getenv func(string) string, code *int) error {
	if o.noFootprint {
		rep.Footprint = nil
	}
	rep.Verbose = o.verbose
	text := stdout
	if o.jsonOut == "-" || o.junit == "-" {
		text = stderr
	}
	rep.WriteText(text)
	if err := writeReports(rep, o.junit, o.jsonOut, stdout); err != nil {
		return err
	}
	if o.github == "true" || o.github == "auto" && getenv("GITHUB_ACTIONS") == "true" {
		if err := writeGitHub(rep, text, getenv); err != nil {
			return err
		}
	}
	*code = rep.ExitCode()
	return nil
}
