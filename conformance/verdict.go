package conformance

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A Verdict is the outcome of one scenario's check.
type Verdict string

const (
	Pass    Verdict = "pass"    // every clause was judged and held (or is manual)
	Partial Verdict = "partial" // no clause failed, some held, some were not exercised: never a plain pass
	Fail    Verdict = "fail"    // a clause failed
	Skip    Verdict = "skip"    // no clause could be exercised on this target
	NA      Verdict = "n/a"     // the scenario's subject is absent: not applicable
	Error   Verdict = "error"   // the harness could not judge: transport fault, timeout, panic
)

// An Outcome is how one clause fared.
type Outcome string

const (
	Held         Outcome = "pass"
	Broken       Outcome = "fail"
	NotExercised Outcome = "not-exercised"
	ManualClause Outcome = "manual"
)

// A Failure is one failed assertion. Its level is its clause's, or
// recommended when it holds the target to one of mcpcheck's own numbers
// where the seed says only "bounded" ([T.Threshold]).
type Failure struct {
	Message string          `json:"message"`
	Level   scenarios.Level `json:"level"`
}

// A ClauseResult is the verdict on one THEN or AND bullet.
type ClauseResult struct {
	Key     string          `json:"key"` // "S029.2"
	Text    string          `json:"text"`
	Level   scenarios.Level `json:"level"`
	Outcome Outcome         `json:"outcome"`
	// Reason says why the clause was not exercised, or what stands in for
	// a manual one.
	Reason string `json:"reason,omitempty"`
	// BlockedBy names the scenario that owns what broke, when that kept
	// this clause from being judged.
	BlockedBy string    `json:"blocked_by,omitempty"`
	Failures  []Failure `json:"failures,omitempty"`
	// Calls are the tool calls behind a failure, bounded in bytes.
	Calls []string `json:"calls,omitempty"`
}

// FailLevel is required when a failure holds the clause to its own terms,
// recommended when every failure is a threshold of mcpcheck's or the
// clause is recommended, and "" when nothing failed.
func (c ClauseResult) FailLevel() scenarios.Level {
	var lvl scenarios.Level
	if len(c.Failures) > 0 && c.Level == scenarios.Recommended {
		return scenarios.Recommended // a clause can fail no harder than its level
	}
	for _, f := range c.Failures {
		if f.Level == scenarios.Required {
			return scenarios.Required
		}
		lvl = scenarios.Recommended
	}
	return lvl
}

// A Result is one scenario's verdict.
type Result struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Mode Mode   `json:"mode"`
	// Level is the scenario's: required for a seed's SHALL, recommended for
	// mcpcheck's own contract.
	Level   scenarios.Level `json:"level"`
	Verdict Verdict         `json:"verdict"`
	// FailLevel, on a failed result, is required when some required clause
	// failed on its own terms, else recommended: only required failures
	// fail a run unless it is --strict.
	FailLevel scenarios.Level `json:"fail_level,omitempty"`
	Message   string          `json:"message,omitempty"`
	Clauses   []ClauseResult  `json:"clauses,omitempty"`
	Duration  time.Duration   `json:"duration_ns"`
	Entries   []ReportEntry   `json:"entries,omitempty"`
	// Calls, bounded in bytes, are: on a failure judged clause by clause,
	// the calls made before any clause (every clause's evidence; each
	// clause lists its own); else every call of the check.
	Calls []string `json:"calls,omitempty"`
}

// FailedClauses are the clauses that failed.
func (r *Result) FailedClauses() []ClauseResult { return r.clausesWith(Broken) }

// UnexercisedClauses are the clauses not judged on this target.
func (r *Result) UnexercisedClauses() []ClauseResult { return r.clausesWith(NotExercised) }

func (r *Result) clausesWith(o Outcome) []ClauseResult {
	var out []ClauseResult
	for _, c := range r.Clauses {
		if c.Outcome == o {
			out = append(out, c)
		}
	}
	return out
}

type (
	failSignal  struct{ msg string }
	skipSignal  struct{ reason string }
	blockSignal struct{ by, reason string }
	errorSignal struct{ msg string }
	naSignal    struct{ reason string }
)

// DefaultCheckTimeout bounds one check.
const DefaultCheckTimeout = 30 * time.Second

