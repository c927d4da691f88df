package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/internal/shellquote"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// targetOptions are the flags that select and reach a target.
type targetOptions struct {
	url, tokenFile, ownerTokenFile, stdio, fixture, mutant string
	stdioArgv                                              []string // --stdio -- cmd args…
	expiredTokenFile, foreignTokenFile                     string
	dialectFile                                            string // --dialect: corrections to the inferred argument roles
	env                                                    []string
	timeout                                                time.Duration
	control                                                rsControlOptions
	rs                                                     rsOptions
	realGrant                                              string                // --rs real's grant, "" for the fixture RS
	redactor                                               *conformance.Redactor // every token read is added to it
}

func (o *targetOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "Streamable HTTP MCP endpoint to check (token from --token-file or $MCPCHECK_TOKEN)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token for --url (never printed)")
	f.StringVar(&o.ownerTokenFile, "owner-token-file", "", "file holding an owner bearer for --url, to prove the endpoint refuses it (never printed)")
	f.StringVar(&o.expiredTokenFile, "expired-token-file", "", "file holding a client token whose grant expired, for --url, to prove the endpoint challenges it (never printed)")
	f.StringVar(&o.foreignTokenFile, "foreign-token-file", "", "file holding a token issued for another resource, for --url, to prove the endpoint challenges it (never printed)")
	f.StringVar(&o.stdio, "stdio", "", `stdio adapter command, read as a POSIX shell reads it (or, last, --stdio -- cmd args… as given); {rs_url} and {token} become the RS's URL and client token (mcpcheck's fixture RS, or the real one with --rs real)`)
	f.StringArrayVar(&o.env, "env", nil, "KEY=VALUE for the --stdio command's environment (templated like --stdio); repeatable")
	f.StringVar(&o.fixture, "fixture", "", "fixture RS data set for the reference adapter and --stdio: default, single-connection, or scale:C,S,F,R")
	f.DurationVar(&o.timeout, "timeout", conformance.DefaultConnectTimeout, "bound on connecting, initialize and tools/list, and on each tool call")
	f.StringVar(&o.dialectFile, "dialect", "", "YAML file correcting the argument roles inferred from the target's inputSchemas (arguments: {tool: {role: argument}}; see docs/REPORT.md)")
	f.StringVar(&o.mutant, "mutant", "", "inject a named fault into the reference adapter (harness self-test)")
	_ = f.MarkHidden("mutant")
	o.control.addFlags(f)
	o.rs.addFlags(f)
}

// verdictFlags are the flags that can change a check's verdict or how a
// failure counts (--strict), in the order a reproduction line repeats them.
// Output, parallelism and golden flags do not.
var verdictFlags = []string{"url", "token-file", "owner-token-file", "expired-token-file", "foreign-token-file", "rs-control", "rs-control-token-file", "stdio", "env", "rs", "fixture", "dialect", "mutant", "timeout", "budget", "baseline", "strict"}

