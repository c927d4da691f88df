// Package matrix proves what the checks are worth. It runs the whole
// registry once per mutant of the reference adapter (a named, deliberate
// fault) and judges whether the clauses the mutant names caught it, and
// nothing it does not own; and once per conforming variant (a freedom the
// seeds leave open) and judges that no check fails it.
package matrix

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// Verdicts: how the registry fared against one mutant or variant.
const (
	Killed       = "killed"        // every clause or id the mutant names failed
	WrongReason  = "wrong-reason"  // other ids failed, but not all of its own
	Survived     = "survived"      // nothing failed
	Conforms     = "conforms"      // a variant every check passes as it passes the reference
	FalseFailure = "false-failure" // a variant some check fails, or judges less than the reference
	// Stale: a variant whose known false failures include an id that now
	// passes: the list must shrink with the fix.
	Stale        = "stale-known-false"
	HarnessFault = "harness-error"
)

// A Result is one mutant or variant run through every check.
type Result struct {
	Mutant     string   `json:"mutant"`
	Doc        string   `json:"doc"`
	Conforming bool     `json:"conforming,omitempty"`
	Freedom    string   `json:"freedom,omitempty"`
	Expect     []string `json:"expect,omitempty"`     // the clause keys or ids that must fail
	Collateral []string `json:"collateral,omitempty"` // further ids it declares it breaks
	Failed     []string `json:"failed"`               // the ids that failed
	// FailedClauses are the clause keys that failed.
	FailedClauses []string `json:"failed_clauses,omitempty"`
	// Undeclared are failing ids the mutant neither names nor declares: a
	// check failing on a property it does not own, or a fault broader
	// than its row says.
	Undeclared []string `json:"undeclared,omitempty"`
	// Degraded are ids a variant left less judged than the reference
	// (pass there, partial or skip here).
	Degraded []string `json:"degraded,omitempty"`
	// Advised are the clause keys that failed a variant at the
	// recommended level only, where its row says its freedom meets
	// mcpcheck's own advice.
	Advised []string `json:"advised,omitempty"`
	// KnownFalse are the ids the variant lists as failing it falsely
	// today (with their cause); Stale are those of them that now pass.
	KnownFalse map[string]string `json:"known_false,omitempty"`
	Stale      []string          `json:"stale,omitempty"`
	Errors     []string          `json:"errors"`  // ids the harness could not judge
	Verdict    string            `json:"verdict"` // Killed, WrongReason, Survived, Conforms, FalseFailure or HarnessFault
}

// OK reports a mutant killed by its own clauses with no undeclared
// collateral, or a variant that conforms.
func (r Result) OK() bool {
	return (r.Verdict == Killed && len(r.Undeclared) == 0) || r.Verdict == Conforms
}

// Options select and pace a matrix run.
type Options struct {
	Only     []string // mutant or variant ids; empty: all
	Parallel int      // adapters checked at once; zero means 2
	// Progress, when set, hears of each mutant or variant as it ends.
	Progress func(done, total int, name string)
	// OwnScenarios judges each mutant on the scenarios it names and
	// declares only: enough to prove it killed by its own clauses, at a
	// fraction of the cost, but blind to undeclared collateral. The full
	// sweep (the default) is what make matrix (in make ci) and mcpcheck
	// mutants run.
	OwnScenarios bool
}

// Mutants opens the reference adapter once per mutant (all of them, or
// those named) and evaluates every check against it.
func Mutants(ctx context.Context, o Options) ([]Result, error) {
	return run(ctx, reference.Mutants(), "mutant", o)
}

// Variants opens the reference adapter once per conforming variant (all of
// them, or those named) and evaluates every check against it, and once as
// shipped, whose verdicts each variant must equal.
func Variants(ctx context.Context, o Options) ([]Result, error) {
	return run(ctx, reference.Variants(), "variant", o)
}

func run(ctx context.Context, rows []reference.Mutant, kind string, o Options) ([]Result, error) {
	only, parallel := o.Only, o.Parallel
	entries, err := checks.LoadRegistry()
	if err != nil {
		return nil, err
	}
	settings, err := conformance.LoadSettings(0)
	if err != nil {
		return nil, err
	}
	var picked []reference.Mutant
	known := map[string]bool{}
	for _, m := range rows {
		known[m.ID] = true
		if len(only) == 0 || slices.Contains(only, m.ID) {
			picked = append(picked, m)
		}
	}
	var unknown []string
	for _, name := range only {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, &conformance.UsageError{Msg: fmt.Sprintf("no %s is named %s (mcpcheck %ss lists them all)", kind, strings.Join(unknown, ", "), kind)}
	}
	if parallel <= 0 {
		parallel = 2
	}
	var baseline map[string]conformance.Verdict
	if slices.ContainsFunc(picked, reference.Mutant.Conforming) {
		ref, err := evaluate(ctx, reference.Mutant{}, entries, settings)
		if err != nil {
			return nil, fmt.Errorf("the reference adapter: %w", err)
		}
		baseline = map[string]conformance.Verdict{}
		for id, r := range ref {
			baseline[id] = r.Verdict
		}
	}
	out := make([]Result, len(picked))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	sem := make(chan struct{}, parallel)
	for i, m := range picked {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, m reference.Mutant) {
			defer func() { <-sem; wg.Done() }()
			scope := entries
			if o.OwnScenarios && !m.Conforming() {
				scope = ownEntries(entries, m)
			}
			out[i] = judge(ctx, m, scope, settings, baseline)
			if o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(done, len(picked), m.ID)
				mu.Unlock()
			}
		}(i, m)
	}
	wg.Wait()
	return out, nil
}

