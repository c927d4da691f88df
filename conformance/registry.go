package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// checks is the registry: every executable check, in id order. Add a check
// here and remove its id from unchecked.
var checks = []*Check{
	s001, s002, s003, s004, s005, s006, s007, s008, s009,
	s010, s011, s012, s013, s014, s015,
	s016, s017, s018, s019, s020, s021, s022, s023,
	s024, s025, s026, s027, s028, s029, s030, s031, s032,
	s033, s034, s035, s036, s037, s038,
	s039, s040, s041, s043, s044, s045, s046, s047, s048, s049, s050, s052,
	u01, u02, u03, u05, u09, u13,
}

// Checks returns the registered checks.
func Checks() []*Check { return append([]*Check(nil), checks...) }

// A Status says how a catalog scenario is covered.
type Status string

const (
	Checked Status = "checked"
	Pending Status = "pending"
	Manual  Status = "manual"
)

type classification struct {
	status Status
	reason string
	proxy  string
}

// manual classifies a scenario MCP traffic cannot judge. proxy names what
// stands in for it: a registry check id, or a Go test as package.TestName;
// the coverage gate requires it to exist.
func manual(why, proxy string) classification {
	return classification{Manual, why + "; executable proxy: " + proxy, proxy}
}

// unchecked classifies every catalog scenario that has no check.
var unchecked = map[string]classification{
	"S042": manual("process gate (package tests, OpenSpec validation): the whole registry must pass against the reference adapter", "conformance.TestReferenceAdapterPasses"),
	"S051": manual("an RS REST property, not MCP wire: the fixture RS contract test reads evidence_excerpts with a field_window_read descriptor", "fakers.TestSearch"),
}

// An Entry is one catalog scenario with its coverage.
type Entry struct {
	Scenario scenarios.Scenario
	Status   Status
	Reason   string // for pending and manual
	Proxy    string // for manual: the check id or package.TestName standing in
	Check    *Check // for checked
}

// StatusText is "checked", "pending: reason" or "manual: reason".
func (e Entry) StatusText() string {
	if e.Status == Checked {
		return string(Checked)
	}
	return string(e.Status) + ": " + e.Reason
}

// LoadRegistry joins the embedded catalog with the checks.
func LoadRegistry() ([]Entry, error) {
	cat, err := scenarios.Load()
	if err != nil {
		return nil, err
	}
	return Registry(cat)
}

// Registry joins the catalog with the checks and classifications. It fails,
// listing every problem, when a scenario has no entry, an entry names no
// scenario, a slug disagrees with the catalog, or an id is both checked and
// classified.
func Registry(cat *scenarios.Catalog) ([]Entry, error) {
	byID := map[string]*Check{}
	var problems []string
	for _, c := range checks {
		if byID[c.ID] != nil {
			problems = append(problems, "duplicate check "+c.ID)
		}
		byID[c.ID] = c
		if _, also := unchecked[c.ID]; also {
			problems = append(problems, c.ID+" is both checked and classified as "+string(unchecked[c.ID].status))
		}
	}
	known := map[string]bool{}
	var entries []Entry
	for _, s := range cat.Scenarios {
		known[s.ID] = true
		e := Entry{Scenario: s}
		if c := byID[s.ID]; c != nil {
			e.Status, e.Check = Checked, c
			if c.Slug != s.Slug {
				problems = append(problems, fmt.Sprintf("%s: check slug %q differs from the catalog slug %q", s.ID, c.Slug, s.Slug))
			}
		} else if cl, ok := unchecked[s.ID]; ok {
			e.Status, e.Reason, e.Proxy = cl.status, cl.reason, cl.proxy
		} else {
			problems = append(problems, fmt.Sprintf("%s (%s, %s:%d) has no registry entry: add a check, or classify it as manual with the executable proxy that stands in for it, in conformance/registry.go", s.ID, s.Slug, s.File, s.Line))
		}
		entries = append(entries, e)
	}
	for id := range byID {
		if !known[id] {
			problems = append(problems, "check "+id+" names no catalog scenario")
		}
	}
	for id := range unchecked {
		if !known[id] {
			problems = append(problems, "classification "+id+" names no catalog scenario")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("registry has %d problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return entries, nil
}
