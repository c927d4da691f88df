package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// Exit codes shared by mcpcheck and its documentation.
const (
	ExitPass        = 0
	ExitFail        = 1 // a required clause failed (any clause, with --strict), or the harness could not judge
	ExitUsage       = 2
	ExitIncomplete  = 3 // no failures, but skipped checks or partly exercised scenarios
	ExitUnreachable = 4
	ExitAuth        = 5
	ExitNotAdapter  = 6 // the target serves none of the PDPP read tools
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

// A Row is one catalog scenario in a report.
type Row struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Title  string  `json:"title"`
	Seed   string  `json:"seed"`
	Group  string  `json:"group"`
	Status Status  `json:"status"`
	Reason string  `json:"reason,omitempty"`
	Result *Result `json:"result,omitempty"`
	// Baseline says how a baseline judged this row: an expected failure, or
	// a stale entry that now passes.
	Baseline string `json:"baseline,omitempty"`
	// Level is the scenario's: required (a seed's SHALL) or recommended
	// (mcpcheck's own adapter contract).
	Level scenarios.Level `json:"level"`
	// Reproduce is the mcpcheck command that reruns this one check.
	Reproduce string `json:"reproduce,omitempty"`

	clauses []scenarios.Clause // the scenario's, for rows without clause results
}

// A Report is the outcome of one run.
type Report struct {
	Schema      string        `json:"schema"`
	Tool        string        `json:"tool"`
	Target      string        `json:"target"`
	TargetKind  TargetKind    `json:"target_kind"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"duration_ns"`
	TargetError *TargetError  `json:"target_error,omitempty"`
	// Applicability says how much of the PDPP read surface the target
	// serves; a target that serves none of it is not judged at all.
	Applicability *Applicability `json:"applicability,omitempty"`
	// Dialect is what the run inferred of the target's argument names,
	// tool by tool: the roles the seeds leave open and the argument
	// playing each, with where that came from.
	Dialect []dialect.ToolSummary `json:"dialect,omitempty"`
	// Strict says recommended failures fail this run.
	Strict bool `json:"strict,omitempty"`
	// Verbose makes the text report print whole calls, not cut to its width.
	Verbose   bool          `json:"-"`
	Rows      []Row         `json:"scenarios"`
	Footprint *Footprint    `json:"footprint,omitempty"`
	Golden    *GoldenReport `json:"golden,omitempty"`
	Warnings  []string      `json:"warnings,omitempty"`
	Totals    Totals        `json:"totals"`
}

// Totals counts verdicts and coverage. Every report format prints these
// same numbers.
type Totals struct {
	Scenarios int `json:"scenarios"`
	Passed    int `json:"passed"`
	Partial   int `json:"partial"`
	// Failed counts failures at the required level; FailedRecommended
	// those where only recommended clauses or thresholds failed.
	Failed            int `json:"failed"`
	FailedRecommended int `json:"failed_recommended"`
	Skipped           int `json:"skipped"`
	NotApplicable     int `json:"not_applicable"`
	// Errors counts checks the harness could not judge, and checks not run
	// because the target could not be reached.
	Errors  int `json:"errors"`
	Pending int `json:"pending"`
	Manual  int `json:"manual"`
	// Expected counts baselined failures; Stale baselined ids that passed.
	Expected int `json:"expected_failures"`
	Stale    int `json:"stale_baseline"`
	// Clauses counts the same rows clause by clause: what the JUnit
	// report's attributes count.
	Clauses ClauseTotals `json:"clauses"`
}

// ReportSchema versions the JSON report format.
const ReportSchema = "mcpcheck.report/v2"

// A UsageError is a mistake in the run's configuration.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// LoadSettings reads the expected surface and applies the budget override.
func LoadSettings(budget int) (Settings, error) {
	surface, err := scenarios.LoadSurface()
	if err != nil {
		return Settings{}, err
	}
	if budget <= 0 {
		budget = surface.BudgetBytes
	}
	return Settings{Surface: surface, BudgetBytes: budget}, nil
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
	rep := &Report{Schema: ReportSchema, Tool: "mcpcheck " + Version(), TargetKind: cfg.Target.Kind(), Started: time.Now(), Strict: cfg.Strict}
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
	if reason := tgt.Down(); reason != "" {
		rep.TargetError = &TargetError{Unreachable: true, Reason: "the target stopped serving during the run: " + reason}
	}
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

func (r *Report) tally() {
	t := Totals{Scenarios: len(r.Rows)}
	for _, row := range r.Rows {
		switch row.Status {
		case Pending:
			t.Pending++
		case Manual:
			t.Manual++
		}
		for _, c := range r.clauseViews(row) {
			t.Clauses.add(c.kind)
		}
		if row.Result == nil {
			if row.Status == Checked { // not run: the target could not be reached
				t.Errors++
			}
			continue
		}
		switch {
		case strings.HasPrefix(row.Baseline, "expected"):
			t.Expected++
			continue
		case strings.HasPrefix(row.Baseline, "stale"):
			t.Stale++
		}
		switch row.Result.Verdict {
		case Pass:
			t.Passed++
		case Partial:
			t.Partial++
		case Fail:
			if row.Result.FailLevel == scenarios.Recommended {
				t.FailedRecommended++
			} else {
				t.Failed++
			}
		case Skip:
			t.Skipped++
		case NA:
			t.NotApplicable++
		case Error:
			t.Errors++
		}
	}
	r.Totals = t
}

// Failing reports whether a result fails the run: a required failure, or
// any failure in a strict run.
func (r *Report) Failing(res *Result) bool {
	return res != nil && res.Verdict == Fail && (r.Strict || res.FailLevel != scenarios.Recommended)
}

// ExitCode maps the report to mcpcheck's documented exit codes.
func (r *Report) ExitCode() int {
	t := r.Totals
	switch {
	case r.TargetError != nil && r.TargetError.Unreachable:
		return ExitUnreachable
	case r.TargetError != nil:
		return ExitAuth
	case r.Applicability.NotAdapter():
		return ExitNotAdapter
	case t.Failed > 0 || r.Strict && t.FailedRecommended > 0 || t.Errors > 0 || t.Stale > 0 || r.Golden.failed():
		return ExitFail
	case t.Skipped > 0 || t.Partial > 0 || t.Pending > 0:
		return ExitIncomplete
	}
	return ExitPass
}

// Verdicts maps scenario id to verdict for every evaluated check.
func (r *Report) Verdicts() map[string]Verdict {
	out := map[string]Verdict{}
	for _, row := range r.Rows {
		if row.Result != nil {
			out[row.ID] = row.Result.Verdict
		}
	}
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
