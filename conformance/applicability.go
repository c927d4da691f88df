package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// Applicability is how much of the PDPP read surface a target serves,
// said before any check: a generic MCP server is not a PDPP adapter, and
// nothing is judged against it.
type Applicability struct {
	Expected int      `json:"expected"` // the read tools of scenarios/surface.json
	Served   []string `json:"served"`
	Missing  []string `json:"missing,omitempty"`
}

// Applicable compares the target's tools with the expected surface.
func Applicable(tgt *Target, surface *scenarios.Surface) *Applicability {
	a := &Applicability{Expected: len(surface.Tools), Served: []string{}}
	for _, name := range surface.Tools {
		if tgt.hasTool(name) {
			a.Served = append(a.Served, name)
		} else {
			a.Missing = append(a.Missing, name)
		}
	}
	slices.Sort(a.Served)
	return a
}

// NotAdapter reports a target that serves none of the read tools. A nil
// Applicability (the target was never reached) is not judged here.
func (a *Applicability) NotAdapter() bool { return a != nil && len(a.Served) == 0 }

// Summary is the report's first word on the target.
func (a *Applicability) Summary() string {
	switch {
	case a == nil:
		return ""
	case a.NotAdapter():
		return fmt.Sprintf("not a PDPP adapter: serves 0 of the %d PDPP read tools (%s)", a.Expected, strings.Join(a.Missing, ", "))
	case len(a.Missing) > 0:
		return fmt.Sprintf("a partial PDPP adapter: serves %d of the %d PDPP read tools; missing %s (S012 reports them; checks about them are not applicable)",
			len(a.Served), a.Expected, strings.Join(a.Missing, ", "))
	}
	return fmt.Sprintf("serves all %d PDPP read tools", a.Expected)
}

// Verdict is what every check gets on a target that is not a PDPP adapter.
func (a *Applicability) Verdict() Result {
	return Result{Verdict: NA, Message: a.Summary()}
}

// notJudged gives every checked entry the same result.
func notJudged(entries []Entry, r Result) map[string]Result {
	out := map[string]Result{}
	for _, e := range entries {
		if e.Check != nil {
			res := r
			res.ID, res.Name, res.Mode, res.Level = e.Check.ID, e.Check.Name(), e.Check.Mode, e.Scenario.Level
			out[e.Check.ID] = res
		}
	}
	return out
}
