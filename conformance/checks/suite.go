package checks

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"github.com/sebdah/goldie/v2"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A Suite is the Ginkgo definition of the conformance suite: one labelled
// It per registry entry, the reference adapter's golden footprints, and an
// AfterSuite that requires the CLI runner to agree. Its runnable entry is
// conformance/conformance_suite_test.go, so that `go tool ginkgo
// ./conformance` and `go test ./conformance` run it, and nothing else does.
type Suite struct {
	// Reference is the spec of the reference adapter, with a mutant or
	// none (""): the target when no -mcpcheck.url or -mcpcheck.stdio flag
	// names another, and the base every other target spec starts from.
	Reference func(mutant string) (conformance.TargetSpec, error)
	// GoldenDir holds the reference adapter's goldens, relative to the
	// directory the suite runs in.
	GoldenDir string
}

// suiteFlags select the target, for running the suite against something
// other than the reference adapter:
//
//	go test ./conformance -args -mcpcheck.url=https://host/mcp -mcpcheck.token-file=token.txt
//	ginkgo ./conformance -- -mcpcheck.stdio="pdpp-mcp --provider-url {rs_url}"
type suiteFlags struct {
	url, tokenFile, stdio, mutant, dialect *string
	budget                                 *int
	strict                                 *bool
}

func registerSuiteFlags() suiteFlags {
	return suiteFlags{
		url:       flag.String("mcpcheck.url", "", "Streamable HTTP MCP endpoint (token from -mcpcheck.token-file or $MCPCHECK_TOKEN)"),
		tokenFile: flag.String("mcpcheck.token-file", "", "file holding the bearer for -mcpcheck.url"),
		stdio:     flag.String("mcpcheck.stdio", "", "stdio adapter command; {rs_url} and {token} are replaced"),
		budget:    flag.Int("mcpcheck.budget", 0, "tools/list byte budget (default from scenarios/surface.json)"),
		mutant:    flag.String("mcpcheck.mutant", "", "a mutant of the reference adapter to check instead (harness self-test)"),
		strict:    flag.Bool("mcpcheck.strict", false, "fail on recommended clauses too (mcpcheck's own contract and thresholds)"),
		dialect:   flag.String("mcpcheck.dialect", "", "YAML file correcting the argument roles inferred from the target's inputSchemas"),
	}
}

// targetSpec is the spec the flags name.
func (s Suite) targetSpec(f suiteFlags) (conformance.TargetSpec, error) {
	spec, err := s.Reference(*f.mutant)
	if err != nil {
		return spec, err
	}
	spec.URL, spec.Stdio = *f.url, *f.stdio
	if *f.dialect != "" {
		if spec.Dialect, err = dialect.LoadOverrides(*f.dialect); err != nil {
			return spec, err
		}
	}
	if spec.URL != "" {
		spec.Token = strings.TrimSpace(os.Getenv("MCPCHECK_TOKEN"))
		if *f.tokenFile != "" {
			data, err := os.ReadFile(*f.tokenFile)
			if err != nil {
				return spec, err
			}
			spec.Token = strings.TrimSpace(string(data))
		}
	}
	return spec, nil
}

// Configuration is the Ginkgo configuration the suite runs with: the
// flags', plus the two options CI needs, which `go test ./...` cannot pass
// as -ginkgo.* flags to the packages that have no Ginkgo suite: no colour
// codes in logs, and failure when a filter selects no spec.
func Configuration() (types.SuiteConfig, types.ReporterConfig) {
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.FailOnEmpty = true
	reporterConfig.NoColor = true
	return suiteConfig, reporterConfig
}

