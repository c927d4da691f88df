package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/bench"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/spf13/cobra"
)

// newBenchCommand measures one or more adapters with the same fixed calls
// against the same fixture RS, so their figures can be compared.
func newBenchCommand(stdout io.Writer, getenv func(string) string, code *int, red *conformance.Redactor) *cobra.Command {
	var (
		urls, stdios, env        []string
		tokenFile, fixture       string
		withReference, inProcess bool
		o                        bench.Options
		jsonOut, cpuProfile      string
		timeout                  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure adapters: per-tool latency, overhead over the RS, throughput, RSS, startup, footprint",
		Long: `bench runs each tool with fixed arguments against mcpcheck's fixture RS and
reports, per tool, p50/p95/p99 latency, the overhead over the same RS requests
made directly, and throughput at each --concurrency level; then the adapter
process's peak RSS, its stdio startup time, its footprint, and the compact
schema on a scale grant; and what each answer, and a fixed journey of calls,
puts in front of a model (content[] text and structuredContent, bytes and o200k
tokens). Name several targets (--url, --stdio, --reference) to compare them in
one run: --reference runs the reference adapter over the same transport as the
other targets (stdio beside --stdio, HTTP beside --url). Without a target it
measures the reference adapter over HTTP, run as a child process of this binary.`,
		Example: `  mcpcheck bench
  mcpcheck bench --reference --stdio "node adapter.js" --json bench.json
  mcpcheck bench --url https://pdpp.example/mcp --token-file token.txt --tools search,fetch`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			targets, err := benchSpecs(urls, stdios, env, tokenFile, fixture, withReference, timeout, getenv)
			if err != nil {
				return usageError{err}
			}
			for i := range targets {
				targets[i].spec.Redactor = red
			}
			for _, n := range o.Concurrency {
				if n < 1 || n > 1024 {
					return usageError{fmt.Errorf("--concurrency %d: want 1 to 1024", n)}
				}
			}
			for _, t := range o.Tools {
				if !slices.Contains(benchTools, t) {
					return usageError{fmt.Errorf("--tools %q: want some of %s", t, strings.Join(benchTools, ", "))}
				}
			}
			if !inProcess {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find this binary to run the reference adapter: %w", err)
				}
				o.Reference = []string{exe, referenceCommand}
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return usageError{fmt.Errorf("--cpuprofile: %w", err)}
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
			if getenv("GOGC") == "" {
				// mcpcheck's own share (load generator and fixture RS) runs
				// on the same cores as the adapter: keep its GC cost small.
				debug.SetGCPercent(400)
			}
			o.CallTimeout = timeout
			run := bench.NewRun(o)
			for _, t := range targets {
				to := o
				to.ReferenceTransport = t.referenceOver
				to.Progress = progressTo(nil, getenv, "bench")
				rep := bench.Measure(cmd.Context(), t.spec, to)
				switch {
				case rep.AuthRejected:
					*code = conformance.ExitAuth
				case rep.Error != "":
					*code = conformance.ExitUnreachable
				case !rep.Measured():
					// Connected, but every tool failed: nothing to compare.
					*code = conformance.ExitUnreachable
				}
				run.Targets = append(run.Targets, rep)
			}
			run.Compare()
			red.Value(run) // errors may quote the target
			run.WriteText(stdout)
			if jsonOut != "" {
				data, _ := json.MarshalIndent(run, "", "  ")
				if err := os.WriteFile(jsonOut, append(data, '\n'), 0o644); err != nil {
					return fmt.Errorf("write %s: %w", jsonOut, err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&urls, "url", nil, "a Streamable HTTP MCP endpoint to measure (repeatable; token from --token-file or $MCPCHECK_TOKEN)")
	f.StringVar(&tokenFile, "token-file", "", "file holding the bearer for every --url (never printed)")
	f.StringArrayVar(&stdios, "stdio", nil, "a stdio adapter command to measure (repeatable; {rs_url} and {token} are templated)")
	f.StringArrayVar(&env, "env", nil, "KEY=VALUE for every --stdio command (templated); repeatable")
	f.BoolVar(&withReference, "reference", false, "also measure the reference adapter, over the transport of the --url or --stdio targets")
	f.StringVar(&fixture, "fixture", "", "fixture RS data set (default: default)")
	f.BoolVar(&inProcess, "in-process", false, "run the reference adapter inside mcpcheck (no RSS or startup figures)")
	f.IntVar(&o.Samples, "samples", 300, "paired latency samples per tool")
	f.DurationVar(&o.Duration, "duration", time.Second, "load time per tool and concurrency level")
	f.IntSliceVar(&o.Concurrency, "concurrency", []int{1, 8, 64}, "concurrency levels for throughput")
	f.StringSliceVar(&o.Tools, "tools", nil, "measure only these tools (default: all six)")
	f.IntVar(&o.StartupRuns, "startup-runs", 10, "stdio starts to time (negative: skip)")
	f.StringVar(&o.Scale, "scale", bench.DefaultScale, `fixture for the scale schema figure ("-" skips it)`)
	f.StringVar(&jsonOut, "json", "", "write the run as JSON (schema mcpcheck.bench/v1) to FILE")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write mcpcheck's own CPU profile (load generator and fixture RS) to FILE; PDPP_MCP_CPUPROFILE=FILE profiles the reference adapter child")
	f.DurationVar(&timeout, "timeout", conformance.DefaultConnectTimeout, "bound on connecting, initialize and tools/list, and on each tool call")
	return cmd
}

var benchTools = []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}

// A benchTarget is one target of a bench run; referenceOver is how the
// reference adapter is reached when the spec is the reference's.
type benchTarget struct {
	spec          conformance.TargetSpec
	referenceOver bench.Transport
}

// benchSpecs names the run's targets. The reference adapter is compared
// like for like: over stdio beside a --stdio target, over HTTP beside a
// --url target (both, when both are named), and over HTTP alone.
func benchSpecs(urls, stdios, env []string, tokenFile, fixture string, withReference bool, timeout time.Duration, getenv func(string) string) ([]benchTarget, error) {
	if timeout <= 0 {
		return nil, errors.New("--timeout must be positive")
	}
	if len(urls) == 0 && tokenFile != "" {
		return nil, errors.New("--token-file needs --url")
	}
	if len(stdios) == 0 && len(env) > 0 {
		return nil, errors.New("--env needs --stdio")
	}
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}
	// Every spec starts from the reference adapter's: the default target,
	// whose auth probe fixture RSs exempt for any target.
	base, err := reference.Spec("")
	if err != nil {
		return nil, err
	}
	base.ConnectTimeout = timeout
	var specs []benchTarget
	if withReference || len(urls)+len(stdios) == 0 {
		s := base
		s.Fixture = fixture
		if len(urls) > 0 || len(stdios) == 0 {
			specs = append(specs, benchTarget{s, bench.TransportHTTP})
		}
		if len(stdios) > 0 {
			specs = append(specs, benchTarget{s, bench.TransportStdio})
		}
	}
	if len(urls) > 0 {
		tok, err := readToken(tokenFile, getenv)
		if err != nil {
			return nil, err
		}
		for _, u := range urls {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				return nil, fmt.Errorf("--url %q: want an http:// or https:// URL", u)
			}
			s := base
			s.URL, s.Token = u, tok
			specs = append(specs, benchTarget{spec: s})
		}
	}
	for _, s := range stdios {
		if strings.TrimSpace(s) == "" {
			return nil, errors.New("--stdio: empty command")
		}
		spec := base
		spec.Stdio, spec.Env, spec.Fixture = s, env, fixture
		specs = append(specs, benchTarget{spec: spec})
	}
	return specs, nil
}

// referenceCommand is the hidden subcommand that runs the reference
// adapter from this binary, so bench can measure it as a child process.
const referenceCommand = "pdpp-mcp"

func newReferenceAdapterCommand(getenv func(string) string, code *int) *cobra.Command {
	return &cobra.Command{
		Use:                referenceCommand + " [pdpp-mcp arguments]",
		Short:              "Run the reference adapter (what bench measures as a child process)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			*code = reference.Main(cmd.Context(), args, getenv, os.Stdin, os.Stdout, os.Stderr)
			return nil
		},
	}
}
