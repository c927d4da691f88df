package conformance

import (
	"context"
	"errors"
	"fmt"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// Config selects a target and the checks to run against it.
type Config struct {
	Target TargetSpec
	// Entries are the catalog joined with its checks ([Registry]): the
	// rows of the report, and the checks Only and Focus select from.
	Entries []Entry
	// BudgetBytes is the tools/list byte budget; zero means the catalog's.
	BudgetBytes int
	// Only selects scenario ids or id prefixes ("S012", "S01"); Focus
	// selects exact ids ("S004" is not "S04x"). Both empty select all.
	Only, Focus []string
	// Label narrows the selection with a Ginkgo label-filter expression
	// over [Entry.Labels]; Skip leaves out names matching a pattern.
	Label string
	Skip  []string
	// Parallel bounds concurrent checks; zero means 4.
	Parallel int
	// Baseline lists ids expected to fail on this target.
	Baseline *Baseline
	// GoldenDir, when set, holds the target's golden footprints;
	// UpdateGolden rewrites them instead of comparing.
	GoldenDir    string
	UpdateGolden bool
	// Strict makes recommended failures (mcpcheck's own contract and
	// thresholds) fail the run as required ones do.
	Strict bool
	// Progress, when set, hears of each check as it ends: how many of how
	// many are done, and the one that just ended.
	Progress func(done, total int, name string)
	// Invocation is how the user reached this target, as mcpcheck flags
	// without secrets ("--url https://x/mcp --token-file t"): the start of
	// each failure's reproduction line; InvocationTail, what must end it
	// ("--stdio -- node adapter.js").
	Invocation, InvocationTail []string
}

// A UsageError is a mistake in the run's configuration.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// LoadSettings reads the expected surface and applies the budget override.
func LoadSettings(budget int) (Settings, error) {
	surface, err := scenarios.LoadSurface()
	if err != nil {
		return Settings{}, err
	}
	configured := budget > 0
	if !configured {
		budget = surface.BudgetBytes
	}
	return Settings{Surface: surface, BudgetBytes: budget, BudgetConfigured: configured}, nil
}

// Select returns the registry entries the filters name: only by id prefix
// or exact name, focus by exact id or name. Both empty select all.
func Select(entries []Entry, only, focus []string) ([]Entry, error) {
	if len(only) == 0 && len(focus) == 0 {
		return entries, nil
	}
	norm := func(fs []string) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = strings.ToUpper(strings.TrimSpace(f))
		}
		return out
	}
	only, focus = norm(only), norm(focus)
	var out []Entry
	used := map[string]bool{}
	for _, e := range entries {
		id, name := e.Scenario.ID, strings.ToUpper(e.Scenario.Name())
		picked := false
		for _, f := range only {
			if strings.HasPrefix(id, f) || name == f {
				picked, used["only "+f] = true, true
			}
		}
		for _, f := range focus {
			if id == f || name == f {
				picked, used["focus "+f] = true, true
			}
		}
		if picked {
			out = append(out, e)
		}
	}
	for _, f := range only {
		if !used["only "+f] {
			return nil, &UsageError{fmt.Sprintf("scenario filter %q matches nothing", f)}
		}
	}
	for _, f := range focus {
		if !used["focus "+f] {
			return nil, &UsageError{fmt.Sprintf("--focus %q names no scenario id (--focus takes exact ids; give a prefix as an argument)", f)}
		}
	}
	return out, nil
}

