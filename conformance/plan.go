package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A Planned row is what a run would do with one selected scenario on a
// target: run its check, skip it (the target lacks a capability), judge it
// not applicable, or leave it to its manual proxy.
type Planned struct {
	Entry  Entry
	Action string // "run", "skip", "n/a" or "manual"
	Reason string
}

// Plan selects entries as Run would, opens the target to learn what it
// serves and can do, and says what would happen to each, without running
// any check.
func Plan(ctx context.Context, cfg Config) ([]Planned, *Applicability, error) {
	if len(cfg.Entries) == 0 {
		return nil, nil, errors.New("conformance.Plan: no registry entries")
	}
	entries, err := cfg.selected()
	if err != nil {
		return nil, nil, err
	}
	settings, err := LoadSettings(cfg.BudgetBytes)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Target.Redactor == nil {
		cfg.Target.Redactor = NewRedactor()
	}
	tgt, err := Open(ctx, cfg.Target)
	if err != nil {
		return nil, nil, err
	}
	defer tgt.Close()
	app := Applicable(tgt, settings.Surface)
	out := make([]Planned, 0, len(entries))
	for _, e := range entries {
		p := Planned{Entry: e, Action: "run"}
		switch {
		case e.Check == nil:
			p.Action, p.Reason = string(e.Status), e.Reason
		case app.NotAdapter():
			p.Action, p.Reason = "n/a", app.Summary()
		case tgt.notApplicable(e.Check, settings) != "":
			p.Action, p.Reason = "n/a", tgt.notApplicable(e.Check, settings)
		default:
			for _, need := range e.Check.Needs {
				if !tgt.Has(need) {
					p.Action, p.Reason = "skip", need.SkipReason()
					break
				}
			}
		}
		out = append(out, p)
	}
	return out, app, nil
}

// WritePlan prints a plan: one line per scenario with its level, action
// and labels.
func WritePlan(w io.Writer, plan []Planned) {
	p := textPrinter{w: w, width: TextWidth}
	for _, pl := range plan {
		line := fmt.Sprintf("%-7s %-40s %-11s %s", pl.Action, pl.Entry.Scenario.Name(), pl.Entry.Scenario.Level, strings.Join(pl.Entry.Labels()[1:], " "))
		if pl.Reason != "" {
			line += "  (" + pl.Reason + ")"
		}
		p.wrap(0, line)
	}
}
