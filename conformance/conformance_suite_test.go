package conformance_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sebdah/goldie/v2"

	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

// Target flags, for running the suite against something other than the
// reference adapter:
//
//	go test ./conformance -args -mcpcheck.url=https://host/mcp -mcpcheck.token-file=token.txt
//	ginkgo ./conformance -- -mcpcheck.stdio="pdpp-mcp --provider-url {rs_url}"
var (
	flagURL       = flag.String("mcpcheck.url", "", "Streamable HTTP MCP endpoint (token from -mcpcheck.token-file or $MCPCHECK_TOKEN)")
	flagTokenFile = flag.String("mcpcheck.token-file", "", "file holding the bearer for -mcpcheck.url")
	flagStdio     = flag.String("mcpcheck.stdio", "", "stdio adapter command; {rs_url} and {token} are replaced")
	flagBudget    = flag.Int("mcpcheck.budget", 0, "tools/list byte budget (default from scenarios/surface.json)")
	flagMutant    = flag.String("mcpcheck.mutant", "", "a mutant of the reference adapter to check instead (harness self-test)")
)

// TestConformance runs the suite. `go test ./...` cannot pass -ginkgo.*
// flags to the packages that have no Ginkgo suite, so the suite turns on the
// two options CI needs itself: no colour codes in logs, and failure when a
// filter selects no spec.
func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.FailOnEmpty = true
	reporterConfig.NoColor = true
	RunSpecs(t, "PDPP MCP conformance", suiteConfig, reporterConfig)
}

var (
	spec     conformance.TargetSpec
	target   *conformance.Target
	settings conformance.Settings

	observedMu sync.Mutex
	observed   = map[string]conformance.Verdict{}
)

func targetSpec() (conformance.TargetSpec, error) {
	s := conformance.TargetSpec{URL: *flagURL, Stdio: *flagStdio}
	if _, err := variation.Lookup(*flagMutant); err != nil {
		return s, err
	}
	s.Mutant = *flagMutant
	if s.URL != "" {
		s.Token = strings.TrimSpace(os.Getenv("MCPCHECK_TOKEN"))
		if *flagTokenFile != "" {
			data, err := os.ReadFile(*flagTokenFile)
			if err != nil {
				return s, err
			}
			s.Token = strings.TrimSpace(string(data))
		}
	}
	return s, nil
}

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	spec, err = targetSpec()
	Expect(err).NotTo(HaveOccurred())
	settings, err = conformance.LoadSettings(*flagBudget)
	Expect(err).NotTo(HaveOccurred())
	target, err = conformance.Open(ctx, spec)
	Expect(err).NotTo(HaveOccurred(), "open the target")
	DeferCleanup(target.Close)
}, NodeTimeout(60*time.Second))

// One spec per catalog scenario, built from the registry so the suite cannot
// drift from it. Checked scenarios run through conformance.Evaluate, the same
// function the CLI uses. A manual scenario is a spec labelled "manual" that
// skips with "manual: <reason>", so go test output and JUnit say manual.
var _ = Describe("PDPP MCP conformance", func() {
	entries, err := conformance.LoadRegistry()
	if err != nil {
		It("has a consistent scenario registry", func() { Fail(err.Error()) })
		return
	}
	for _, e := range entries {
		declare(e)
	}
})

func declare(e conformance.Entry) {
	labels := Label(e.Scenario.ID, "seed-"+e.Scenario.Seed)
	switch e.Status {
	case conformance.Manual:
		It(e.Scenario.Name()+" [manual]", labels, Label("manual"), func() { Skip(e.StatusText()) })
		return
	case conformance.Pending:
		PIt(e.Scenario.Name()+" ["+e.StatusText()+"]", labels, func() {})
		return
	}
	c := e.Check
	It(c.Name(), labels, Label(string(c.Mode)), func(ctx SpecContext) {
		r := conformance.Evaluate(ctx, c, target, settings)
		observedMu.Lock()
		observed[c.ID] = r.Verdict
		observedMu.Unlock()
		for _, en := range r.Entries {
			AddReportEntry(en.Name, en.Value, ReportEntryVisibilityFailureOrVerbose)
		}
		switch r.Verdict {
		case conformance.Skip:
			Skip(r.Message)
		case conformance.Fail, conformance.Error:
			Fail(string(r.Verdict) + ": " + r.Message) // the prefix tells a harness error from a failure
		}
	}, NodeTimeout(conformance.DefaultCheckTimeout+5*time.Second))
}

// The two runners must agree: the CLI's Run, on the same target spec, must
// reach the verdicts the specs above reached.
var _ = AfterSuite(func(ctx SpecContext) {
	observedMu.Lock()
	defer observedMu.Unlock()
	if len(observed) == 0 {
		return
	}
	rep, err := conformance.Run(ctx, conformance.Config{Target: spec, BudgetBytes: *flagBudget, Only: conformance.SortedIDs(observed)})
	Expect(err).NotTo(HaveOccurred())
	Expect(rep.TargetError).To(BeNil())
	Expect(rep.Verdicts()).To(Equal(observed), "the CLI runner and the Ginkgo runner disagree")
}, NodeTimeout(120*time.Second))

var _ = Describe("golden footprints", Label("golden"), func() {
	It("match golden/reference for the reference adapter", func() {
		if target.Kind != conformance.KindReference {
			Skip("goldens describe the reference adapter")
		}
		if os.Getenv("CI") != "" && flag.Lookup("update").Value.String() == "true" {
			Fail("CI never rewrites goldens; run `make golden` locally and review the diff")
		}
		g := goldie.New(GinkgoTB(), goldie.WithFixtureDir("../golden/reference"), goldie.WithNameSuffix(".golden.json"))
		tools, err := conformance.GoldenTools(target)
		Expect(err).NotTo(HaveOccurred())
		g.Assert(GinkgoTB(), "tools-list", tools)
		init, err := conformance.GoldenInitialize(target)
		Expect(err).NotTo(HaveOccurred())
		g.Assert(GinkgoTB(), "initialize", init)
		produced := []string{"tools-list", "initialize"}
		for _, gc := range conformance.GoldenCalls {
			res, err := conformance.GoldenResult(context.Background(), target, gc)
			Expect(err).NotTo(HaveOccurred())
			g.Assert(GinkgoTB(), gc.Name, res)
			produced = append(produced, gc.Name)
		}
		// goldie only compares the files it is named; a leftover golden would
		// otherwise pin nothing unnoticed. `make golden` deletes it.
		update := flag.Lookup("update").Value.String() == "true"
		stale, err := conformance.StaleGoldens("../golden/reference", produced, update)
		Expect(err).NotTo(HaveOccurred())
		if update {
			for _, name := range stale {
				GinkgoWriter.Printf("removed stale golden %s\n", name)
			}
			return
		}
		Expect(stale).To(BeEmpty(), "golden files nothing produces; run `make golden` to remove them")
	})
})