// Run opens the target, evaluates the selected checks and builds the report.
// A target that cannot be reached still yields a report, with TargetError set.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Entries) == 0 {
		return nil, errors.New("conformance.Run: no registry entries to run")
	}
	entries, err := cfg.selected()
	if err != nil {
		return nil, err
	}
	settings, err := LoadSettings(cfg.BudgetBytes)
	if err != nil {
		return nil, err
	}
	rep := &Report{Schema: ReportSchema, Tool: "mcpcheck " + Version(), TargetKind: cfg.Target.Kind(), Started: time.Now(), Strict: cfg.Strict,
		Scope: cfg.Target.RS.scope()}
	defer func() { rep.Duration = time.Since(rep.Started) }()
	rep.Rows = make([]Row, len(entries))
	for i, e := range entries {
		rep.Rows[i] = Row{ID: e.Scenario.ID, Name: e.Scenario.Name(), Title: e.Scenario.Title, Seed: e.Scenario.Seed, Group: e.Scenario.Group,
			Level: e.Scenario.Level, Status: e.Status, Reason: e.Reason, clauses: e.Scenario.Clauses}
	}
	if cfg.Target.Redactor == nil {
		cfg.Target.Redactor = NewRedactor()
	}
	// Every string of the report may quote the target; redacting them as
	// values keeps the JSON and JUnit encodings intact.
	defer cfg.Target.Redactor.Value(rep)
	tgt, err := Open(ctx, cfg.Target)
	if err != nil {
		te, ok := err.(*TargetError)
		if !ok {
			te = &TargetError{Unreachable: true, Reason: err.Error()}
		}
		rep.TargetError, rep.Target = te, cfg.Target.Describe()
		rep.tally()
		return rep, nil
	}
	defer tgt.Close()
	rep.Target = tgt.Description
	rep.Applicability = Applicable(tgt, settings.Surface)
	var results map[string]Result
	if rep.Applicability.NotAdapter() {
		results = notJudged(entries, rep.Applicability.Verdict())
	} else {
		results = evaluateAll(ctx, entries, tgt, settings, cfg.Parallel, cfg.Progress)
	}
	rep.Dialect = tgt.DialectSummary()
	rep.TargetError = tgt.downError()
	for i := range rep.Rows {
		row := &rep.Rows[i]
		if r, ok := results[row.ID]; ok {
			r := r
			row.Result = &r
			if r.Verdict == Fail || r.Verdict == Error {
				row.Reproduce = strings.Join(slices.Concat([]string{"mcpcheck"}, cfg.Invocation, []string{"--focus", row.ID}, cfg.InvocationTail), " ")
			}
		}
	}
	rep.applyBaseline(cfg.Baseline)
	if rep.Footprint, err = MeasureFootprint(tgt, settings.BudgetBytes); err != nil {
		return nil, err
	}
	if cfg.GoldenDir != "" {
		if rep.Golden, err = CompareGoldens(ctx, tgt, cfg.GoldenDir, cfg.UpdateGolden); err != nil {
			return nil, err
		}
		rep.updateGolden = strings.Join(slices.Concat([]string{"mcpcheck"}, cfg.Invocation,
			[]string{"--golden-dir", shellquote.Quote(cfg.GoldenDir), "--update-golden"}, cfg.InvocationTail), " ")
	}
	if calls, failed := tgt.callCounts(); calls > 0 && failed == calls {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("every one of the run's %d tool calls returned an error: the checks saw only error paths, "+
			"so the target may be misconfigured (token, provider URL, grant) and passing verdicts here say little", calls))
	}
	rep.tally()
	return rep, nil
}

// selected are the entries the configuration names.
func (cfg Config) selected() ([]Entry, error) {
	entries, err := Select(cfg.Entries, cfg.Only, cfg.Focus)
	if err != nil {
		return nil, err
	}
	return Filter(entries, cfg.Label, cfg.Skip)
}

// EvaluateAll evaluates every checked entry, parallel bounded by n.
func EvaluateAll(ctx context.Context, entries []Entry, tgt *Target, s Settings, n int) map[string]Result {
	return evaluateAll(ctx, entries, tgt, s, n, nil)
}

func evaluateAll(ctx context.Context, entries []Entry, tgt *Target, s Settings, n int, progress func(done, total int, name string)) map[string]Result {
	if n <= 0 {
		n = 4
	}
	if tgt.sharedRS() {
		n = 1
	}
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		sem   = make(chan struct{}, n)
		out   = map[string]Result{}
		total = 0
	)
	for _, e := range entries {
		if e.Check != nil {
			total++
		}
	}
	for _, e := range entries {
		if e.Check == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(e Entry) {
			defer func() { <-sem; wg.Done() }()
			r := Evaluate(ctx, e, tgt, s)
			mu.Lock()
			out[e.Check.ID] = r
			if progress != nil {
				progress(len(out), total, e.Check.Name())
			}
			mu.Unlock()
		}(e)
	}
	wg.Wait()
	return out
}

// SortedIDs returns map keys in order (for stable messages).
func SortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
