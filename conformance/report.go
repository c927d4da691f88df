package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
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
	// Scope is what the run lacks by design (--rs real), and the
	// scenarios left unjudged only for that.
	Scope *ModeScope `json:"mode_scope,omitempty"`
	// Strict says recommended failures fail this run.
	Strict bool `json:"strict,omitempty"`
	// Verbose makes the text report print whole calls, not cut to its width.
	Verbose   bool          `json:"-"`
	Rows      []Row         `json:"scenarios"`
	Footprint *Footprint    `json:"footprint,omitempty"`
	Golden    *GoldenReport `json:"golden,omitempty"`
	Warnings  []string      `json:"warnings,omitempty"`
	Totals    Totals        `json:"totals"`

	// updateGolden is the command that rewrites this run's goldens.
	updateGolden string
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
	// OutOfScope counts the skipped and partial scenarios that wait only
	// on what the run's mode lacks ([ModeScope]); they do not make the run
	// incomplete.
	OutOfScope int `json:"out_of_scope"`
	// Clauses counts the same rows clause by clause: what the JUnit
	// report's attributes count.
	Clauses ClauseTotals `json:"clauses"`
}

// ReportSchema versions the JSON report format.
const ReportSchema = "mcpcheck.report/v2"

// WriteJSON writes the machine report (schema mcpcheck.report/v2). Its
// strings hold no raw C1, bidi or zero-width character and no workflow
// command: termsafe.JSON escapes them, and a decoder reads the same text.
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
}

func (r *Report) tally() {
	t := Totals{Scenarios: len(r.Rows)}
	if r.Scope != nil {
		r.Scope.Scenarios = []string{} // an array in the JSON report, never null
	}
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
		if r.Scope.outside(row.Result) {
			t.OutOfScope++
			r.Scope.Scenarios = append(r.Scope.Scenarios, row.ID)
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
	case t.Skipped+t.Partial > t.OutOfScope || t.Pending > 0:
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
