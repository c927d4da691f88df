// Package clausemap maps each scenario clause (S029.2) to everything that
// bears on it: the seed text, where its check judges it, the reference
// adapter code that implements it, the fixture data the check reads, and
// the mutants that must fail it and the conforming variants it must
// accept. `mcpcheck scenarios ID` prints it; scenarios/INDEX.md holds it
// for every scenario.
//
// Most of it is read from what is linked: the catalog, the registry (a
// check's file:line is its Run function's), the variation rows (mutants
// name clause keys, variants what they exercise). The data a check reads
// is chosen at run time through its helpers, so it is seen, not declared:
// Build runs the checks against the reference adapter and keeps what each
// discovered or forked ([conformance.DataUse]) and where it judged each
// clause. Only the adapter code is a table (adapter_code.go), checked
// against the source by this package's tests.
package clausemap

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A Scenario is one catalog scenario and what bears on it.
type Scenario struct {
	ID, Slug, Title string
	Level, Seed     string
	Status          string // "checked" or "manual: why; executable proxy: …"
	Spec            string // "scenarios/openspec/specs/…/spec.md:60"
	Check           string // "conformance/checks/s029_fetch_document_shape.go:20"; "" for a manual one
	Adapter         []string
	Data            []Data
	// Mutants and Variants name the scenario as a whole, not one clause.
	Mutants, Variants []string
	Clauses           []Clause
	// Verdict is the check's on the reference adapter, where its data
	// was seen; anything but pass means Data may be incomplete.
	Verdict string
}

// A Clause is one THEN or AND bullet.
type Clause struct {
	Key, Kind, Text   string
	At                string // where the check judges it; "" when the reference run did not reach it
	Mutants, Variants []string
}

// A Data is fixture data a check reads.
type Data struct {
	What    string // `discovers "fan-in-term" in the target's own data`, `forks onto fixture "evidence"`
	At      string // where the check asks for it: "conformance/probe/hits.go:64 FanInTerm"
	Builder string // the fakers code that builds that data: "fakers/fixture_evidence.go:37 buildEvidence"
}

// Build maps the scenarios whose ids or id prefixes are named (all when
// none are), running their checks against the reference adapter.
func Build(ctx context.Context, only []string) ([]Scenario, error) {
	entries, err := checks.LoadRegistry()
	if err != nil {
		return nil, err
	}
	selected, err := conformance.Select(entries, only, nil)
	if err != nil {
		return nil, err
	}
	spec, err := reference.Spec("")
	if err != nil {
		return nil, err
	}
	results := map[string]*conformance.Result{}
	if slices.ContainsFunc(selected, func(e conformance.Entry) bool { return e.Check != nil }) {
		rep, err := conformance.Run(ctx, conformance.Config{Target: spec, Entries: entries, Only: only, Parallel: 2})
		if err != nil {
			return nil, err
		}
		if rep.TargetError != nil {
			return nil, fmt.Errorf("the reference adapter: %s", rep.TargetError.Reason)
		}
		for _, row := range rep.Rows {
			results[row.ID] = row.Result
		}
	}
	mutants, variants := variation.All(), variation.Variants()
	out := make([]Scenario, 0, len(selected))
	for _, e := range selected {
		out = append(out, scenarioOf(e, results[e.Scenario.ID], mutants, variants))
	}
	return out, nil
}

func scenarioOf(e conformance.Entry, res *conformance.Result, mutants, variants []variation.Variation) Scenario {
	sc := e.Scenario
	s := Scenario{ID: sc.ID, Slug: sc.Slug, Title: sc.Title, Level: string(sc.Level), Seed: sc.Seed,
		Status: e.StatusText(), Spec: fmt.Sprintf("scenarios/%s:%d", sc.File, sc.Line)}
	if e.Check != nil {
		file, line, _ := conformance.FuncPos(reflect.ValueOf(e.Check.Run).Pointer())
		s.Check = fmt.Sprintf("%s:%d", file, line)
		s.Adapter = adapterCode[sc.ID]
		if s.Adapter == nil {
			for _, tool := range e.Check.Tools {
				s.Adapter = append(s.Adapter, toolCode[tool])
			}
		}
	}
	var at map[string]string
	if res != nil {
		s.Verdict = string(res.Verdict)
		s.Data = dataOf(res.Uses)
		at = map[string]string{}
		for _, c := range res.Clauses {
			at[c.Key] = c.At
		}
	}
	s.Mutants = naming(mutants, sc.ID, func(v variation.Variation) []string { return v.Kills })
	s.Variants = naming(variants, sc.ID, func(v variation.Variation) []string { return v.Exercises })
	for _, c := range sc.Clauses {
		s.Clauses = append(s.Clauses, Clause{Key: c.Key, Kind: c.Kind, Text: c.Text, At: at[c.Key],
			Mutants:  naming(mutants, c.Key, func(v variation.Variation) []string { return v.Kills }),
			Variants: naming(variants, c.Key, func(v variation.Variation) []string { return v.Exercises })})
	}
	return s
}

// naming are the ids of the rows whose list names key.
func naming(rows []variation.Variation, key string, list func(variation.Variation) []string) []string {
	var ids []string
	for _, v := range rows {
		if slices.Contains(list(v), key) {
			ids = append(ids, v.ID)
		}
	}
	return ids
}

// dataOf turns a run's data uses into the data a check reads, each once.
func dataOf(uses []conformance.DataUse) []Data {
	var out []Data
	for _, u := range uses {
		d := Data{At: u.At}
		name := u.Fixture
		if u.Discovery != "" {
			d.What, name = fmt.Sprintf("discovers %q in the target's own data", u.Discovery), fakers.DefaultFixture
		} else {
			d.What = fmt.Sprintf("forks onto fixture %q", u.Fixture)
		}
		d.Builder = builderOf(name)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Data) int { return cmp.Or(cmp.Compare(a.What, b.What), cmp.Compare(a.At, b.At)) })
	return out
}

// builderOf is where fakers builds the named fixture.
func builderOf(name string) string {
	b, ok := fakers.FixtureBuilder(name)
	if !ok {
		return ""
	}
	file, line, fn := conformance.FuncPos(reflect.ValueOf(b).Pointer())
	return strings.TrimSpace(fmt.Sprintf("%s:%d %s", file, line, fn))
}
