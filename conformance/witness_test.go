package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// A required failure rests on a witness a user can check. Without one it
// is a harness error under go test, and not exercised in a user's run; a
// witness that does not hold leaves the clause not exercised too.
func TestRequiredFailuresNeedAWitness(t *testing.T) {
	url, _ := foreignFieldRead(t)
	tgt := openForeign(t, url, nil)
	answer := Shown("the answer", "the record holds m035 and Work Mail")
	judge := func(run func(t *T)) *Result {
		t.Helper()
		res := Evaluate(context.Background(), oneClauseEntry(func(t *T) { t.Clause(1, func() { run(t) }) }), tgt, Settings{})
		return &res
	}

	if res := judge(func(t *T) { t.Assert(false, "bare") }); res.Verdict != Error || !strings.Contains(res.Message, "without a witness") {
		t.Errorf("an unwitnessed required failure under go test: %s %q, want a harness error", res.Verdict, res.Message)
	}
	requireWitnesses = false
	res := judge(func(t *T) { t.Assert(false, "bare") })
	requireWitnesses = true
	if res.Verdict == Fail || len(res.Clauses) != 1 || res.Clauses[0].Outcome != NotExercised || !strings.Contains(res.Clauses[0].Reason, "not witnessed: bare") {
		t.Errorf("an unwitnessed required failure in a user's run: %s %+v, want the clause not exercised", res.Verdict, res.Clauses)
	}

	res = judge(func(t *T) { t.Shows(answer, read.Text("cin_home"), "the connection must be shown") })
	if res.Verdict != Fail || len(res.Clauses[0].Failures) != 1 {
		t.Fatalf("an absent fact: %s %+v, want a failure", res.Verdict, res.Clauses)
	}
	if w := res.Clauses[0].Failures[0].Witness; w == nil || w.Kind != WitnessAbsent || w.Fact != "cin_home" || !strings.Contains(w.Line(), "cin_home") {
		t.Errorf("the failure's witness: %+v", w)
	}

	// A fact the answer does show cannot witness its absence; a forbidden
	// value it does not show cannot witness its presence.
	if res := judge(func(t *T) {
		t.AssertWith(false, func() (Witness, error) { return Absent(read.Text("m035"), answer) }, "m035 must be shown")
	}); res.Verdict == Fail || res.Clauses[0].Outcome != NotExercised {
		t.Errorf("a witness that does not hold: %s %+v, want not exercised", res.Verdict, res.Clauses)
	}
	if res := judge(func(t *T) { t.ShowsNone(answer, "owner-secret", "no owner token") }); res.Verdict != Pass {
		t.Errorf("a forbidden value not shown: %s", res.Verdict)
	}
	if res := judge(func(t *T) { t.ShowsAny(answer, nil, "nothing to look for") }); res.Verdict == Fail {
		t.Errorf("no fact to look for witnesses nothing: %s", res.Verdict)
	}

	// mcpcheck's own rules need no witness.
	if res := judge(func(t *T) { t.Advise(false, "a recommendation") }); res.Verdict != Fail || res.Clauses[0].Failures[0].Witness != nil {
		t.Errorf("a recommended failure: %s %+v", res.Verdict, res.Clauses)
	}
}

// A check that ends in a skip after every clause it reached held left part
// of its subject unjudged: partial, with the reason, never a pass.
func TestASkipAfterHeldClausesIsPartial(t *testing.T) {
	url, _ := foreignFieldRead(t)
	tgt := openForeign(t, url, nil)
	res := Evaluate(context.Background(), oneClauseEntry(func(t *T) {
		t.Clause(1, func() { t.Held() })
		t.Skipf("the binary previews could not be read")
	}), tgt, Settings{})
	if res.Verdict != Partial || !strings.Contains(res.Message, "the binary previews could not be read") {
		t.Errorf("verdict %s %q, want partial with the skip's reason", res.Verdict, res.Message)
	}
}
