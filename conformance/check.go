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

// A Check is one executable scenario. It judges the scenario's clauses
// (scenarios.Clause: its THEN and AND bullets, keyed "S029.2") with
// [T.Clause], and nothing another scenario owns.
type Check struct {
	ID   string // catalog id, "S012"
	Slug string // the catalog slug, "tools-exact-membership"
	Mode Mode
	// Needs lists capabilities without which the check is skipped with a reason.
	Needs []Capability
	// Tools are the read tools the scenario is about. A target that serves
	// none of them makes the check not applicable (S012 reports the missing
	// tools once). Empty: the scenario is about the surface itself.
	Tools []string
	// Manual gives, by clause number, the clauses MCP traffic cannot judge
	// and what stands in for each ("why; proxy"): they are reported as
	// manual, never as exercised.
	Manual map[int]string
	Run    func(t *T)
}

// Name is "S012-tools-exact-membership": the Ginkgo spec text, the JUnit
// test name and the CLI row all use it.
func (c *Check) Name() string { return c.ID + "-" + c.Slug }

// Settings are the per-run knobs every check can read.
type Settings struct {
	Surface     *scenarios.Surface
	BudgetBytes int // tools/list byte budget
	// BudgetConfigured: the user set the budget (--budget), so it is the
	// seed's "configured budget"; else it is mcpcheck's own number.
	BudgetConfigured bool
}

// T is what a check runs with. Assertions are gomega's, so a check reads the
// same under the Ginkgo suite and under the CLI. Inside [T.Clause] an
// assertion is soft: a failure is recorded against that clause and the
// check goes on, so every broken clause is reported.
type T struct {
	gomega.Gomega
	ctx      context.Context
	Target   *Target
	Settings Settings
	run      *checkRun // shared by t and every view of it ([T.On])
}

// Context is the check's context; it carries the per-check deadline.
func (t *T) Context() context.Context { return t.ctx }

// Skipf ends the check as skipped: the target lacks what the check needs.
// A skip is never a pass.
func (t *T) Skipf(format string, args ...any) {
	panic(skipSignal{reason: fmt.Sprintf(format, args...)})
}

// SkipFor ends the check, or the clause, as skipped because the target
// lacks capability c: the reason is what the check wanted, then c's
// [Capability.SkipReason]. A run that lacks c by design (--rs real has no
// fixture control plane) counts such a skip as outside its scope.
func (t *T) SkipFor(c Capability, format string, args ...any) {
	why := c.SkipReason()
	if format != "" {
		why = fmt.Sprintf(format, args...) + ": " + why
	}
	panic(skipSignal{reason: why, needs: c})
}

// Fork opens the target again against its own fixture RS serving fx (see
// [Forker]); it is closed when the check ends. A check calls it only
// after declaring [CapFixture] in Needs, or after testing t.Target.Has.
func (t *T) Fork(fx *fakers.Fixture) *Target {
	t.run.noteUse(DataUse{Fixture: fx.Name, At: callerOutsideFramework()})
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
		t.SkipFor(CapFixture, "")
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
func (t *T) Cleanup(f func()) { t.run.cleanup(f) }

// Record attaches a measured value to the check's result (bytes, tokens, …).
func (t *T) Record(name string, value any) {
	t.run.record(ReportEntry{Name: name, Value: fmt.Sprint(value)})
}

// A ReportEntry is a named measurement attached to a result.
type ReportEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
