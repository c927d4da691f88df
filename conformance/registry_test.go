package conformance

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

func TestRegistryCoversEveryScenario(t *testing.T) {
	entries, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	seeds := 0
	for _, e := range entries {
		if e.Scenario.Seed != "contract" {
			seeds++
		}
	}
	if seeds != 52 {
		t.Fatalf("registry has %d seed entries, want 52 (S001–S052)", seeds)
	}
	for _, e := range entries {
		if e.Status != Checked && e.Reason == "" {
			t.Errorf("%s is %s without a reason", e.Scenario.ID, e.Status)
		}
		if e.Check != nil && (e.Check.Run == nil || e.Check.Mode == "") {
			t.Errorf("%s: a check needs a mode and a Run function", e.Scenario.ID)
		}
	}
}

// A spec author who adds a scenario sees the registry fail until the new id
// is checked or classified.
func TestUnclassifiedScenarioFailsRegistry(t *testing.T) {
	fsys := fstest.MapFS{}
	names, _ := fs.Glob(scenarios.Files(), "*.md")
	for _, name := range names {
		data, err := fs.ReadFile(scenarios.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: data}
	}
	fsys["005-new-seed.md"] = &fstest.MapFile{Data: []byte("# Seed 005: a new seed\n\n### Requirement: New behaviour\n\n#### Scenario: S053 new-behaviour — Client does something new\n- **WHEN** a client does X\n- **THEN** the adapter does Y\n")}
	cat, err := scenarios.LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Registry(cat)
	if err == nil || !strings.Contains(err.Error(), "S053") || !strings.Contains(err.Error(), "has no registry entry") {
		t.Fatalf("Registry error = %v, want it to name S053 as unclassified", err)
	}
}

func TestChecksAgreeWithCatalogSlugs(t *testing.T) {
	cat, err := scenarios.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Checks() {
		s, ok := cat.Lookup(c.ID)
		if !ok {
			t.Errorf("check %s names no scenario", c.ID)
			continue
		}
		if s.Slug != c.Slug {
			t.Errorf("%s: check slug %q, catalog slug %q", c.ID, c.Slug, s.Slug)
		}
	}
}

// The coverage gate: every catalog scenario is checked or manual, none is
// pending, and a manual one names the executable proxy that stands in for it.
func TestCoverageGateIsStrict(t *testing.T) {
	entries, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Status {
		case Checked:
		case Manual:
			if !strings.Contains(e.Reason, "proxy") {
				t.Errorf("%s is manual without naming its executable proxy: %q", e.Scenario.ID, e.Reason)
			}
		default:
			t.Errorf("%s is %s: check it, or classify it as manual with the proxy that stands in for it", e.Scenario.ID, e.StatusText())
		}
	}
}
