package matrix

import (
	"context"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// Every mutant of the reference adapter must fail each scenario id it names:
// a check nobody has seen fail is not done. A mutant that only unrelated
// checks catch is a wrong-reason kill, and fails this test too.
func TestMutantsAreKilledByTheirOwnChecks(t *testing.T) {
	results, err := Run(context.Background(), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != Killed {
			t.Errorf("mutant %s (%s): %s; must fail %v, failed %v, harness errors %v", r.Mutant, r.Doc, r.Verdict, r.Expect, r.Failed, r.Errors)
		}
	}
}

// Every check in the registry is killed by at least one mutant.
func TestEveryCheckHasAMutant(t *testing.T) {
	killed := map[string]bool{}
	for _, m := range reference.Mutants() {
		for _, id := range m.Kills {
			killed[id] = true
		}
	}
	for _, c := range checks.All() {
		if !killed[c.ID] {
			t.Errorf("%s has no mutant that it kills", c.Name())
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
	for name, c := range map[string]struct {
		m    reference.Mutant
		want string
	}{
		"own ids":    {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S012"}}, Killed},
		"wrong ids":  {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001"}}, WrongReason},
		"some wrong": {reference.Mutant{ID: "drop-tool-fetch", Kills: []string{"S001", "S012"}}, WrongReason},
		"no-op":      {reference.Mutant{ID: "", Kills: []string{"S012"}}, Survived},
	} {
		if r := runMutant(ctx, c.m, entries, settings); r.Verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (failed %v, errors %v)", name, r.Verdict, c.want, r.Failed, r.Errors)
		}
	}
}
