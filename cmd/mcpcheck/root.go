package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter/shellquote"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// targetOptions are the flags that select and reach a target.
type targetOptions struct {
	url, tokenFile, ownerTokenFile, stdio, fixture, mutant string
	expiredTokenFile, foreignTokenFile                     string
	env                                                    []string
	timeout                                                time.Duration
	control                                                rsControlOptions
	redactor                                               *conformance.Redactor // every token read is added to it
}

func (o *targetOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "Streamable HTTP MCP endpoint to check (token from --token-file or $MCPCHECK_TOKEN)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token for --url (never printed)")
	f.StringVar(&o.ownerTokenFile, "owner-token-file", "", "file holding an owner bearer for --url, to prove the endpoint refuses it (never printed)")
	f.StringVar(&o.expiredTokenFile, "expired-token-file", "", "file holding a client token whose grant expired, for --url, to prove the endpoint challenges it (never printed)")
	f.StringVar(&o.foreignTokenFile, "foreign-token-file", "", "file holding a token issued for another resource, for --url, to prove the endpoint challenges it (never printed)")
	f.StringVar(&o.stdio, "stdio", "", `stdio adapter command; {rs_url} and {token} become mcpcheck's fixture RS URL and client token`)
	f.StringArrayVar(&o.env, "env", nil, "KEY=VALUE for the --stdio command's environment (templated like --stdio); repeatable")
	f.StringVar(&o.fixture, "fixture", "", "fixture RS data set for the reference adapter and --stdio: default, single-connection, or scale:C,S,F,R")
	f.DurationVar(&o.timeout, "timeout", conformance.DefaultConnectTimeout, "bound on connecting, initialize and tools/list, and on each tool call")
	f.StringVar(&o.mutant, "mutant", "", "inject a named fault into the reference adapter (harness self-test)")
	_ = f.MarkHidden("mutant")
	o.control.addFlags(f)
}

// verdictFlags are the flags that can change a check's verdict, in the order
// a reproduction line repeats them. Output, parallelism and golden flags do not.
var verdictFlags = []string{"url", "token-file", "owner-token-file", "expired-token-file", "foreign-token-file", "rs-control", "rs-control-token-file", "stdio", "env", "fixture", "mutant", "timeout", "budget", "baseline"}

// invocation repeats the verdict-affecting flags the user set, secrets
// excluded (token files are named, never read out): the start of a
// reproduction line.
func invocation(fs *pflag.FlagSet) []string {
	var out []string
	for _, name := range verdictFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			out = append(out, "--"+name, shellquote.Quote(v))
		}
	}
	return out
}

// spec validates the flags and builds the target spec.
func (o *targetOptions) spec(getenv func(string) string) (conformance.TargetSpec, error) {
	s := conformance.TargetSpec{URL: o.url, Stdio: o.stdio, Env: o.env, Fixture: o.fixture, ConnectTimeout: o.timeout, Redactor: o.redactor}
	switch {
	case o.url != "" && o.stdio != "":
		return s, errors.New("--url and --stdio are mutually exclusive")
	case o.url == "" && o.tokenFile != "":
		return s, errors.New("--token-file needs --url")
	case o.url == "" && o.ownerTokenFile != "":
		return s, errors.New("--owner-token-file needs --url")
	case o.url == "" && (o.expiredTokenFile != "" || o.foreignTokenFile != ""):
		return s, errors.New("--expired-token-file and --foreign-token-file need --url")
	case o.url != "" && (o.fixture != "" || len(o.env) > 0):
		return s, errors.New("--fixture and --env apply to the reference adapter and --stdio, not --url")
	case o.stdio == "" && len(o.env) > 0:
		return s, errors.New("--env needs --stdio")
	case o.mutant != "" && (o.url != "" || o.stdio != ""):
		return s, errors.New("--mutant applies to the reference adapter only")
	case o.timeout <= 0:
		return s, errors.New("--timeout must be positive")
	}
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return s, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}
	if o.url != "" {
		if !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://") {
			return s, fmt.Errorf("--url %q: want an http:// or https:// URL", o.url)
		}
		tok, err := readToken(o.tokenFile, getenv)
		if err != nil {
			return s, err
		}
		s.Token = tok
		for _, f := range []struct {
			flag, path string
			dst        *string
		}{{"--owner-token-file", o.ownerTokenFile, &s.OwnerToken}, {"--expired-token-file", o.expiredTokenFile, &s.ExpiredToken},
			{"--foreign-token-file", o.foreignTokenFile, &s.ForeignToken}} {
			if f.path == "" {
				continue
			}
			data, err := os.ReadFile(f.path)
			if err != nil {
				return s, fmt.Errorf("%s: %w", f.flag, err)
			}
			if *f.dst = strings.TrimSpace(string(data)); *f.dst == "" {
				return s, fmt.Errorf("%s is empty", f.flag)
			}
		}
	}
	if err := o.control.apply(&s, getenv); err != nil {
		return s, err
	}
	// The reference adapter is the default target, and its auth probe the
	// one fixture RSs exempt for any target.
	ref, err := reference.New(o.mutant)
	if err != nil {
		return s, err
	}
	s.InProcess = ref
	return s, nil
}

func readToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv("MCPCHECK_TOKEN")), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" || strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("--token-file %s: want exactly one non-empty line", file)
	}
	return tok, nil
}

// usageError marks errors that exit with code 2.
type usageError struct{ error }

