package conformance

import (
	"time"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A Verdict is the outcome of one scenario's check.
type Verdict string

const (
	Pass    Verdict = "pass"    // every clause was judged and held (or is manual)
	Partial Verdict = "partial" // no clause failed, some held, some were not exercised: never a plain pass
	Fail    Verdict = "fail"    // a clause failed
	Skip    Verdict = "skip"    // no clause could be exercised on this target
	NA      Verdict = "n/a"     // the scenario's subject is absent: not applicable
	Error   Verdict = "error"   // the harness could not judge: transport fault, timeout, panic
)

// An Outcome is how one clause fared.
type Outcome string

const (
	Held         Outcome = "pass"
	Broken       Outcome = "fail"
	NotExercised Outcome = "not-exercised"
	ManualClause Outcome = "manual"
)

// A Failure is one failed assertion. Its level is its clause's, or
// recommended when it holds the target to one of mcpcheck's own numbers
// where the seed says only "bounded" ([T.Threshold]).
type Failure struct {
	Message string          `json:"message"`
	Level   scenarios.Level `json:"level"`
	// Witness is the evidence a required failure rests on; recommended
	// failures (mcpcheck's own rules) need none.
	Witness *Witness `json:"witness,omitempty"`
}

// A ClauseResult is the verdict on one THEN or AND bullet.
type ClauseResult struct {
	Key     string          `json:"key"` // "S029.2"
	Text    string          `json:"text"`
	Level   scenarios.Level `json:"level"`
	Outcome Outcome         `json:"outcome"`
	// Reason says why the clause was not exercised, or what stands in for
	// a manual one.
	Reason string `json:"reason,omitempty"`
	// BlockedBy names the scenario that owns what broke, when that kept
	// this clause from being judged.
	BlockedBy string `json:"blocked_by,omitempty"`
	// Needs names the capability the target lacked, when that is why the
	// clause was not exercised.
	Needs    Capability `json:"needs,omitempty"`
	Failures []Failure  `json:"failures,omitempty"`
	// Calls are the tool calls behind a failure, bounded in bytes.
	Calls []string `json:"calls,omitempty"`
	// At is where the check first judged the clause ("conformance/checks/
	// s029_fetch_document_shape.go:40"); "" when it did not (not reported).
	At string `json:"-"`
}

// FailLevel is required when a failure holds the clause to its own terms,
// recommended when every failure is a threshold of mcpcheck's or the
// clause is recommended, and "" when nothing failed.
func (c ClauseResult) FailLevel() scenarios.Level {
	var lvl scenarios.Level
	if len(c.Failures) > 0 && c.Level == scenarios.Recommended {
		return scenarios.Recommended // a clause can fail no harder than its level
	}
	for _, f := range c.Failures {
		if f.Level == scenarios.Required {
			return scenarios.Required
		}
		lvl = scenarios.Recommended
	}
	return lvl
}

// A Result is one scenario's verdict.
type Result struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Mode Mode   `json:"mode"`
	// Level is the scenario's: required for a seed's SHALL, recommended for
	// mcpcheck's own contract.
	Level   scenarios.Level `json:"level"`
	Verdict Verdict         `json:"verdict"`
	// FailLevel, on a failed result, is required when some required clause
	// failed on its own terms, else recommended: only required failures
	// fail a run unless it is --strict.
	FailLevel scenarios.Level `json:"fail_level,omitempty"`
	Message   string          `json:"message,omitempty"`
	// Needs names the capability the target lacked, when that is why the
	// whole check was skipped.
	Needs    Capability     `json:"needs,omitempty"`
	Clauses  []ClauseResult `json:"clauses,omitempty"`
	Duration time.Duration  `json:"duration_ns"`
	Entries  []ReportEntry  `json:"entries,omitempty"`
	// Calls, bounded in bytes, are: on a failure judged clause by clause,
	// the calls made before any clause (every clause's evidence; each
	// clause lists its own); else every call of the check.
	Calls []string `json:"calls,omitempty"`
	// Uses are the fixture data the check read, in order (not reported).
	Uses []DataUse `json:"-"`
}

// FailedClauses are the clauses that failed.
func (r *Result) FailedClauses() []ClauseResult { return r.clausesWith(Broken) }

// UnexercisedClauses are the clauses not judged on this target.
func (r *Result) UnexercisedClauses() []ClauseResult { return r.clausesWith(NotExercised) }

func (r *Result) clausesWith(o Outcome) []ClauseResult {
	var out []ClauseResult
	for _, c := range r.Clauses {
		if c.Outcome == o {
			out = append(out, c)
		}
	}
	return out
}
