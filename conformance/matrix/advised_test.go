package matrix

import (
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A variant's row may excuse recommended failures in the clauses it names,
// never a required one, nor a clause it does not name.
func TestOnlyAdvisedExcusesRecommendedFailuresOfNamedClauses(t *testing.T) {
	failed := func(key string, lvl scenarios.Level) conformance.ClauseResult {
		return conformance.ClauseResult{Key: key, Level: scenarios.Required, Outcome: conformance.Broken, Failures: []conformance.Failure{{Message: "x", Level: lvl}}}
	}
	res := func(cs ...conformance.ClauseResult) conformance.Result {
		return conformance.Result{Verdict: conformance.Fail, Clauses: cs}
	}
	for _, tc := range []struct {
		name string
		res  conformance.Result
		want bool
	}{
		{"recommended, named", res(failed("S030.2", scenarios.Recommended)), true},
		{"required, named", res(failed("S030.2", scenarios.Required)), false},
		{"recommended, not named", res(failed("S030.1", scenarios.Recommended)), false},
		{"one of two not named", res(failed("S030.2", scenarios.Recommended), failed("S030.3", scenarios.Recommended)), false},
		{"nothing failed", res(), false},
	} {
		if got := onlyAdvised(tc.res, []string{"S030.2"}); got != tc.want {
			t.Errorf("%s: onlyAdvised = %v, want %v", tc.name, got, tc.want)
		}
	}
}
