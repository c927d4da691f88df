package conformance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
)

// A ReportDiff is what changed between two runs' JSON reports.
type ReportDiff struct {
	Regressions []Change        `json:"regressions"` // a scenario or clause judged worse
	Fixes       []Change        `json:"fixes"`       // judged better
	Changed     []Change        `json:"changed"`     // neither: pass to n/a, say, or a scenario added or removed
	Footprint   []FootprintDiff `json:"footprint,omitempty"`
	// ToolChanges classify each tool's change as --golden-dir does: a
	// breaking one (tool removed, argument removed, newly required or of
	// another type) is a regression.
	ToolChanges []ToolChange `json:"tool_changes,omitempty"`
	// Unclassified says why tool changes could not be classified (a
	// report from an mcpcheck that kept no tool definitions), else "".
	Unclassified string `json:"unclassified,omitempty"`
}

// Regressed reports whether anything got worse: a verdict, or a tool in
// a way that breaks clients.
func (d ReportDiff) Regressed() bool {
	return len(d.Regressions) > 0 || slices.ContainsFunc(d.ToolChanges, func(c ToolChange) bool { return c.Breaking })
}

// A NoFootprintError refuses to compare a report without a footprint:
// written with --no-footprint, or against a target that could not be
// reached. Its tool changes would read as none.
type NoFootprintError struct{ Path string }

func (e *NoFootprintError) Error() string {
	return e.Path + " has no footprint (written with --no-footprint, or the target was unreachable); " +
		"diff compares tools too: write both reports without --no-footprint"
}

// A Change is one scenario or clause whose verdict moved.
type Change struct {
	Key      string `json:"key"` // "S029" or "S029.2"
	Old, New string
	Text     string `json:"text,omitempty"`
}

// A FootprintDiff is one tool's (or the total's) footprint in both runs.
type FootprintDiff struct {
	Tool                 string `json:"tool"`
	OldBytes, NewBytes   int
	OldTokens, NewTokens int
}

// verdictRank orders verdicts from worst to best; n/a and manual stand
// apart: moving to or from them is a change, not a regression.
var verdictRank = map[string]int{"fail": 0, "error": 1, "skip": 2, "not-exercised": 2, "partial": 3, "pass": 4}

// ReadReport reads a JSON report of this schema version.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := ValidateReportJSON(data); err != nil {
		return nil, &UsageError{fmt.Sprintf("%s: %v", path, err)}
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, &UsageError{fmt.Sprintf("%s: %v", path, err)}
	}
	return &r, nil
}

// ReadReportToDiff reads a JSON report for [Diff], which needs its
// footprint: one without is a [*NoFootprintError].
func ReadReportToDiff(path string) (*Report, error) {
	r, err := ReadReport(path)
	if err == nil && r.Footprint == nil {
		err = &NoFootprintError{Path: path}
	}
	return r, err
}

// Diff compares two reports, scenario by scenario and clause by clause.
func Diff(old, new *Report) ReportDiff {
	var d ReportDiff
	olds, news := verdictsOf(old), verdictsOf(new)
	keys := map[string]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	for _, k := range SortedIDs(keys) {
		o, n := olds[k], news[k]
		if o.verdict == n.verdict {
			continue
		}
		c := Change{Key: k, Old: orNone(o.verdict), New: orNone(n.verdict), Text: cmp.Or(n.text, o.text)}
		ro, okO := verdictRank[o.verdict]
		rn, okN := verdictRank[n.verdict]
		switch {
		case okO && okN && rn < ro:
			d.Regressions = append(d.Regressions, c)
		case okO && okN && rn > ro:
			d.Fixes = append(d.Fixes, c)
		default:
			d.Changed = append(d.Changed, c)
		}
	}
	d.Footprint = footprintDiff(old.Footprint, new.Footprint)
	d.ToolChanges, d.Unclassified = toolChanges(old.Footprint, new.Footprint)
	return d
}

