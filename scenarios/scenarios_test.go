package scenarios

import (
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
	fsys := fstest.MapFS{"x.md": {Data: []byte(strings.Join([]string{
		"# Seed 009: test",
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
	}, "\n"))}}
	_, err := LoadFS(fsys)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"duplicate scenario id S001", "S002 needs at least one WHEN and one THEN", "x.md:11: scenario heading", "x.md:12: clause", "unknown scenario S777"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
