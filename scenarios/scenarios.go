// Package scenarios holds the OpenSpec-style scenario catalog that mcpcheck
// turns into executable checks, and the expected tool surface as data.
//
// The Markdown files are the spec text (one per seed document). Their grammar:
//
//	# Seed NNN: title             (or "# Contract: title", whose ids are U01…)
//	### Requirement: name
//	#### Scenario: S001 slug — title
//	- **WHEN** …
//	- **THEN** …
//	- **AND** …
//	> Note: …
//	## Acceptance checks          (seed 003 only)
//	- [S012, S013] text
package scenarios

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

//go:embed *.md surface.json
var files embed.FS

// A Scenario is one WHEN/THEN scenario of a seed, keyed by its catalog id.
type Scenario struct {
	ID          string   // "S012"
	Slug        string   // "tools-exact-membership"
	Title       string   // the scenario's own title
	Seed        string   // "001", or "contract" for behaviours beyond the seeds
	Group       string   // the file's title: "Seed 001: The profile-free normal read surface"
	File        string   // file name inside scenarios/
	Line        int      // line of the scenario heading
	Requirement string   // the enclosing requirement's name
	When        []string // WHEN clauses, plus ANDs that precede the first THEN
	Then        []string // THEN clauses and the ANDs after them
	Notes       []string // "> Note:" lines
}

// Name is the long form used for specs and reports: "S012-tools-exact-membership".
func (s Scenario) Name() string { return s.ID + "-" + s.Slug }

// An Acceptance is one acceptance check of seed 003, mapped to scenario ids.
type Acceptance struct {
	Text string
	IDs  []string
	File string
	Line int
}

// A Catalog is the parsed set of seed files.
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

var (
	seedRe        = regexp.MustCompile(`^# (?:Seed (\d{3})|(Contract)): (.+)$`)
	requirementRe = regexp.MustCompile(`^### Requirement: (.+)$`)
	scenarioRe    = regexp.MustCompile(`^#### Scenario: ([SU]\d{2,3}) ([a-z0-9]+(?:-[a-z0-9]+)*) — (.+)$`)
	seedIDRe      = regexp.MustCompile(`^S\d{3}$`)
	contractIDRe  = regexp.MustCompile(`^U\d{2}$`)
	clauseRe      = regexp.MustCompile(`^- \*\*(WHEN|THEN|AND)\*\* (.+)$`)
	acceptanceRe  = regexp.MustCompile(`^- \[(S\d{3}(?:, S\d{3})*)\] (.+)$`)
)

// Files is the embedded catalog: the seed Markdown files and surface.json.
func Files() fs.FS { return files }

// Load parses the embedded catalog.
func Load() (*Catalog, error) { return LoadFS(files) }