// invocation repeats the verdict-affecting flags the user set, secrets
// excluded (token files are named, never read out): the start of a
// reproduction line.
func invocation(fs *pflag.FlagSet) []string {
	var out []string
	for _, name := range verdictFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed || name == "stdio" && f.Value.String() == stdioDash {
			continue // --stdio -- cmd args… comes last: invocationTail
		}
		if f.Value.Type() == "bool" { // a switch: --strict, never --strict true
			if f.Value.String() == "true" {
				out = append(out, "--"+name)
			}
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

// invocationTail is what a reproduction line ends with: the argv of
// --stdio -- cmd args…, which must come last.
func (o *targetOptions) invocationTail() []string {
	if len(o.stdioArgv) == 0 {
		return nil
	}
	return []string{"--stdio", stdioDash, shellquote.Join(o.stdioArgv)}
}

// spec validates the flags and builds the target spec.
func (o *targetOptions) spec(getenv func(string) string) (conformance.TargetSpec, error) {
	s := conformance.TargetSpec{URL: o.url, Stdio: o.stdio, StdioArgv: o.stdioArgv, Env: o.env, Fixture: o.fixture, ConnectTimeout: o.timeout, Redactor: o.redactor}
	if len(o.stdioArgv) > 0 {
		s.Stdio = ""
	}
	stdio := o.stdio != "" || len(o.stdioArgv) > 0
	switch {
	case o.stdio == stdioDash && len(o.stdioArgv) == 0:
		return s, errors.New("--stdio --: the command goes after --, last on the line")
	case o.url != "" && stdio:
		return s, errors.New("--url and --stdio are mutually exclusive")
	case o.url == "" && o.tokenFile != "":
		return s, errors.New("--token-file needs --url")
	case o.url == "" && o.ownerTokenFile != "":
		return s, errors.New("--owner-token-file needs --url")
	case o.url == "" && (o.expiredTokenFile != "" || o.foreignTokenFile != ""):
		return s, errors.New("--expired-token-file and --foreign-token-file need --url")
	case o.url != "" && (o.fixture != "" || len(o.env) > 0):
		return s, errors.New("--fixture and --env apply to the reference adapter and --stdio, not --url")
	case !stdio && len(o.env) > 0:
		return s, errors.New("--env needs --stdio")
	case o.mutant != "" && (o.url != "" || stdio):
		return s, errors.New("--mutant applies to the reference adapter only")
	case o.timeout <= 0:
		return s, errors.New("--timeout must be positive")
	}
	if o.stdio != "" && o.stdio != stdioDash {
		if _, _, err := conformance.ParseCommand(o.stdio); err != nil {
			return s, fmt.Errorf("--stdio %w (quote as a POSIX shell does, or give the argv last: --stdio -- cmd args…)", err)
		}
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
	grant, err := o.rs.grant(stdio, o.fixture)
	if err != nil {
		return s, err
	}
	o.realGrant = grant
	if o.dialectFile != "" {
		d, err := dialect.LoadOverrides(o.dialectFile)
		if err != nil {
			return s, err
		}
		s.Dialect = d
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

// stdioDash marks --stdio given as --stdio -- cmd args…
const stdioDash = "--"

// cutStdioArgv takes a trailing "--stdio -- cmd args…" off the command
// line: the argv, as given, is the adapter's command. Cobra never sees it,
// so the adapter's own flags are not read as mcpcheck's.
func cutStdioArgv(args []string) ([]string, []string) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--stdio" && args[i+1] == stdioDash {
			return append(args[:i:i], "--stdio", stdioDash), args[i+2:]
		}
	}
	return args, nil
}

func execute(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	setTerminal(stderr, getenv)
	// Whatever a subcommand prints may quote the target: it reaches the
	// terminal with no lent token and no control character to obey.
	red := conformance.NewRedactor()
	safeOut, safeErr := &safeOutput{dst: stdout, red: red}, &safeOutput{dst: stderr, red: red}
	defer func() { _ = safeOut.flush(); _ = safeErr.flush() }()
	stdout, stderr = safeOut, safeErr
	code := conformance.ExitPass
	args, stdioArgv := cutStdioArgv(args)
	root := newRootCommand(ctx, stdout, stderr, getenv, &code, red, stdioArgv)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
		var (
			ue *conformance.UsageError
			ce usageError
			te *conformance.TargetError
			nf *conformance.NoFootprintError
		)
		if errors.As(err, &te) {
			if te.Unreachable {
				return conformance.ExitUnreachable
			}
			return conformance.ExitAuth
		}
		if errors.As(err, &ue) || errors.As(err, &ce) || errors.As(err, &nf) || isCobraUsage(err) {
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
func newRootCommand(ctx context.Context, stdout, stderr io.Writer, getenv func(string) string, code *int, red *conformance.Redactor, stdioArgv []string) *cobra.Command {
	var (
		to = targetOptions{redactor: red, stdioArgv: stdioArgv}
		ro runOptions
	)
	root := &cobra.Command{
		Use:   "mcpcheck [flags] [SCENARIO-ID|PREFIX ...]",
		Short: "Conformance and footprint checks for PDPP MCP adapters",
		Long: `mcpcheck turns every PDPP MCP scenario (S001–S052) into an executable check
and judges each of its clauses (S029.1, S029.2, …) against an MCP adapter:

  the built-in reference adapter      mcpcheck
  a deployed Streamable HTTP server   mcpcheck --url https://host/mcp --token-file token.txt
  a local stdio adapter               mcpcheck --stdio "./my-adapter --provider-url {rs_url}"
                                      mcpcheck --stdio -- node adapter.js --provider-url {rs_url}

For --stdio, mcpcheck starts its own fixture resource server and passes its URL
and a client token through {rs_url} and {token} (in the command or --env), and
as PDPP_PROVIDER_URL and PDPP_CLIENT_TOKEN in the environment.

Select checks by id or prefix (arguments), exactly (--focus), by label
(--label, Ginkgo's syntax over: the id, seed:001, level:required, mode:bb,
tool:fetch, manual), or leave some out (--skip REGEX); --list says what would
run on the target without running it.

Exit codes: 0 pass, 1 failures of required clauses (of any clause with
--strict), a harness error, a stale baseline entry or golden drift, 2 usage,
3 incomplete (skipped or partly exercised checks only; under --rs real, not
those waiting only on the fixture's control plane), 4 target unreachable,
5 authentication rejected, 6 not a PDPP adapter (serves none of the read tools).`,
		Example: `  mcpcheck
  mcpcheck S001 S012 --junit junit.xml
  mcpcheck --label 'seed:001 && !mode:host' --list
  MCPCHECK_TOKEN=$TOKEN mcpcheck --url https://pdpp.example/mcp --json report.json
  mcpcheck --stdio "pdpp-mcp --provider-url {rs_url}"
  mcpcheck --json - --stdio -- node adapter.js > report.json`,
		Args:          cobra.ArbitraryArgs, // scenario ids, not subcommands
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := to.spec(getenv)
			if err != nil {
				return usageError{err}
			}
			if to.realGrant != "" && !ro.list {
				stop, err := startRealRS(cmd.Context(), &spec, to.realGrant, getenv, stderr)
				if err != nil {
					return err
				}
				defer stop()
			}
			cfg, err := ro.config(spec, args, cmd.Flags(), to.invocationTail())
			if err != nil {
				return err
			}
			if ro.list {
				plan, app, err := conformance.Plan(cmd.Context(), cfg)
				if err != nil {
					return err
				}
				if s := app.Summary(); s != "" {
					fmt.Fprintln(stderr, s)
				}
				conformance.WritePlan(stdout, plan)
				return nil
			}
			cfg.Progress = progressTo(stderr, getenv, "checks")
			rep, err := conformance.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			return ro.report(rep, stdout, stderr, getenv, code)
		},
	}
	to.addFlags(root)
	ro.addFlags(root)
	root.Flags().SetInterspersed(true)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newScenariosCommand(stdout), newFootprintCommand(stdout, getenv, red, stdioArgv), newVersionCommand(stdout), newReportSchemaCommand(stdout),
		newMutantsCommand(stdout, stderr, getenv, code), newVariantsCommand(stdout, stderr, getenv, code), newBenchCommand(stdout, getenv, code, red),
		newReferenceAdapterCommand(getenv, code), newDiffCommand(stdout, code), newCoverageCommand(stdout, code))
	addCompletions(root)
	addVersionFlag(root)
	return root
}

// writeReports writes the machine reports; "-" is standard output.
func writeReports(rep *conformance.Report, junit, jsonOut string, stdout io.Writer) error {
	write := func(path string, fn func(io.Writer) error) error {
		switch path {
		case "":
			return nil
		case "-":
			return fn(stdout)
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
