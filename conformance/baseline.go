package conformance

import (
	"bytes"
	"fmt"
	"io"
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

// maxBaselineBytes bounds a baseline file: 200,000 entries fit four times.
const maxBaselineBytes = 16 << 20

// maxBaselineProblems bounds how many problems the error names; it counts
// the rest.
const maxBaselineProblems = 20

// LoadBaseline reads and validates a baseline file: known keys only, every
// id in the catalog, once, every entry with a reason. It takes time linear
// in the file: expected_failures is read node by node, since the YAML
// library's own check for repeated keys is quadratic (200,000 ids took
// minutes).
func LoadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &UsageError{fmt.Sprintf("--baseline: %v", err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBaselineBytes+1))
	switch {
	case err != nil:
		return nil, &UsageError{fmt.Sprintf("--baseline: %v", err)}
	case len(data) > maxBaselineBytes:
		return nil, &UsageError{fmt.Sprintf("--baseline %s: over %d MB", path, maxBaselineBytes>>20)}
	}
	var raw struct {
		Target           string    `yaml:"target"`
		ExpectedFailures yaml.Node `yaml:"expected_failures"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, &UsageError{fmt.Sprintf("--baseline %s: %v", path, err)}
	}
	b := Baseline{Target: raw.Target, ExpectedFailures: map[string]string{}}
	node := &raw.ExpectedFailures
	switch {
	case node.Kind == 0 || node.Kind == yaml.ScalarNode && node.Tag == "!!null":
	case node.Kind != yaml.MappingNode:
		return nil, &UsageError{fmt.Sprintf("--baseline %s: line %d: expected_failures must map each scenario id to its reason", path, node.Line)}
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
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return nil, &UsageError{fmt.Sprintf("--baseline %s: line %d: expected_failures must map each scenario id to its reason", path, k.Line)}
		}
		id, why := k.Value, v.Value
		if v.Tag == "!!null" {
			why = ""
		}
		_, twice := b.ExpectedFailures[id]
		switch {
		case twice:
			problems = append(problems, fmt.Sprintf("%s is listed twice (line %d)", id, k.Line))
		case !known[id]:
			problems = append(problems, id+" names no catalog scenario")
		case strings.TrimSpace(why) == "":
			problems = append(problems, id+" has no reason")
		}
		b.ExpectedFailures[id] = why
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		if n := len(problems) - maxBaselineProblems; n > 0 {
			problems = append(problems[:maxBaselineProblems], fmt.Sprintf("and %d more", n))
		}
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