// Evaluate runs one scenario's check against a target and returns its
// verdict. Both runners call it; nothing else decides a verdict.
func Evaluate(ctx context.Context, e Entry, tgt *Target, s Settings) (res Result) {
	c := e.Check
	res = Result{ID: c.ID, Name: c.Name(), Mode: c.Mode, Level: e.Scenario.Level}
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	if why := tgt.notApplicable(c, s); why != "" {
		res.Verdict, res.Message = NA, why
		return res
	}
	for _, need := range c.Needs {
		if !tgt.Has(need) {
			res.Verdict, res.Message = Skip, need.SkipReason()
			return res
		}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, DefaultCheckTimeout)
	defer cancel()
	defer func() { interrupted(parent, &res) }() // runs after the verdict is decided
	run := &checkRun{check: c, scenario: e.Scenario, clauses: map[int]*clauseState{}, redact: tgt.redact}
	t := &T{ctx: ctx, Target: tgt, Settings: s, run: run}
	t.Gomega = gomega.NewGomega(run.failHandler(scenarios.Required))
	defer func() {
		run.runCleanups()
		res.Entries = run.entries
		sig := recover()
		res.Clauses = run.clauseResults(sig)
		res.Verdict, res.Message = run.verdict(sig, res.Clauses)
		switch {
		case res.Verdict == Fail && res.Clauses == nil: // failed as a whole
			res.FailLevel = e.Scenario.Level
			res.Calls = boundCalls(run.describeCalls(run.calls), maxCallBytes)
		case res.Verdict == Fail:
			res.FailLevel = failLevel(res.Clauses)
			res.Calls = boundCalls(run.describeCalls(run.prelude), maxCallBytes)
		case res.Verdict == Error:
			res.Calls = boundCalls(run.describeCalls(run.calls), maxCallBytes)
		}
	}()
	c.Run(t)
	return res
}

// interrupted makes the verdict of a check whose run was cancelled (by
// SIGINT or SIGTERM, say) before it finished an error: what failed or went
// unjudged then may have failed for the cancellation, not for the target.
func interrupted(ctx context.Context, res *Result) {
	if ctx.Err() == nil || res.Verdict == Pass || res.Verdict == NA {
		return
	}
	why := "interrupted: the run was cancelled (" + context.Cause(ctx).Error() + ") before the check finished"
	res.Verdict, res.Message, res.FailLevel, res.Calls = Error, why, "", nil
	for i := range res.Clauses {
		if c := &res.Clauses[i]; c.Outcome == Broken || c.Outcome == NotExercised {
			c.Outcome, c.Reason, c.BlockedBy, c.Failures, c.Calls = NotExercised, "not judged: "+why, "", nil, nil
		}
	}
}

// notApplicable says why the check does not apply to the target: the
// target serves none of the tools the scenario is about. Else "".
func (t *Target) notApplicable(c *Check, s Settings) string {
	if len(c.Tools) == 0 {
		return ""
	}
	for _, name := range c.Tools {
		if t.hasTool(name) {
			return ""
		}
	}
	return fmt.Sprintf("not applicable: the target serves no %s tool (S012 reports the missing tools)", strings.Join(c.Tools, " or "))
}

// A checkRun is what one evaluation of a check accumulates.
type checkRun struct {
	mu       sync.Mutex
	check    *Check
	scenario scenarios.Scenario
	redact   func(string) string
	entries  []ReportEntry
	cleanups []func()
	clauses  map[int]*clauseState
	cur      *clauseState // the clause being judged; nil outside any
	calls    []*Call      // every call, for an error verdict
	prelude  []*Call      // calls made outside any clause: evidence for every clause
}

func (r *checkRun) cleanup(f func()) { r.mu.Lock(); r.cleanups = append(r.cleanups, f); r.mu.Unlock() }
func (r *checkRun) record(e ReportEntry) {
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
}
func (r *checkRun) current() *clauseState     { r.mu.Lock(); defer r.mu.Unlock(); return r.cur }
func (r *checkRun) setCurrent(c *clauseState) { r.mu.Lock(); r.cur = c; r.mu.Unlock() }

func (r *checkRun) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// noteCall files a call as evidence, bounded: for the clause being
// judged, or for every clause when it was made before any.
func (r *checkRun) noteCall(c *Call) {
	c = c.evidence()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	if r.cur != nil {
		r.cur.calls = append(r.cur.calls, c)
	} else {
		r.prelude = append(r.prelude, c)
	}
}

// failHandler records an assertion's failure: inside a clause, against it,
// and the check goes on; outside any, the check ends failed as a whole.
func (r *checkRun) failHandler(level scenarios.Level) func(string, ...int) {
	return func(message string, _ ...int) {
		msg := r.redact(strings.TrimSpace(message))
		if cur := r.current(); cur != nil {
			cur.fail(msg, level)
			return
		}
		panic(failSignal{msg})
	}
}

// failLevel is the level of a failed result: required if a required
// clause failed on its own terms.
func failLevel(clauses []ClauseResult) scenarios.Level {
	for _, c := range clauses {
		if c.Outcome == Broken && c.FailLevel() == scenarios.Required {
			return scenarios.Required
		}
	}
	return scenarios.Recommended
}

func checkPanicked(p any) string {
	return fmt.Sprintf("check panicked: %v\n%s", p, debug.Stack())
}
