// Package scenarios holds the scenario catalog that mcpcheck turns into
// executable checks, and the expected tool surface as data.
//
// The catalog is an OpenSpec tree: openspec/specs/<name>/spec.md, one spec
// per seed document plus mcpcheck's own adapter contract, valid under
// `openspec validate --strict`. Each spec reads:
//
//	# Seed NNN: title             (or "# Contract: title", whose ids are U01…)
//	## Purpose
//	## Requirements
//	### Requirement: name
//	#### Scenario: S001 slug — title
//	- **WHEN** …
//	- **THEN** …                  clause S001.1
//	- **AND** …                   clause S001.2
//	> Note: …
//	## Acceptance checks          (seed 003 only)
//	- [S012, S013] text
//
// Every THEN bullet and every AND after it is a clause with a stable key,
// the scenario id and its position ("S029.2"): the unit a check judges.
package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed openspec/specs/*/spec.md surface.json
var files embed.FS

// SpecGlob finds the specs of a catalog tree.
const SpecGlob = "openspec/specs/*/spec.md"

// A Level says how a clause counts. A seed's clause restates a SHALL and is
// required; mcpcheck's own adapter contract (U ids) is recommended.
type Level string

const (
	Required    Level = "required"
	Recommended Level = "recommended"
)

// A Clause is one THEN or AND bullet of a scenario.
type Clause struct {
	Key   string // "S029.2"
	Kind  string // "THEN" or "AND"
	Text  string
	Level Level
	Line  int
}

// A Scenario is one WHEN/THEN scenario of a seed, keyed by its catalog id.
type Scenario struct {
	ID          string   // "S012"
	Slug        string   // "tools-exact-membership"
	Title       string   // the scenario's own title
	Seed        string   // "001", or "contract" for behaviours beyond the seeds
	Group       string   // the spec's title: "Seed 001: The profile-free normal read surface"
	File        string   // the spec's path inside the catalog tree
	Line        int      // line of the scenario heading
	Requirement string   // the enclosing requirement's name
	When        []string // WHEN clauses, plus ANDs that precede the first THEN
	Then        []string // the texts of Clauses, in order
	Clauses     []Clause // THEN and the ANDs after it, keyed
	Notes       []string // "> Note:" lines
	Level       Level    // the level of every clause
}

// Name is the long form used for specs and reports: "S012-tools-exact-membership".
func (s Scenario) Name() string { return s.ID + "-" + s.Slug }

// Clause returns the clause with the given key ("S029.2").
func (s Scenario) Clause(key string) (Clause, bool) {
	for _, c := range s.Clauses {
		if c.Key == key {
			return c, true
		}
	}
	return Clause{}, false
}

// An Acceptance is one acceptance check of seed 003, mapped to scenario ids.
type Acceptance struct {
	Text string
	IDs  []string
	File string
	Line int
}

// A Catalog is the parsed set of specs.
type Catalog struct {
	Scenarios  []Scenario // in id order
	Acceptance []Acceptance
}

// Lookup returns the scenario with the given id.
func (c *Catalog) Lookup(id string) (Scenario, bool) {
	for _, s := range c.Scenarios {
		if s.ID == id {
			return s, true
		}
	}
	return Scenario{}, false
}

// Clause returns the clause with the given key ("S029.2").
func (c *Catalog) Clause(key string) (Clause, bool) {
	id, _, _ := strings.Cut(key, ".")
	s, ok := c.Lookup(id)
	if !ok {
		return Clause{}, false
	}
	return s.Clause(key)
}

// Files is the embedded catalog: the spec tree and surface.json.
func Files() fs.FS { return files }

// Load parses the embedded catalog.
func Load() (*Catalog, error) { return LoadFS(files) }

// LoadFS parses every spec of the tree at the root of fsys. It reports
// every grammar problem it finds, not only the first, so a spec author sees
// them all.
func LoadFS(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, SpecGlob)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("scenario catalog: no %s", SpecGlob)
	}
	sort.Strings(names)
	var (
		cat  Catalog
		errs []string
	)
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		errs = append(errs, parseSpec(name, data, &cat)...)
	}
	seen := map[string]string{}
	for _, s := range cat.Scenarios {
		where := fmt.Sprintf("%s:%d", s.File, s.Line)
		if prev, dup := seen[s.ID]; dup {
			errs = append(errs, fmt.Sprintf("%s: duplicate scenario id %s (first at %s)", where, s.ID, prev))
		}
		seen[s.ID] = where
		if len(s.When) == 0 || len(s.Clauses) == 0 {
			errs = append(errs, fmt.Sprintf("%s: scenario %s needs at least one WHEN and one THEN", where, s.ID))
		}
	}
	for _, a := range cat.Acceptance {
		for _, id := range a.IDs {
			if _, ok := seen[id]; !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: acceptance check names unknown scenario %s", a.File, a.Line, id))
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("scenario catalog has %d problem(s):\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	sort.SliceStable(cat.Scenarios, func(i, j int) bool { return cat.Scenarios[i].ID < cat.Scenarios[j].ID })
	return &cat, nil
}
