package matrix

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// Every mutant of the reference adapter must fail each clause or id it
// names: a check nobody has seen fail is not done. A mutant that only
// unrelated checks catch is a wrong-reason kill, and fails this test too,
// as does a failing id the mutant does not declare: a check that fails on
// a property another scenario owns. At most a tenth of the mutants may
// have collateral at all, and every required clause judged over MCP must
// have a mutant that fails it.
//
// The full sweep runs every check against every mutant; it is what make
// matrix (a step of make ci, with its own timeout) and mcpcheck mutants
// run. A plain go test judges each mutant on its own scenarios only
// (MCPCHECK_FULL_MATRIX unset): the kill and the clause coverage still
// hold, undeclared collateral is left to the sweep.
func TestMutantsAreKilledByTheirOwnChecks(t *testing.T) {
	full := os.Getenv("MCPCHECK_FULL_MATRIX") != ""
	if !full {
		t.Log("each mutant judged on its own scenarios only; MCPCHECK_FULL_MATRIX=1 (make matrix, in make ci) also looks for undeclared collateral")
	}
	results, err := Mutants(context.Background(), Options{OwnScenarios: !full})
	if err != nil {
		t.Fatal(err)
	}
	collateral := 0
	for _, r := range results {
		if r.Verdict != Killed {
			t.Errorf("mutant %s (%s): %s; must fail %v, failed %v (clauses %v), harness errors %v", r.Mutant, r.Doc, r.Verdict, r.Expect, r.Failed, r.FailedClauses, r.Errors)
		}
		if len(r.Undeclared) > 0 {
			t.Errorf("mutant %s (%s) also fails %v, which it does not declare: a check failing on what it does not own, or collateral to declare", r.Mutant, r.Doc, r.Undeclared)
		}
		if len(r.Collateral) > 0 {
			collateral++
		}
	}
	if collateral*10 > len(results) {
		t.Errorf("%d of %d mutants declare collateral; at most a tenth may", collateral, len(results))
	}
	entries, err := checks.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cov := ClauseCoverage(entries, results)
	WriteCoverage(&out, cov)
	t.Log(out.String())
	if len(cov.Missing) > 0 {
		t.Errorf("required clauses no mutant fails (add one, or declare the clause Manual with a reason): %v", cov.Missing)
	}
}

// No check may fail a conforming variant, nor judge it less than the
// shipped adapter: a check is done when it kills a mutant and passes every
// variant. A whole-dialect variant lists the ids known to fail it falsely
// today; exactly those may, and one that now passes must leave the list.
func TestVariantsPassEveryCheck(t *testing.T) {
	results, err := Variants(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != Conforms {
			t.Errorf("variant %s (%s): %s; failed %v (clauses %v), judged less %v, known false %d, stale (now pass: drop them from the list) %v, harness errors %v",
				r.Mutant, r.Freedom, r.Verdict, r.Failed, r.FailedClauses, r.Degraded, len(r.KnownFalse), r.Stale, r.Errors)
		}
	}
}

// The matrix's verdict logic itself: a mutant whose failures are not the ids
// it names is a wrong-reason kill, and a mutant that changes nothing survives.
func TestMutantVerdicts(t *testing.T) {
	ctx := context.Background()
	entries, err := checks.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if entries, err = conformance.Select(entries, nil, []string{"S001", "S012"}); err != nil {
		t.Fatal(err)
	}
	settings, err := conformance.LoadSettings(0)
	if err != nil {
		t.Fatal(err)
	}
	baseline := map[string]conformance.Verdict{"S001": conformance.Pass, "S012": conformance.Pass}
	for name, c := range map[string]struct {
		m    reference.Mutant
		want string
	}{
		"own ids":       {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S012"}}, Killed},
		"own clause":    {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S012.1"}}, Killed},
		"other clause":  {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S012.2"}}, WrongReason},
		"wrong ids":     {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001"}}, WrongReason},
		"some wrong":    {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001", "S012"}}, WrongReason},
		"no-op":         {reference.Mutant{ID: "", Kills: []string{"S012"}}, Survived},
		"conforms":      {reference.Mutant{ID: "", Freedom: "none"}, Conforms},
		"false failure": {reference.Mutant{ID: "drop-tool-fetch", Freedom: "pretends"}, FalseFailure},
		"known false":   {reference.Mutant{ID: "drop-tool-fetch", Freedom: "pretends", KnownFalse: map[string]string{"S012": "cause"}}, Conforms},
		"stale known":   {reference.Mutant{ID: "", Freedom: "none", KnownFalse: map[string]string{"S012": "cause"}}, Stale},
		"unlisted":      {reference.Mutant{ID: "drop-tool-fetch", Freedom: "pretends", KnownFalse: map[string]string{"S001": "cause"}}, FalseFailure},
	} {
		r := judge(ctx, c.m, entries, settings, baseline)
		if r.Verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (failed %v, clauses %v, errors %v)", name, r.Verdict, c.want, r.Failed, r.FailedClauses, r.Errors)
		}
	}
	// Collateral: a failing id the mutant neither names nor declares.
	undeclared := judge(ctx, reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001"}}, entries, settings, nil)
	if !slices.Equal(undeclared.Undeclared, []string{"S012"}) || undeclared.OK() {
		t.Errorf("undeclared collateral %v, OK %t; want [S012] and not OK", undeclared.Undeclared, undeclared.OK())
	}
	declared := judge(ctx, reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001"}, Collateral: []string{"S012"}}, entries, settings, nil)
	if len(declared.Undeclared) != 0 {
		t.Errorf("declared collateral still reported undeclared: %v", declared.Undeclared)
	}
}
