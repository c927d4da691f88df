package conformance

import (
	"bytes"
	"strings"
	"testing"
)

// Under --rs real, a scenario left unjudged only for want of the fixture's
// control plane is outside the run's scope: it does not make the run
// incomplete. One unjudged for any other reason still does.
func TestModeScopeDecidesIncomplete(t *testing.T) {
	scope := (&ExternalRS{Name: "the real PDPP reference RS (gmail grant)"}).scope()
	clause := func(o Outcome, needs Capability) ClauseResult {
		return ClauseResult{Key: "S0.1", Outcome: o, Needs: needs, Reason: "why"}
	}
	cases := []struct {
		name string
		res  Result
		out  bool
		exit int
	}{
		{"whole check skipped for the fixture", Result{Verdict: Skip, Needs: CapFixture}, true, ExitPass},
		{"clauses skipped for the control plane", Result{Verdict: Skip, Clauses: []ClauseResult{clause(NotExercised, CapControlledRS), clause(NotExercised, CapFixture)}}, true, ExitPass},
		{"partial, the open clause wanting the fixture", Result{Verdict: Partial, Clauses: []ClauseResult{clause(Held, ""), clause(NotExercised, CapFixture)}}, true, ExitPass},
		{"partial, one open clause unread in the target", Result{Verdict: Partial, Clauses: []ClauseResult{clause(NotExercised, CapFixture), clause(NotExercised, "")}}, false, ExitIncomplete},
		{"skipped for a CLI the mode does not replace", Result{Verdict: Skip, Needs: CapCLI}, false, ExitIncomplete},
		{"skipped with no capability named", Result{Verdict: Skip}, false, ExitIncomplete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.res
			rep := &Report{Scope: scope, Rows: []Row{{ID: "S0", Status: Checked, Result: &res}}}
			rep.tally()
			if got := rep.Totals.OutOfScope == 1; got != c.out {
				t.Errorf("outside the scope: got %v, want %v", got, c.out)
			}
			if got := rep.ExitCode(); got != c.exit {
				t.Errorf("exit %d, want %d", got, c.exit)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			if c.out != strings.Contains(text.String(), "outside --rs real: 1 skipped or partial scenario (S0)") {
				t.Errorf("the text report does not list the scenario outside the scope as it should (%v):\n%s", c.out, text.String())
			}
		})
	}
	// The JSON report of a run with nothing outside the scope still gives
	// an array.
	pass := Result{Verdict: Pass}
	rep := &Report{Scope: scope, Rows: []Row{{ID: "S0", Status: Checked, Result: &pass}}}
	rep.tally()
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"scenarios": []`) {
		t.Errorf("mode_scope.scenarios is not an empty array: %v\n%s", err, js.String())
	}
	// Without the mode, the same skip makes the run incomplete.
	res := Result{Verdict: Skip, Needs: CapFixture}
	rep = &Report{Rows: []Row{{ID: "S0", Status: Checked, Result: &res}}}
	rep.tally()
	if rep.ExitCode() != ExitIncomplete || rep.Totals.OutOfScope != 0 {
		t.Errorf("without --rs real a fixture skip must leave the run incomplete: exit %d, out of scope %d", rep.ExitCode(), rep.Totals.OutOfScope)
	}
}

// SkipFor names the capability on the clause it ends, and on a check it
// ends outside any clause.
func TestSkipForNamesTheCapability(t *testing.T) {
	url, _ := foreignFieldRead(t)
	tgt := openForeign(t, url, nil)
	res := Evaluate(t.Context(), oneClauseEntry(func(t *T) { t.Clause(1, func() { t.SkipFor(CapControlledRS, "reading %s", "x") }) }), tgt, Settings{})
	if len(res.Clauses) != 1 || res.Clauses[0].Needs != CapControlledRS || !strings.HasPrefix(res.Clauses[0].Reason, "reading x: needs the adapter to read") {
		t.Errorf("clause: %+v", res.Clauses)
	}
}

// A --rs real report, with what its scope leaves out and the capabilities
// each skip needed, matches the JSON report's schema.
func TestModeScopeReportMatchesTheSchema(t *testing.T) {
	skip := Result{ID: "S030", Name: "S030-fetch-projected", Mode: ModeBBD, Level: "required", Verdict: Skip,
		Clauses: []ClauseResult{{Key: "S030.1", Text: "a clause", Level: "required", Outcome: NotExercised, Reason: CapControlledRS.SkipReason(), Needs: CapControlledRS}}}
	whole := Result{ID: "S009", Name: "S009-x", Mode: ModeCTRL, Level: "required", Verdict: Skip, Message: CapFixture.SkipReason(), Needs: CapFixture}
	rep := &Report{Schema: ReportSchema, Tool: "mcpcheck test", Target: "stdio adapter, reading the real PDPP reference RS (gmail grant)", TargetKind: KindStdio,
		Scope: (&ExternalRS{Name: "the real PDPP reference RS (gmail grant)"}).scope(),
		Rows: []Row{{ID: "S030", Name: "S030-fetch-projected", Title: "t", Seed: "001", Group: "g", Status: Checked, Level: "required", Result: &skip},
			{ID: "S009", Name: "S009-x", Title: "t", Seed: "000", Group: "g", Status: Checked, Level: "required", Result: &whole}}}
	rep.tally()
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := ValidateReportJSON(js.Bytes()); err != nil {
		t.Errorf("the --rs real report does not match the schema: %v\n%s", err, js.String())
	}
	if rep.Totals.OutOfScope != 2 || rep.ExitCode() != ExitPass {
		t.Errorf("out of scope %d, exit %d; want 2 and 0", rep.Totals.OutOfScope, rep.ExitCode())
	}
}
