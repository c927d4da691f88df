package conformance

import "slices"

// A ModeScope is what a run lacks by design, not because of the target:
// --rs real replaces mcpcheck's fixture RS, with its control plane, by the
// real one. A scenario left unjudged only for want of those capabilities
// is outside the run's scope: the report lists it, and it does not make
// the run incomplete (exit 3). A run without the mode judges it.
type ModeScope struct {
	Mode  string       `json:"mode"`
	Lacks []Capability `json:"lacks"`
	Why   string       `json:"why"`
	// Scenarios are the skipped or partly exercised scenarios whose every
	// unjudged clause waits only on what the mode lacks.
	Scenarios []string `json:"scenarios"`
}

// scope is the mode scope of a run reading x: nil for a fixture RS.
func (x *ExternalRS) scope() *ModeScope {
	if x == nil {
		return nil
	}
	return &ModeScope{Mode: "--rs real", Lacks: []Capability{CapControlledRS, CapFixture},
		Why: "the adapter reads " + x.Name + ", which mcpcheck neither serves nor controls: no request log, no fault injection, no other fixture"}
}

// outside says whether res is unjudged only for want of what s lacks.
func (s *ModeScope) outside(res *Result) bool {
	if s == nil || res == nil || res.Verdict != Skip && res.Verdict != Partial {
		return false
	}
	if len(res.Clauses) == 0 {
		return slices.Contains(s.Lacks, res.Needs)
	}
	open := 0
	for _, c := range res.Clauses {
		if c.Outcome != NotExercised {
			continue
		}
		if !slices.Contains(s.Lacks, c.Needs) {
			return false
		}
		open++
	}
	return open > 0
}
