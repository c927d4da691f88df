package scenarios

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func TestEmbeddedCatalog(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var seeds []Scenario
	for _, s := range cat.Scenarios {
		if s.Seed != "contract" {
			seeds = append(seeds, s)
		}
	}
	if len(seeds) != 52 {
		t.Fatalf("%d seed scenarios, want 52", len(seeds))
	}
	for i, s := range seeds {
		if want := "S0" + twoDigits(i+1); s.ID != want {
			t.Fatalf("scenario %d is %s, want %s (ids must be S001–S052 without gaps)", i, s.ID, want)
		}
		if s.Requirement == "" || s.Title == "" || s.Seed == "" {
			t.Errorf("%s: missing requirement, title or seed", s.ID)
		}
	}
	if len(cat.Acceptance) == 0 {
		t.Error("seed 003's acceptance checks are missing")
	}
	surface, err := LoadSurface()
	if err != nil {
		t.Fatal(err)
	}
	if len(surface.Tools) != 6 || surface.BudgetBytes != 24576 {
		t.Errorf("surface.json: %d tools, budget %d", len(surface.Tools), surface.BudgetBytes)
	}
	if _, bad := surface.Forbidden("create_event_subscription"); !bad {
		t.Error("event-subscription tools must be forbidden")
	}
	if _, bad := surface.Forbidden("search"); bad {
		t.Error("search must not be forbidden")
	}
}

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

func TestParserReportsEveryProblem(t *testing.T) {
	const spec = "openspec/specs/x/spec.md"
	fsys := fstest.MapFS{spec: {Data: []byte(strings.Join([]string{
		"# Seed 009: test",
		"## Purpose",
		"A test.",
		"## Requirements",
		"### Requirement: R",
		"#### Scenario: S001 ok — fine",
		"- **WHEN** a",
		"- **THEN** b",
		"#### Scenario: S001 dup — duplicate id",
		"- **WHEN** a",
		"- **THEN** b",
		"#### Scenario: S002 no-then — missing THEN",
		"- **WHEN** a",
		"#### Scenario: S3 bad heading",
		"- **MAYBE** c",
		"## Acceptance checks",
		"- [S777] unknown id",
		"## Design",
	}, "\n"))}}
	_, err := LoadFS(fsys)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"duplicate scenario id S001", "S002 needs at least one WHEN and one THEN", spec + ":14: scenario heading",
		spec + ":15: clause", "unknown scenario S777", spec + `:18: unknown section "Design"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// Clause keys are the scenario id and the bullet's position among THEN and
// the ANDs after it; ANDs before THEN belong to the condition.
func TestClauseKeys(t *testing.T) {
	fsys := fstest.MapFS{"openspec/specs/x/spec.md": {Data: []byte(strings.Join([]string{
		"# Seed 009: test", "## Requirements", "### Requirement: R",
		"#### Scenario: S001 ok — fine",
		"- **WHEN** a client calls `x`",
		"- **AND** the grant has two connections",
		"- **THEN** the adapter answers",
		"  on two lines",
		"- **AND** it names `y`",
		"> Note: why",
	}, "\n"))}}
	cat, err := LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	s := cat.Scenarios[0]
	if len(s.When) != 2 || len(s.Clauses) != 2 {
		t.Fatalf("when %q, clauses %+v", s.When, s.Clauses)
	}
	want := []Clause{{Key: "S001.1", Kind: "THEN", Text: "the adapter answers on two lines", Level: Required, Line: 7},
		{Key: "S001.2", Kind: "AND", Text: "it names `y`", Level: Required, Line: 9}}
	for i, c := range s.Clauses {
		if c != want[i] {
			t.Errorf("clause %d = %+v, want %+v", i, c, want[i])
		}
	}
	if got, ok := cat.Clause("S001.2"); !ok || got.Text != "it names `y`" {
		t.Errorf("Catalog.Clause(S001.2) = %+v, %t", got, ok)
	}
	if len(s.Notes) != 1 || s.Notes[0] != "why" {
		t.Errorf("notes %q", s.Notes)
	}
}

// The embedded catalog's clause keys are stable: reports, baselines and
// mutants name them. A changed count is a reviewed change.
func TestEmbeddedClauses(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	n, required := 0, 0
	for _, s := range cat.Scenarios {
		for i, c := range s.Clauses {
			n++
			if c.Level == Required {
				required++
			}
			if want := s.ID + "." + strconv.Itoa(i+1); c.Key != want {
				t.Errorf("%s: key %s, want %s", s.ID, c.Key, want)
			}
			if (s.Seed == "contract") != (c.Level == Recommended) {
				t.Errorf("%s: level %s for seed %s", c.Key, c.Level, s.Seed)
			}
		}
	}
	if n != 143 || required != 120 {
		t.Errorf("%d clauses, %d required; want 143 and 120 (update the counts when a spec changes)", n, required)
	}
}