func execute(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	// Whatever a subcommand prints may quote the target: it reaches the
	// terminal with no lent token and no control character to obey.
	red := conformance.NewRedactor()
	safeOut, safeErr := &safeOutput{dst: stdout, red: red}, &safeOutput{dst: stderr, red: red}
	defer func() { _ = safeOut.flush(); _ = safeErr.flush() }()
	stdout, stderr = safeOut, safeErr
	code := conformance.ExitPass
	root := newRootCommand(ctx, stdout, stderr, getenv, &code, red)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
		var (
			ue *conformance.UsageError
			ce usageError
			te *conformance.TargetError
		)
		if errors.As(err, &te) {
			if te.Unreachable {
				return conformance.ExitUnreachable
			}
			return conformance.ExitAuth
		}
		if errors.As(err, &ue) || errors.As(err, &ce) || isCobraUsage(err) {
			fmt.Fprintln(stderr, "Run 'mcpcheck --help' for usage.")
			return conformance.ExitUsage
		}
		return conformance.ExitFail
	}
	return code
}

// isCobraUsage recognises cobra's own flag and argument errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "flag needs an argument", "invalid argument", "unknown command", "accepts ", "requires "} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// newRootCommand builds the CLI; red learns every token its targets are
// lent, to redact what they print.
func newRootCommand(ctx context.Context, stdout, stderr io.Writer, getenv func(string) string, code *int, red *conformance.Redactor) *cobra.Command {
	var (
		to                          = targetOptions{redactor: red}
		junit, jsonOut              string
		baselineFile, goldenDir     string
		focus                       []string
		budget, parallel            int
		quietFootprintTable, update bool
	)
	root := &cobra.Command{
		Use:   "mcpcheck [flags] [SCENARIO-ID|PREFIX ...]",
		Short: "Conformance and footprint checks for PDPP MCP adapters",
		Long: `mcpcheck turns every PDPP MCP scenario (S001–S052) into an executable check
and runs the checks against an MCP adapter:

  the built-in reference adapter      mcpcheck
  a deployed Streamable HTTP server   mcpcheck --url https://host/mcp --token-file token.txt
  a local stdio adapter               mcpcheck --stdio "./my-adapter --provider-url {rs_url}"

For --stdio, mcpcheck starts its own fixture resource server and passes its URL
and a client token through {rs_url} and {token} (in the command or --env), and
as PDPP_PROVIDER_URL and PDPP_CLIENT_TOKEN in the environment.

Exit codes: 0 pass, 1 failures (or a stale baseline entry or golden drift),
2 usage, 3 incomplete (skipped checks only),
4 target unreachable, 5 authentication rejected.`,
		Example: `  mcpcheck
  mcpcheck S001 S012 --junit junit.xml
  MCPCHECK_TOKEN=$TOKEN mcpcheck --url https://pdpp.example/mcp --json report.json
  mcpcheck --stdio "pdpp-mcp --provider-url {rs_url}"`,
		Args:          cobra.ArbitraryArgs, // scenario ids, not subcommands
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := to.spec(getenv)
			if err != nil {
				return usageError{err}
			}
			cfg := conformance.Config{Target: spec, BudgetBytes: budget, Only: args, Focus: focus, Parallel: parallel,
				GoldenDir: goldenDir, UpdateGolden: update, Invocation: invocation(cmd.Flags())}
			if update && goldenDir == "" {
				return usageError{errors.New("--update-golden needs --golden-dir")}
			}
			if baselineFile != "" {
				if cfg.Baseline, err = conformance.LoadBaseline(baselineFile); err != nil {
					return err
				}
			}
			if cfg.Entries, err = checks.LoadRegistry(); err != nil {
				return err
			}
			rep, err := conformance.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if quietFootprintTable {
				rep.Footprint = nil
			}
			rep.WriteText(stdout)
			if err := writeReports(rep, junit, jsonOut); err != nil {
				return err
			}
			*code = rep.ExitCode()
			return nil
		},
	}
	to.addFlags(root)
	f := root.Flags()
	f.StringVar(&junit, "junit", "", "write a JUnit XML report to FILE")
	f.StringVar(&jsonOut, "json", "", "write a JSON report (schema mcpcheck.report/v2) to FILE")
	f.IntVar(&budget, "budget", 0, "tools/list byte budget (default 24576, from scenarios/surface.json)")
	f.IntVar(&parallel, "parallel", 4, "checks to run at once")
	f.BoolVar(&quietFootprintTable, "no-footprint", false, "omit the footprint table")
	f.StringArrayVar(&focus, "focus", nil, "run exactly this scenario id, as failure reports' reproduce lines do (repeatable; an argument selects by id prefix)")
	f.StringVar(&baselineFile, "baseline", "", "YAML file of scenario ids expected to fail on this target, each with a reason; a baselined id that passes fails the run as stale")
	f.StringVar(&goldenDir, "golden-dir", "", "compare the target's normalised tools/list and initialize with the goldens in DIR")
	f.BoolVar(&update, "update-golden", false, "rewrite the goldens in --golden-dir instead of comparing (never under CI)")
	root.Flags().SetInterspersed(true)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newScenariosCommand(stdout), newFootprintCommand(stdout, getenv, red), newVersionCommand(stdout), newReportSchemaCommand(stdout),
		newMutantsCommand(stdout, code), newVariantsCommand(stdout, code), newBenchCommand(stdout, getenv, code, red), newReferenceAdapterCommand(getenv, code))
	addCompletions(root)
	return root
}

func writeReports(rep *conformance.Report, junit, jsonOut string) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("write report %s: %w", path, err)
		}
		return f.Close()
	}
	if err := write(junit, rep.WriteJUnit); err != nil {
		return err
	}
	return write(jsonOut, rep.WriteJSON)
}
