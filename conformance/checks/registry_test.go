package checks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pdpp-connect/mcpcheck/conformance"

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
		if e.Status != conformance.Checked && e.Reason == "" {
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
	names, _ := fs.Glob(scenarios.Files(), scenarios.SpecGlob)
	for _, name := range names {
		data, err := fs.ReadFile(scenarios.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: data}
	}
	fsys["openspec/specs/005-new-seed/spec.md"] = &fstest.MapFile{Data: []byte("# Seed 005: a new seed\n\n## Purpose\n\nA new seed.\n\n## Requirements\n\n### Requirement: New behaviour\n\nThe adapter SHALL do Y\n\n#### Scenario: S053 new-behaviour — Client does something new\n- **WHEN** a client does X\n- **THEN** the adapter does Y\n")}
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
	for _, c := range All() {
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
		case conformance.Checked:
		case conformance.Manual:
			if err := proxyExists(e.Proxy); err != nil {
				t.Errorf("%s is manual, but its executable proxy %q: %v", e.Scenario.ID, e.Proxy, err)
			}
		default:
			t.Errorf("%s is %s: check it, or classify it as manual with the proxy that stands in for it", e.Scenario.ID, e.StatusText())
		}
	}
}

// proxyExists finds a manual scenario's proxy: a registry check id, or
// package.TestName with that test function in the repository's package dir.
func proxyExists(proxy string) error {
	if proxy == "" {
		return errors.New("is not named")
	}
	for _, c := range All() {
		if c.ID == proxy {
			return nil
		}
	}
	pkg, test, ok := strings.Cut(proxy, ".")
	if !ok || !strings.HasPrefix(test, "Test") {
		return errors.New("is neither a check id nor package.TestName")
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(pkg), "*_test.go")) // from conformance/checks to the module root
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil && regexp.MustCompile(`(?m)^func `+regexp.QuoteMeta(test)+`\(t \*testing\.T\)`).Match(data) {
			return nil
		}
	}
	return fmt.Errorf("is no test function in %s", pkg)
}

func TestProxyExistsRejectsMissingProxies(t *testing.T) {
	for _, p := range []string{"S012", "conformance.TestReferenceAdapterPasses", "fakers.TestSearch"} {
		if err := proxyExists(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"", "S999", "make test", "fakers.TestNoSuchThing", "nopkg.TestSearch", "fakers.Search"} {
		if proxyExists(p) == nil {
			t.Errorf("%q accepted as a proxy", p)
		}
	}
}

// --focus is exact, so a reproduce line reruns one check; arguments select
// by prefix.
func TestSelectFocusIsExact(t *testing.T) {
	entries, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(es []conformance.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Scenario.ID)
		}
		return out
	}
	if got, err := conformance.Select(entries, nil, []string{"S004"}); err != nil || strings.Join(ids(got), ",") != "S004" {
		t.Errorf("--focus S004 selected %v (%v)", ids(got), err)
	}
	if got, err := conformance.Select(entries, nil, []string{"s012-tools-exact-membership"}); err != nil || strings.Join(ids(got), ",") != "S012" {
		t.Errorf("--focus by name selected %v (%v)", ids(got), err)
	}
	if got, err := conformance.Select(entries, nil, []string{"S00"}); err == nil {
		t.Errorf("--focus S00 selected %v, want a usage error", ids(got))
	} else if _, ok := err.(*conformance.UsageError); !ok {
		t.Errorf("--focus S00: %T %v, want a *UsageError", err, err)
	}
	if got, err := conformance.Select(entries, []string{"S00"}, []string{"S012"}); err != nil || len(got) != 10 || got[9].Scenario.ID != "S012" {
		t.Errorf("prefix S00 plus --focus S012 selected %v (%v)", ids(got), err)
	}
}
