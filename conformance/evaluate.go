package conformance

import (
	"cmp"
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

type (
	failSignal struct{ msg string }
	skipSignal struct {
		reason string
		needs  Capability // what the target lacked, when that is why
	}
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
			res.Verdict, res.Message, res.Needs = Skip, need.SkipReason(), need
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
		res.Entries, res.Uses = run.entries, run.uses
		sig := recover()
		res.Clauses = run.clauseResults(sig)
		res.Verdict, res.Message = run.verdict(sig, res.Clauses)
		if s, ok := sig.(skipSignal); ok && res.Clauses == nil {
			res.Needs = s.needs
		}
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
// target is of a kind without the surface the scenario is about (a stdio
// adapter has no hosted endpoint), or serves none of the tools the
// scenario is about. Else "".
func (t *Target) notApplicable(c *Check, s Settings) string {
	for _, need := range c.Needs {
		if why := need.subjectAbsent(t.Kind); why != "" && !t.Has(need) {
			return "not applicable: " + why
		}
	}
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
	uses     []DataUse
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
		msg := r.redact(strings.TrimSpace(plainFailure(message)))
		cur := r.current()
		if cur == nil {
			panic(errorSignal{fmt.Sprintf("%s fails outside any clause: every failure belongs to a t.Clause: %s", r.check.ID, msg)})
		}
		r.fail(cur, msg, level)
	}
}

// fail records a failure without a witness against clause cur: a
// recommended one (mcpcheck's own rule, or a recommended clause) as is; a
// required one only as not witnessed.
func (r *checkRun) fail(cur *clauseState, msg string, level scenarios.Level) {
	if level == scenarios.Required && cur.level == scenarios.Required {
		r.unwitnessed(cur, msg)
		return
	}
	// A failure counts no higher than its clause: a recommended clause's
	// failures are recommended, so one failure is never labelled both.
	if cur.level == scenarios.Recommended {
		level = scenarios.Recommended
	}
	r.mu.Lock()
	cur.failures = append(cur.failures, Failure{Message: msg, Level: level})
	r.mu.Unlock()
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

// clauseResults turns what the check found into one result per clause of
// its scenario. sig is how the check ended: a skip or block outside any
// clause is the reason for every clause it left unjudged.
func (r *checkRun) clauseResults(sig any) []ClauseResult {
	var endReason, endBlock string
	var endNeeds Capability
	switch s := sig.(type) {
	case skipSignal:
		endReason, endNeeds = s.reason, s.needs
	case blockSignal:
		endReason, endBlock = s.reason, s.by
	case errorSignal:
		endReason = "not judged: the check ended in a harness error"
	case naSignal:
		endReason = "not applicable: " + s.reason
	}
	out := make([]ClauseResult, len(r.scenario.Clauses))
	for i, cl := range r.scenario.Clauses {
		n := i + 1
		res := ClauseResult{Key: cl.Key, Text: cl.Text, Level: cl.Level}
		st := r.clauses[n]
		if st != nil {
			res.At = st.at
		}
		switch {
		case r.check.Manual[n] != "":
			res.Outcome, res.Reason = ManualClause, "manual: "+r.check.Manual[n]
		case st == nil:
			res.Outcome, res.Reason, res.BlockedBy, res.Needs = NotExercised, cmp.Or(endReason, "the check did not reach it"), endBlock, endNeeds
		case len(st.failures) > 0:
			res.Outcome, res.Failures = Broken, st.failures
			res.Calls = boundCalls(r.describeCalls(st.calls), maxCallBytes)
		case len(st.unsure) > 0:
			res.Outcome, res.Reason = NotExercised, unsureReason(st.unsure)
			res.Calls = boundCalls(r.describeCalls(st.calls), maxCallBytes)
		case st.passes > 0:
			res.Outcome = Held
		default:
			res.Outcome, res.Reason, res.BlockedBy = NotExercised, cmp.Or(st.reason, endReason), cmp.Or(st.blockedBy, endBlock)
			if res.Needs = st.needs; st.reason == "" {
				res.Needs = endNeeds
			}
		}
		out[i] = res
	}
	return out
}

// unsureReason says why a clause was not exercised: the first judgement
// that could not be made, and how many more.
func unsureReason(unsure []string) string {
	if len(unsure) == 1 {
		return unsure[0]
	}
	return fmt.Sprintf("%s (and %d more judgements that could not be made)", unsure[0], len(unsure)-1)
}

// verdict judges the scenario from its clauses and how the check ended.
func (r *checkRun) verdict(sig any, clauses []ClauseResult) (Verdict, string) {
	switch s := sig.(type) {
	case errorSignal:
		return Error, s.msg
	case naSignal:
		return NA, "not applicable: " + s.reason
	case failSignal:
		return Fail, s.msg
	case nil, skipSignal, blockSignal:
	default:
		return Error, r.redact(checkPanicked(s))
	}
	if clauses == nil { // not written clause by clause: the check as a whole
		switch s := sig.(type) {
		case skipSignal:
			return Skip, s.reason
		case blockSignal:
			return Skip, "blocked by " + s.by + ": " + s.reason
		}
		return Pass, ""
	}
	var failed, held, open []string
	for _, c := range clauses {
		switch c.Outcome {
		case Broken:
			failed = append(failed, c.Key)
		case Held:
			held = append(held, c.Key)
		case NotExercised:
			why := c.Reason
			if c.BlockedBy != "" {
				why = "blocked by " + c.BlockedBy + ": " + why
			}
			open = append(open, c.Key+" ("+why+")")
		}
	}
	// A check that ended in a skip left part of its subject unjudged, even
	// where every clause it reached held: that is no pass.
	var ended string
	switch s := sig.(type) {
	case skipSignal:
		ended = s.reason
	case blockSignal:
		ended = "blocked by " + s.by + ": " + s.reason
	}
	switch {
	case len(failed) > 0:
		return Fail, "failed: " + strings.Join(failed, ", ")
	case len(open) == 0 && len(held) > 0 && ended != "":
		return Partial, "the check ended before judging all it reads: " + ended
	case len(open) == 0 && len(held) > 0:
		return Pass, ""
	case len(held) > 0:
		return Partial, "not exercised: " + strings.Join(open, "; ")
	case len(open) > 0:
		return Skip, "not exercised: " + strings.Join(open, "; ")
	}
	return Skip, "every clause is manual"
}

// maxCallBytes bounds the calls a failure shows: all of them that fit.
const maxCallBytes = 8 << 10

func (r *checkRun) describeCalls(calls []*Call) []string {
	out := make([]string, 0, len(calls))
	seen := map[*Call]bool{}
	for _, c := range calls {
		if !seen[c] {
			seen[c] = true
			out = append(out, c.Describe())
		}
	}
	return out
}

// boundCalls keeps the calls that fit in max bytes, in order, and says
// how many did not.
func boundCalls(calls []string, max int) []string {
	var out []string
	used := 0
	for i, c := range calls {
		if used+len(c) > max && len(out) > 0 {
			rest := 0
			for _, d := range calls[i:] {
				rest += len(d)
			}
			return append(out, fmt.Sprintf("… %d more calls (%d bytes) not shown", len(calls)-i, rest))
		}
		out = append(out, c)
		used += len(c)
	}
	return out
}