// Declare declares the suite's specs and registers its flags; call it
// once, in a package-level var of the suite's test file.
func (s Suite) Declare() bool {
	f := registerSuiteFlags()
	var (
		spec     conformance.TargetSpec
		target   *conformance.Target
		settings conformance.Settings

		observedMu sync.Mutex
		observed   = map[string]conformance.Verdict{}
	)
	ginkgo.BeforeSuite(func(ctx ginkgo.SpecContext) {
		var err error
		spec, err = s.targetSpec(f)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		settings, err = conformance.LoadSettings(*f.budget)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		target, err = conformance.Open(ctx, spec)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "open the target")
		ginkgo.DeferCleanup(target.Close)
	}, ginkgo.NodeTimeout(60*time.Second))

	// One spec per catalog scenario, built from the registry so the suite
	// cannot drift from it. Checked scenarios run through
	// conformance.Evaluate, the same function the CLI uses. A manual
	// scenario is a spec labelled "manual" that skips with "manual:
	// <reason>", so go test output and JUnit say manual.
	ginkgo.Describe("PDPP MCP conformance", func() {
		entries, err := LoadRegistry()
		if err != nil {
			ginkgo.It("has a consistent scenario registry", func() { ginkgo.Fail(err.Error()) })
			return
		}
		for _, e := range entries {
			declare(e, func(ctx context.Context, e conformance.Entry) {
				r := conformance.Evaluate(ctx, e, target, settings)
				observedMu.Lock()
				observed[e.Check.ID] = r.Verdict
				observedMu.Unlock()
				for _, en := range r.Entries {
					ginkgo.AddReportEntry(en.Name, en.Value, ginkgo.ReportEntryVisibilityFailureOrVerbose)
				}
				reportToGinkgo(r, *f.strict)
			})
		}
	})

	// The two runners must agree: the CLI's Run, on the same target spec,
	// must reach the verdicts the specs above reached.
	ginkgo.AfterSuite(func(ctx ginkgo.SpecContext) {
		observedMu.Lock()
		defer observedMu.Unlock()
		if len(observed) == 0 {
			return
		}
		entries, err := LoadRegistry()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		rep, err := conformance.Run(ctx, conformance.Config{Target: spec, Entries: entries, BudgetBytes: *f.budget, Strict: *f.strict, Only: conformance.SortedIDs(observed)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(rep.TargetError).To(gomega.BeNil())
		gomega.Expect(rep.Verdicts()).To(gomega.Equal(observed), "the CLI runner and the Ginkgo runner disagree")
	}, ginkgo.NodeTimeout(120*time.Second))

	ginkgo.Describe("golden footprints", ginkgo.Label("golden"), func() {
		ginkgo.It("match golden/reference for the reference adapter", func() { s.expectGoldens(target) })
	})
	return true
}

// reportToGinkgo ends a spec as its verdict says. Ginkgo has pass, skip
// and fail only: a partial pass, a not-applicable check and a failure of
// recommended clauses (outside -mcpcheck.strict) are skips whose message
// says which, so none of them shows as a plain pass.
func reportToGinkgo(r conformance.Result, strict bool) {
	switch {
	case r.Verdict == conformance.Pass:
	case r.Verdict == conformance.Fail && (strict || r.FailLevel != scenarios.Recommended), r.Verdict == conformance.Error:
		ginkgo.Fail(string(r.Verdict) + ": " + failureText(r)) // the prefix tells a harness error from a failure
	case r.Verdict == conformance.Fail:
		ginkgo.Skip("recommended clauses failed (fail the run with -mcpcheck.strict): " + failureText(r))
	default:
		ginkgo.Skip(string(r.Verdict) + ": " + r.Message)
	}
}

// failureText is a failed result's clauses, their failures and calls.
func failureText(r conformance.Result) string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, c := range r.FailedClauses() {
		fmt.Fprintf(&b, "\n%s (%s): %s", c.Key, c.FailLevel(), c.Text)
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "\n  - %s", f.Message)
		}
		for _, call := range c.Calls {
			fmt.Fprintf(&b, "\n  call: %s", call)
		}
	}
	for _, call := range r.Calls {
		fmt.Fprintf(&b, "\ncall: %s", call)
	}
	return b.String()
}

// declare turns one registry entry into a spec; evaluate runs a check.
func declare(e conformance.Entry, evaluate func(context.Context, conformance.Entry)) {
	labels := ginkgo.Label(e.Labels()...) // the same labels as mcpcheck --label
	switch e.Status {
	case conformance.Manual:
		ginkgo.It(e.Scenario.Name()+" [manual]", labels, func() { ginkgo.Skip(e.StatusText()) })
		return
	case conformance.Pending:
		ginkgo.PIt(e.Scenario.Name()+" ["+e.StatusText()+"]", labels, func() {})
		return
	}
	c := e.Check
	ginkgo.It(c.Name(), labels, func(ctx ginkgo.SpecContext) { evaluate(ctx, e) },
		ginkgo.NodeTimeout(conformance.DefaultCheckTimeout+5*time.Second))
}

// expectGoldens compares the reference adapter's normalised footprints
// with s.GoldenDir; `-update` rewrites them, except under CI.
func (s Suite) expectGoldens(target *conformance.Target) {
	if target.Kind != conformance.KindReference {
		ginkgo.Skip("goldens describe the reference adapter")
	}
	update := flag.Lookup("update").Value.String() == "true"
	if os.Getenv("CI") != "" && update {
		ginkgo.Fail("CI never rewrites goldens; run `make golden` locally and review the diff")
	}
	g := goldie.New(ginkgo.GinkgoTB(), goldie.WithFixtureDir(s.GoldenDir), goldie.WithNameSuffix(".golden.json"))
	tools, err := conformance.GoldenTools(target)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	g.Assert(ginkgo.GinkgoTB(), "tools-list", tools)
	init, err := conformance.GoldenInitialize(target)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	g.Assert(ginkgo.GinkgoTB(), "initialize", init)
	produced := []string{"tools-list", "initialize"}
	for _, gc := range conformance.GoldenCalls {
		res, err := conformance.GoldenResult(context.Background(), target, gc)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		g.Assert(ginkgo.GinkgoTB(), gc.Name, res)
		produced = append(produced, gc.Name)
	}
	// goldie only compares the files it is named; a leftover golden would
	// otherwise pin nothing unnoticed. `make golden` deletes it.
	stale, err := conformance.StaleGoldens(s.GoldenDir, produced, update)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if update {
		for _, name := range stale {
			ginkgo.GinkgoWriter.Printf("removed stale golden %s\n", name)
		}
		return
	}
	gomega.Expect(stale).To(gomega.BeEmpty(), "golden files nothing produces; run `make golden` to remove them")
}
