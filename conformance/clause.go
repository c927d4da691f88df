package conformance

import (
	"fmt"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A clauseState is what the check found about one clause so far.
type clauseState struct {
	level     scenarios.Level // the clause's: required ones fail only with a witness
	failures  []Failure
	unsure    []string // judgements that could not be made, and why
	passes    int      // judgements that asserted something and found nothing wrong
	asserted  int      // assertions made in the judgement under way
	reason    string
	needs     Capability // what the target lacked, when that is the reason
	blockedBy string
	calls     []*Call
	at        string // where the check judges it
}

// Clause judges clause n of the check's scenario (key "S029.n") with
// judge. Inside it, assertions are soft: a failure is recorded against the
// clause and judge goes on (an assertion returns false when it failed, so
// judge can stop where later steps would be meaningless). [T.Skipf] or
// [T.BlockedBy] end the judgement with the clause not exercised; a call to
// a tool the target lacks does too. A judgement that asserts nothing
// exercises nothing: the clause never passes vacuously. Clause may judge
// the same clause more than once (for each tool, say); it holds when some
// judgement asserted and none failed.
func (t *T) Clause(n int, judge func()) {
	r := t.run
	if n < 1 || n > len(r.scenario.Clauses) {
		panic(errorSignal{fmt.Sprintf("%s judges clause %s.%d, which its scenario does not have (%d clauses)", r.check.ID, r.check.ID, n, len(r.scenario.Clauses))})
	}
	if _, manual := r.check.Manual[n]; manual {
		panic(errorSignal{fmt.Sprintf("%s.%d is declared manual but the check judges it", r.check.ID, n)})
	}
	r.mu.Lock()
	st := r.clauses[n]
	if st == nil {
		st = &clauseState{at: callerOutsideFramework(), level: r.scenario.Clauses[n-1].Level}
		r.clauses[n] = st
	}
	prev, failed := r.cur, len(st.failures)
	r.cur, st.asserted = st, 0
	r.mu.Unlock()
	defer func() {
		r.setCurrent(prev)
		switch sig := recover().(type) {
		case nil:
			if len(st.failures) == failed && st.asserted > 0 {
				st.passes++
			} else if st.asserted == 0 && st.reason == "" {
				st.reason = "nothing on this target to judge it by"
			}
		case skipSignal:
			st.reason, st.needs = sig.reason, sig.needs
		case blockSignal:
			st.blockedBy, st.reason = sig.by, sig.reason
		case failSignal: // a failure that ends the judgement ([T.Fatalf])
			r.fail(st, sig.msg, scenarios.Required)
		case errorSignal, naSignal:
			panic(sig)
		default:
			// A step that assumed what a failed assertion denied (a nil
			// document, say) is that failure's consequence, not a fault.
			if len(st.failures) == failed {
				panic(errorSignal{r.redact(checkPanicked(sig))})
			}
		}
	}()
	judge()
}

// asserting counts an assertion against the clause being judged. Every
// assertion belongs to a clause: one outside any is a fault of the check,
// which the run reports as a harness error rather than a verdict.
func (t *T) asserting() {
	cur := t.run.current()
	if cur == nil {
		panic(errorSignal{fmt.Sprintf("%s asserts outside any clause: every assertion belongs to a t.Clause", t.run.check.ID)})
	}
	cur.asserted++
}

// Expect is gomega's Expect; its failure is recorded against the clause
// being judged and the check goes on.
func (t *T) Expect(actual any, extra ...any) types.Assertion {
	t.asserting()
	return t.Gomega.Expect(actual, extra...)
}

// Assert judges one condition: inside a clause, false records a failure
// with the message and the check goes on; either way the clause was
// exercised. It returns ok.
func (t *T) Assert(ok bool, format string, args ...any) bool {
	t.asserting()
	if !ok {
		t.run.failHandler(scenarios.Required)(fmt.Sprintf(format, args...))
	}
	return ok
}

// Advise judges one condition of mcpcheck's own, beyond the seed text (a
// defence in depth, say): like [T.Assert], but false records a
// recommended failure, which fails a run only under --strict. The message
// should say the rule is mcpcheck's own.
func (t *T) Advise(ok bool, format string, args ...any) bool {
	t.asserting()
	if !ok {
		t.run.failHandler(scenarios.Recommended)(fmt.Sprintf(format, args...))
	}
	return ok
}

// Fail records a failure of the clause being judged and goes on.
func (t *T) Fail(format string, args ...any) {
	t.asserting()
	t.run.failHandler(scenarios.Required)(fmt.Sprintf(format, args...))
}

// Fatalf records a failure of the clause being judged and ends that
// judgement: what follows would only repeat it.
func (t *T) Fatalf(format string, args ...any) {
	t.asserting()
	panic(failSignal{t.run.redact(fmt.Sprintf(format, args...))})
}

// BlockedBy ends the judgement: what the clause needs is broken in a way
// scenario id owns (the fetch document's shape, the schema index), so the
// clause is reported as blocked by it, never as failed. Outside any
// clause, it blocks every clause the check has not judged yet.
func (t *T) BlockedBy(id, format string, args ...any) {
	panic(blockSignal{by: id, reason: t.run.redact(fmt.Sprintf(format, args...))})
}

// NotApplicable ends the check as not applicable: its subject is absent
// from this target (an adapter that answers a multi-source read by fanning
// in has no ambiguity error to judge). Never a pass, and never a failure.
func (t *T) NotApplicable(format string, args ...any) {
	panic(naSignal{t.run.redact(fmt.Sprintf(format, args...))})
}

// Threshold asserts against one of mcpcheck's own numbers where the seed
// says only "bounded": its failures are recommended, so they fail a run
// only under --strict.
func (t *T) Threshold() gomega.Gomega {
	g := gomega.NewGomega(t.run.failHandler(scenarios.Recommended))
	return thresholdGomega{Gomega: g, t: t}
}

type thresholdGomega struct {
	gomega.Gomega
	t *T
}

func (g thresholdGomega) Expect(actual any, extra ...any) types.Assertion {
	g.t.asserting()
	return g.Gomega.Expect(actual, extra...)
}
