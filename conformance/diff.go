package conformance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

// A ReportDiff is what changed between two runs' JSON reports.
type ReportDiff struct {
	Regressions []Change        `json:"regressions"` // a scenario or clause judged worse
	Fixes       []Change        `json:"fixes"`       // judged better
	Changed     []Change        `json:"changed"`     // neither: pass to n/a, say, or a scenario added or removed
	Footprint   []FootprintDiff `json:"footprint,omitempty"`
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
	return d
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
	if len(d.Footprint) > 0 {
		p.line(0, "Footprint (bytes, o200k tokens):")
		for _, f := range d.Footprint {
			p.line(2, fmt.Sprintf("%-20s %6d → %6d B (%+d)   %5d → %5d tokens (%+d)", f.Tool, f.OldBytes, f.NewBytes, f.NewBytes-f.OldBytes, f.OldTokens, f.NewTokens, f.NewTokens-f.OldTokens))
		}
		p.blank()
	}
	p.line(0, fmt.Sprintf("%d regressions, %d fixes, %d other changes", len(d.Regressions), len(d.Fixes), len(d.Changed)))
}