// LoadFS parses every *.md file at the root of fsys. It reports every
// grammar problem it finds, not only the first, so a spec author sees them all.
func LoadFS(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
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
		errs = append(errs, parseFile(name, data, &cat)...)
	}
	seen := map[string]string{}
	for _, s := range cat.Scenarios {
		where := fmt.Sprintf("%s:%d", s.File, s.Line)
		if prev, dup := seen[s.ID]; dup {
			errs = append(errs, fmt.Sprintf("%s: duplicate scenario id %s (first at %s)", where, s.ID, prev))
		}
		seen[s.ID] = where
		if len(s.When) == 0 || len(s.Then) == 0 {
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

func parseFile(name string, data []byte, cat *Catalog) (errs []string) {
	var (
		seed, group, requirement string
		cur                      *Scenario
		inAcceptance             bool
	)
	flush := func() {
		if cur != nil {
			cat.Scenarios = append(cat.Scenarios, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t")
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Sprintf("%s:%d: ", name, n)+fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(line, "# "):
			m := seedRe.FindStringSubmatch(line)
			if m == nil {
				bad("title must read '# Seed NNN: title' or '# Contract: title'")
				continue
			}
			seed, group = m[1], strings.TrimPrefix(line, "# ")
			if m[2] != "" {
				seed = "contract"
			}
		case strings.HasPrefix(line, "## "):
			flush()
			inAcceptance = line == "## Acceptance checks"
			if !inAcceptance {
				bad("unknown section %q (only '## Acceptance checks' is allowed)", line)
			}
		case strings.HasPrefix(line, "### "):
			flush()
			inAcceptance = false
			m := requirementRe.FindStringSubmatch(line)
			if m == nil {
				bad("level-3 headings must read '### Requirement: name'")
				continue
			}
			requirement = m[1]
		case strings.HasPrefix(line, "#### "):
			flush()
			m := scenarioRe.FindStringSubmatch(line)
			if m == nil {
				bad("scenario heading must read '#### Scenario: S000 slug — title'")
				continue
			}
			if seed == "" || requirement == "" {
				bad("scenario %s appears before its '# Seed' title or '### Requirement'", m[1])
			}
			if want := seedIDRe; seed == "contract" && !contractIDRe.MatchString(m[1]) || seed != "contract" && !want.MatchString(m[1]) {
				bad("scenario id %s: seed files use S001…, the contract file U01…", m[1])
			}
			cur = &Scenario{ID: m[1], Slug: m[2], Title: m[3], Seed: seed, Group: group, File: name, Line: n, Requirement: requirement}
		case strings.HasPrefix(line, "- **"):
			m := clauseRe.FindStringSubmatch(line)
			if m == nil || cur == nil {
				bad("clause must be '- **WHEN|THEN|AND** text' inside a scenario")
				continue
			}
			switch {
			case m[1] == "WHEN":
				if len(cur.Then) > 0 {
					bad("WHEN after THEN in %s", cur.ID)
				}
				cur.When = append(cur.When, m[2])
			case m[1] == "THEN" || len(cur.Then) > 0:
				cur.Then = append(cur.Then, m[2])
			default: // an AND before the first THEN extends the condition
				cur.When = append(cur.When, m[2])
			}
		case strings.HasPrefix(line, "> Note:"):
			if cur == nil {
				bad("note outside a scenario")
				continue
			}
			cur.Notes = append(cur.Notes, strings.TrimSpace(strings.TrimPrefix(line, "> Note:")))
		case inAcceptance && strings.HasPrefix(line, "- "):
			m := acceptanceRe.FindStringSubmatch(line)
			if m == nil {
				bad("acceptance check must read '- [S000, S001] text'")
				continue
			}
			cat.Acceptance = append(cat.Acceptance, Acceptance{Text: m[2], IDs: strings.Split(m[1], ", "), File: name, Line: n})
		}
	}
	flush()
	if seed == "" {
		errs = append(errs, fmt.Sprintf("%s: missing '# Seed NNN: title' or '# Contract: title' line", name))
	}
	return errs
}

// A Surface is the expected normal tool surface, kept as data in surface.json.
type Surface struct {
	Tools                 []string `json:"tools"`
	ForbiddenTools        []string `json:"forbidden_tools"`
	ForbiddenToolPatterns []string `json:"forbidden_tool_patterns"`
	ConnectionIDTools     []string `json:"connection_id_tools"`
	DeprecatedArguments   []string `json:"deprecated_arguments"`
	BudgetBytes           int      `json:"budget_bytes"`
	InstructionsWindow    int      `json:"instructions_window"`
	// Result budgets bound whole tool results (content and structuredContent).
	SchemaIndexBudgetBytes int `json:"schema_index_budget_bytes"`
	ScopedFullBudgetBytes  int `json:"scoped_full_budget_bytes"`
}

// LoadSurface reads the embedded surface.json.
func LoadSurface() (*Surface, error) {
	data, err := files.ReadFile("surface.json")
	if err != nil {
		return nil, err
	}
	var s Surface
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("scenarios/surface.json: %w", err)
	}
	for _, p := range s.ForbiddenToolPatterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("scenarios/surface.json: forbidden_tool_patterns: %w", err)
		}
	}
	return &s, nil
}

// Forbidden reports whether a tool name is outside the normal surface by rule,
// and why.
func (s *Surface) Forbidden(name string) (string, bool) {
	for _, f := range s.ForbiddenTools {
		if f == name {
			return "listed in forbidden_tools", true
		}
	}
	for _, p := range s.ForbiddenToolPatterns {
		if regexp.MustCompile(p).MatchString(name) {
			return "matches forbidden pattern " + p, true
		}
	}
	return "", false
}
