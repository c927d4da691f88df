package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A Status says how a catalog scenario is covered.
type Status string

const (
	Checked Status = "checked"
	Pending Status = "pending"
	Manual  Status = "manual"
)

// A Classification covers a catalog scenario that has no check.
type Classification struct {
	Status Status
	Reason string
	// Proxy, for a manual scenario, names what stands in for it: a check
	// id, or a Go test as package.TestName.
	Proxy string
}

// Manually classifies a scenario that MCP traffic cannot judge; proxy
// names the executable stand-in, which the coverage gate requires to
// exist.
func Manually(why, proxy string) Classification {
	return Classification{Manual, why + "; executable proxy: " + proxy, proxy}
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

// Registry joins the catalog with the checks and the classifications of
// the scenarios without one (the coverage join). It fails, listing every
// problem, when a scenario has no entry, an entry names no scenario, a slug
// disagrees with the catalog, or an id is both checked and classified.
func Registry(cat *scenarios.Catalog, checks []*Check, unchecked map[string]Classification) ([]Entry, error) {
	byID := map[string]*Check{}
	var problems []string
	for _, c := range checks {
		if byID[c.ID] != nil {
			problems = append(problems, "duplicate check "+c.ID)
		}
		byID[c.ID] = c
		if _, also := unchecked[c.ID]; also {
			problems = append(problems, c.ID+" is both checked and classified as "+string(unchecked[c.ID].Status))
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
			e.Status, e.Reason, e.Proxy = cl.Status, cl.Reason, cl.Proxy
		} else {
			problems = append(problems, fmt.Sprintf("%s (%s, %s:%d) has no registry entry: add a check, or classify it as manual with the executable proxy that stands in for it, in conformance/checks/registry.go", s.ID, s.Slug, s.File, s.Line))
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