// toolChanges classifies the change of each tool between two footprints
// with the golden classifier, or says why it cannot.
func toolChanges(old, new *Footprint) ([]ToolChange, string) {
	if old == nil || new == nil {
		return nil, ""
	}
	defs := func(fp *Footprint) ([]byte, bool) {
		list := make([]any, 0, len(fp.Tools))
		for _, t := range fp.Tools {
			if t.Definition == nil {
				return nil, false
			}
			list = append(list, t.Definition)
		}
		raw, err := json.Marshal(list)
		return raw, err == nil
	}
	o, okO := defs(old)
	n, okN := defs(new)
	if !okO || !okN {
		return nil, "a report holds no tool definitions (written by an older mcpcheck): tool changes are not classified"
	}
	return classifyToolChanges(o, n), ""
}

type judged struct{ verdict, text string }

// verdictsOf maps each scenario id and clause key to its verdict.
func verdictsOf(r *Report) map[string]judged {
	out := map[string]judged{}
	for _, row := range r.Rows {
		if row.Result == nil {
			out[row.ID] = judged{verdict: string(row.Status)}
			continue
		}
		out[row.ID] = judged{verdict: string(row.Result.Verdict), text: row.Title}
		for _, c := range row.Result.Clauses {
			out[c.Key] = judged{verdict: string(c.Outcome), text: c.Text}
		}
	}
	return out
}

func orNone(v string) string {
	if v == "" {
		return "(absent)"
	}
	return v
}

func footprintDiff(old, new *Footprint) []FootprintDiff {
	if old == nil || new == nil {
		return nil
	}
	byTool := map[string]*FootprintDiff{}
	get := func(name string) *FootprintDiff {
		if byTool[name] == nil {
			byTool[name] = &FootprintDiff{Tool: name}
		}
		return byTool[name]
	}
	for _, t := range old.Tools {
		f := get(t.Name)
		f.OldBytes, f.OldTokens = t.Bytes, t.Tokens
	}
	for _, t := range new.Tools {
		f := get(t.Name)
		f.NewBytes, f.NewTokens = t.Bytes, t.Tokens
	}
	var out []FootprintDiff
	for _, f := range byTool {
		if f.OldBytes != f.NewBytes || f.OldTokens != f.NewTokens {
			out = append(out, *f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	total := FootprintDiff{Tool: "tools/list total", OldBytes: old.TotalBytes, NewBytes: new.TotalBytes, OldTokens: old.TotalTokens, NewTokens: new.TotalTokens}
	if total.OldBytes != total.NewBytes || total.OldTokens != total.NewTokens {
		out = append(out, total)
	}
	return out
}

// WriteText prints the diff: regressions first.
func (d ReportDiff) WriteText(w io.Writer) {
	p := textPrinter{w: w, width: TextWidth}
	section := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		p.line(0, fmt.Sprintf("%s (%d):", title, len(cs)))
		for _, c := range cs {
			p.wrap(2, fmt.Sprintf("%-8s %s → %s  %s", c.Key, c.Old, c.New, c.Text))
		}
		p.blank()
	}
	section("Regressions", d.Regressions)
	section("Fixes", d.Fixes)
	section("Other changes", d.Changed)
	if len(d.ToolChanges) > 0 {
		p.line(0, fmt.Sprintf("Tool changes (%d):", len(d.ToolChanges)))
		for _, c := range d.ToolChanges {
			kind := "non-breaking"
			if c.Breaking {
				kind = "BREAKING"
			}
			p.wrap(2, fmt.Sprintf("%-12s %s: %s", kind, c.Tool, c.What))
		}
		p.blank()
	}
	if d.Unclassified != "" {
		p.wrap(0, "NOTE: "+d.Unclassified)
		p.blank()
	}
	if len(d.Footprint) > 0 {
		p.line(0, "Footprint (bytes, o200k tokens):")
		for _, f := range d.Footprint {
			p.line(2, fmt.Sprintf("%-20s %6d → %6d B (%+d)   %5d → %5d tokens (%+d)", f.Tool, f.OldBytes, f.NewBytes, f.NewBytes-f.OldBytes, f.OldTokens, f.NewTokens, f.NewTokens-f.OldTokens))
		}
		p.blank()
	}
	breaking := 0
	for _, c := range d.ToolChanges {
		if c.Breaking {
			breaking++
		}
	}
	p.line(0, fmt.Sprintf("%d regressions, %d fixes, %d other changes, %d breaking tool changes", len(d.Regressions), len(d.Fixes), len(d.Changed), breaking))
}
