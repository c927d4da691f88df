// Package conformance is mcpcheck's framework: it runs checks (package
// conformance/checks) against an MCP target (the reference adapter in
// process, a Streamable HTTP URL, or a stdio command) and reports the
// verdicts. One registry of checks, keyed by scenario id ([Registry]),
// feeds two runners, the Ginkgo suite and the mcpcheck CLI ([Run]); both
// call [Evaluate], so their verdicts cannot drift apart.
package conformance

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A Mode says what a check needs from its target (scenario-catalog.md §0).
type Mode string

const (
	ModeBB   Mode = "bb"   // black-box: any target, no data prerequisites
	ModeBBD  Mode = "bb+d" // black-box, needs data of a known shape
	ModeCTRL Mode = "ctrl" // needs an RS or process that mcpcheck controls
	ModeHOST Mode = "host" // needs the hosted HTTP endpoint
	ModePROC Mode = "proc" // not MCP wire: docs, setup, process
)

// A Check is one executable scenario.
type Check struct {
	ID   string // catalog id, "S012"
	Slug string // the catalog slug, "tools-exact-membership"
	Mode Mode
	// Needs lists capabilities without which the check is skipped with a reason.
	Needs []Capability
	Run   func(t *T)
}

// Name is "S012-tools-exact-membership": the Ginkgo spec text, the JUnit
// test name and the CLI row all use it.
func (c *Check) Name() string { return c.ID + "-" + c.Slug }

// Settings are the per-run knobs every check can read.
type Settings struct {
	Surface     *scenarios.Surface
	BudgetBytes int // tools/list byte budget
}

// T is what a check runs with. Assertions are gomega's, so a check reads the
// same under the Ginkgo suite and under the CLI.
type T struct {
	gomega.Gomega
	ctx      context.Context
	Target   *Target
	Settings Settings
	entries  *[]ReportEntry
	cleanups *[]func()
	calls    *[]string // the last few calls, described
}

// maxReportedCalls bounds the calls a failure report shows.
const maxReportedCalls = 3

func (t *T) noteCall(c *Call) {
	*t.calls = append(*t.calls, c.Describe())
	if n := len(*t.calls); n > maxReportedCalls {
		*t.calls = (*t.calls)[n-maxReportedCalls:]
	}
}

// Context is the check's context; it carries the per-check deadline.
func (t *T) Context() context.Context { return t.ctx }

// Skipf ends the check as skipped: the target lacks what the check needs.
// A skip is never a pass.
func (t *T) Skipf(format string, args ...any) { panic(skipSignal{fmt.Sprintf(format, args...)}) }

// Fork opens the target again against its own fixture RS serving fx (see
// [Forker]); it is closed when the check ends. A check calls it only
// after declaring [CapFixture] in Needs, or after testing t.Target.Has.
func (t *T) Fork(fx *fakers.Fixture) *Target {
	f, err := need[Forker](t, CapFixture).Fork(t.ctx, fx)
	if err != nil {
		panic(errorSignal{"open a fork of the target: " + err.Error()})
	}
	t.Cleanup(f.Close)
	return f
}

// ForkSame forks the target against a fresh copy of the fixture it serves,
// for checks that count RS calls or inject faults.
func (t *T) ForkSame() *Target { return t.Fork(t.BaseFixture()) }

// BaseFixture is a fresh copy of the data the target's RS serves by
// default, for a check to change and serve on a fork. A target without a
// fixture RS skips the check; one whose data cannot be read ends it as an
// error.
func (t *T) BaseFixture() *fakers.Fixture {
	if !t.Target.Has(CapFixture) {
		t.Skipf("%s", CapFixture.SkipReason())
	}
	fx, err := need[ControlledRS](t, CapControlledRS).FixtureRS().Baseline(t.ctx)
	if err != nil {
		panic(errorSignal{"load fixture: " + err.Error()})
	}
	return fx
}

// Private is t on a fresh fork of the same fixture when the target can fork,
// so RS calls can be counted without other checks' traffic; else t itself.
func (t *T) Private() *T {
	if t.Target.Has(CapFixture) {
		return t.On(t.ForkSame())
	}
	return t
}

// On returns a view of t whose calls go to another target, typically a fork.
func (t *T) On(tgt *Target) *T {
	u := *t
	u.Target = tgt
	return &u
}

// Cleanup registers f to run when the check ends, last registered first.
func (t *T) Cleanup(f func()) { *t.cleanups = append(*t.cleanups, f) }

// Record attaches a measured value to the check's result (bytes, tokens, …).
func (t *T) Record(name string, value any) {
	*t.entries = append(*t.entries, ReportEntry{Name: name, Value: fmt.Sprint(value)})
}

// A ReportEntry is a named measurement attached to a result.
type ReportEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A Verdict is the outcome of one check.
type Verdict string

const (
	Pass  Verdict = "pass"
	Fail  Verdict = "fail"
	Skip  Verdict = "skip"
	Error Verdict = "error" // the harness could not judge: transport fault, timeout, panic
)

// A Result is one check's verdict.
type Result struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Mode     Mode          `json:"mode"`
	Verdict  Verdict       `json:"verdict"`
	Message  string        `json:"message,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Entries  []ReportEntry `json:"entries,omitempty"`
	// Calls are the last tool calls of a check that did not pass: what was
	// sent and, bounded, what came back.
	Calls []string `json:"calls,omitempty"`
}

type (
	failSignal  struct{ msg string }
	skipSignal  struct{ reason string }
	errorSignal struct{ msg string }
)

// DefaultCheckTimeout bounds one check.
const DefaultCheckTimeout = 30 * time.Second

// Evaluate runs one check against a target and returns its verdict. Both
// runners call it; nothing else decides a verdict.
func Evaluate(ctx context.Context, c *Check, tgt *Target, s Settings) (res Result) {
	res = Result{ID: c.ID, Name: c.Name(), Mode: c.Mode}
	start := time.Now()
	for _, need := range c.Needs {
		if !tgt.Has(need) {
			res.Verdict, res.Message = Skip, need.SkipReason()
			return res
		}
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultCheckTimeout)
	defer cancel()
	t := &T{ctx: ctx, Target: tgt, Settings: s, entries: &[]ReportEntry{}, cleanups: &[]func(){}, calls: &[]string{}}
	t.Gomega = gomega.NewGomega(func(message string, _ ...int) { panic(failSignal{message}) })
	defer func() {
		for i := len(*t.cleanups) - 1; i >= 0; i-- {
			(*t.cleanups)[i]()
		}
		res.Duration = time.Since(start)
		res.Entries = *t.entries
		defer func() {
			if res.Verdict == Fail || res.Verdict == Error {
				for _, c := range *t.calls {
					res.Calls = append(res.Calls, tgt.redact(c))
				}
			}
		}()
		switch sig := recover().(type) {
		case nil:
			res.Verdict = Pass
		case failSignal:
			res.Verdict, res.Message = Fail, tgt.redact(strings.TrimSpace(sig.msg))
		case skipSignal:
			res.Verdict, res.Message = Skip, sig.reason
		case errorSignal:
			res.Verdict, res.Message = Error, sig.msg
		default:
			res.Verdict = Error
			res.Message = tgt.redact(fmt.Sprintf("check panicked: %v\n%s", sig, debug.Stack()))
		}
	}()
	c.Run(t)
	return res
}