func evaluate(ctx context.Context, m reference.Mutant, entries []conformance.Entry, s conformance.Settings) (map[string]conformance.Result, error) {
	spec, err := reference.Spec(m.ID)
	if err != nil {
		return nil, err
	}
	tgt, err := conformance.Open(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer tgt.Close()
	return conformance.EvaluateAll(ctx, entries, tgt, s, 4), nil
}

// judge runs one mutant or variant; baseline holds the reference's
// verdicts, which a variant must equal.
func judge(ctx context.Context, m reference.Mutant, entries []conformance.Entry, s conformance.Settings, baseline map[string]conformance.Verdict) Result {
	r := Result{Mutant: m.ID, Doc: m.Doc, Conforming: m.Conforming(), Freedom: m.Freedom, Expect: m.Kills, Collateral: m.Collateral, KnownFalse: m.KnownFalse}
	results, err := evaluate(ctx, m, entries, s)
	if err != nil {
		r.Errors, r.Verdict = []string{err.Error()}, HarnessFault
		return r
	}
	for id, res := range results {
		switch res.Verdict {
		case conformance.Fail:
			if m.Conforming() && onlyAdvised(res, m.Advised) {
				for _, c := range res.FailedClauses() {
					r.Advised = append(r.Advised, c.Key)
				}
				break
			}
			r.Failed = append(r.Failed, id)
			for _, c := range res.FailedClauses() {
				r.FailedClauses = append(r.FailedClauses, c.Key)
			}
		case conformance.Error:
			r.Errors = append(r.Errors, id+": "+conformance.FirstLine(res.Message))
		}
		if m.Conforming() && baseline[id] == conformance.Pass && (res.Verdict == conformance.Partial || res.Verdict == conformance.Skip ||
			res.Verdict == conformance.NA && m.Inapplicable[id] == "") {
			r.Degraded = append(r.Degraded, id+" ("+string(res.Verdict)+": "+conformance.FirstLine(res.Message)+")")
		}
	}
	sort.Strings(r.Failed)
	sort.Strings(r.FailedClauses)
	sort.Strings(r.Errors)
	sort.Strings(r.Degraded)
	unexplained := r.falseIDs()
	switch {
	case len(r.Errors) > 0:
		r.Verdict = HarnessFault
	case m.Conforming() && len(unexplained) == 0 && len(r.Stale) == 0:
		r.Verdict = Conforms
	case m.Conforming() && len(unexplained) == 0:
		r.Verdict = Stale
	case m.Conforming():
		r.Verdict = FalseFailure
	case len(r.Failed) == 0:
		r.Verdict = Survived
	case slices.ContainsFunc(m.Kills, func(k string) bool { return !r.caught(k) }):
		r.Verdict = WrongReason
	default:
		r.Verdict = Killed
	}
	if !m.Conforming() {
		for _, id := range r.Failed {
			if !slices.ContainsFunc(m.Kills, func(k string) bool { return scenarioOf(k) == id }) && !slices.Contains(m.Collateral, id) {
				r.Undeclared = append(r.Undeclared, id)
			}
		}
	}
	return r
}

// ownEntries are the registry entries of the scenarios a mutant names or
// declares as collateral.
func ownEntries(entries []conformance.Entry, m reference.Mutant) []conformance.Entry {
	own := slices.Clone(m.Collateral)
	for _, k := range m.Kills {
		own = append(own, scenarioOf(k))
	}
	return slices.DeleteFunc(slices.Clone(entries), func(e conformance.Entry) bool { return !slices.Contains(own, e.Scenario.ID) })
}

// onlyAdvised reports a failed result whose every failure is recommended
// and in a clause the variant's row names as advised.
func onlyAdvised(res conformance.Result, advised []string) bool {
	failed := res.FailedClauses()
	if len(failed) == 0 {
		return false
	}
	for _, c := range failed {
		if !slices.Contains(advised, c.Key) || c.FailLevel() != scenarios.Recommended {
			return false
		}
	}
	return true
}

// falseIDs are the ids that fail a variant or judge it less than the
// reference, other than its known false ones; it also sets Stale, the
// known ones that no longer do.
func (r *Result) falseIDs() []string {
	bad := map[string]bool{}
	for _, id := range r.Failed {
		bad[id] = true
	}
	for _, d := range r.Degraded {
		id, _, _ := strings.Cut(d, " ")
		bad[id] = true
	}
	var out []string
	for id := range bad {
		if _, known := r.KnownFalse[id]; !known {
			out = append(out, id)
		}
	}
	r.Stale = nil
	for id := range r.KnownFalse {
		if !bad[id] {
			r.Stale = append(r.Stale, id)
		}
	}
	sort.Strings(out)
	sort.Strings(r.Stale)
	return out
}

// caught reports whether a kill, a clause key or a scenario id, failed.
func (r Result) caught(kill string) bool {
	if strings.Contains(kill, ".") {
		return slices.Contains(r.FailedClauses, kill)
	}
	return slices.Contains(r.Failed, kill)
}

// scenarioOf is the scenario id of a clause key ("S029.2" → "S029").
func scenarioOf(kill string) string {
	id, _, _ := strings.Cut(kill, ".")
	return id
}
