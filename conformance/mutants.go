package conformance

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// Mutant verdicts: how the registry fared against one mutant.
const (
	Killed       = "killed"       // every id the mutant names failed
	WrongReason  = "wrong-reason" // other ids failed, but not all of its own
	Survived     = "survived"     // nothing failed
	HarnessFault = "harness-error"
)

// A MutantResult is one mutant run through every check.
type MutantResult struct {
	Mutant  string   `json:"mutant"`
	Doc     string   `json:"doc"`
	Expect  []string `json:"expect"`  // the ids that must fail
	Failed  []string `json:"failed"`  // the ids that did fail
	Errors  []string `json:"errors"`  // ids the harness could not judge
	Verdict string   `json:"verdict"` // Killed, WrongReason, Survived or HarnessFault
}

// MutantMatrix opens the reference adapter once per mutant (all of them, or
// those named) and evaluates every check against it. A check nobody has
// seen fail is not done: this is where each is seen failing.
func MutantMatrix(ctx context.Context, only []string, parallel int) ([]MutantResult, error) {
	entries, err := LoadRegistry()
	if err != nil {
		return nil, err
	}
	settings, err := LoadSettings(0)
	if err != nil {
		return nil, err
	}
	var infos []variation.Variation
	known := map[string]bool{}
	for _, m := range variation.All() {
		known[m.ID] = true
		if len(only) == 0 || contains(only, m.ID) {
			infos = append(infos, m)
		}
	}
	var unknown []string
	for _, name := range only {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, &UsageError{fmt.Sprintf("no mutant is named %s (mcpcheck mutants lists them all)", strings.Join(unknown, ", "))}
	}
	if parallel <= 0 {
		parallel = 2
	}
	out := make([]MutantResult, len(infos))
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for i, m := range infos {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, m variation.Variation) {
			defer func() { <-sem; wg.Done() }()
			out[i] = runMutant(ctx, m, entries, settings)
		}(i, m)
	}
	wg.Wait()
	return out, nil
}

func runMutant(ctx context.Context, m variation.Variation, entries []Entry, s Settings) MutantResult {
	r := MutantResult{Mutant: m.ID, Doc: m.Doc, Expect: m.Kills}
	tgt, err := Open(ctx, TargetSpec{Mutant: m.ID})
	if err != nil {
		r.Errors, r.Verdict = []string{"open: " + err.Error()}, HarnessFault
		return r
	}
	defer tgt.Close()
	for id, res := range EvaluateAll(ctx, entries, tgt, s, 4) {
		switch res.Verdict {
		case Fail:
			r.Failed = append(r.Failed, id)
		case Error:
			r.Errors = append(r.Errors, id+": "+firstLine(res.Message))
		}
	}
	sort.Strings(r.Failed)
	sort.Strings(r.Errors)
	own := 0
	for _, id := range m.Kills {
		if contains(r.Failed, id) {
			own++
		}
	}
	switch {
	case len(r.Errors) > 0:
		r.Verdict = HarnessFault
	case own == len(m.Kills):
		r.Verdict = Killed
	case len(r.Failed) > 0:
		r.Verdict = WrongReason
	default:
		r.Verdict = Survived
	}
	return r
}

// WriteMutantTable prints the matrix: mutant, the ids it must fail, the ids
// that failed, and the verdict.
func WriteMutantTable(w io.Writer, results []MutantResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tEXPECTED\tVERDICT\tFAILED") // FAILED last: a broad mutant fails dozens of ids
	killed := 0
	for _, r := range results {
		failed := strings.Join(r.Failed, ",")
		if failed == "" {
			failed = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Mutant, strings.Join(r.Expect, ","), r.Verdict, failed)
		if r.Verdict == Killed {
			killed++
		}
	}
	tw.Flush()
	for _, r := range results {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "harness error under %s: %s\n", r.Mutant, termsafe.Line(e))
		}
	}
	fmt.Fprintf(w, "%d mutants: %d killed by their own ids (%.0f%%)\n", len(results), killed, 100*float64(killed)/float64(max(1, len(results))))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
