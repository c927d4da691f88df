package conformance

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/scenarios"
	"go.yaml.in/yaml/v3"
)

// A Baseline lists the scenario ids known to fail on one target, each with
// the reason, as the official MCP conformance suite's expected-failures
// file does. A baselined failure does not fail the run; a baselined id that
// passes does, as stale, until the baseline is pruned.
//
//	target: https://pdpp.example/mcp
//	expected_failures:
//	  S029: the anchor adds content_ladder to fetch structuredContent (C4)
type Baseline struct {
	Target           string            `yaml:"target"`
	ExpectedFailures map[string]string `yaml:"expected_failures"`
}

// LoadBaseline reads and validates a baseline file: known keys only, every
// id in the catalog, every entry with a reason.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &UsageError{fmt.Sprintf("--baseline: %v", err)}
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil {
		return nil, &UsageError{fmt.Sprintf("--baseline %s: %v", path, err)}
	}
	cat, err := scenarios.Load()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, s := range cat.Scenarios {
		known[s.ID] = true
	}
	var problems []string
	for id, why := range b.ExpectedFailures {
		switch {
		case !known[id]:
			problems = append(problems, id+" names no catalog scenario")
		case strings.TrimSpace(why) == "":
			problems = append(problems, id+" has no reason")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &UsageError{fmt.Sprintf("--baseline %s: %s", path, strings.Join(problems, "; "))}
	}
	return &b, nil
}

// applyBaseline marks baselined failures as expected and baselined passes
// as stale.
func (r *Report) applyBaseline(b *Baseline) {
	if b == nil {
		return
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		why, ok := b.ExpectedFailures[row.ID]
		if !ok || row.Result == nil {
			continue
		}
		switch row.Result.Verdict {
		case Fail:
			row.Baseline = "expected failure: " + why
		case Pass:
			row.Baseline = "stale: baselined as failing (" + why + ") but now passes; remove it from the baseline"
		}
	}
}
