package conformance

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A rootCause is a scenario whose failure kept clauses of other scenarios
// from being judged: the text report shows it first, once, with the ids
// it blocks, and each blocked row in one line.
type rootCause struct {
	id      string
	blocks  []string       // the other scenarios it blocked, in report order
	reasons []string       // why, as the blocked clauses say it, distinct
	count   map[string]int // scenarios per reason
}

// rootCauses are the scenarios that block others, those that block most
// first. A scenario blocking only its own later clauses is no root cause.
func (r *Report) rootCauses() []*rootCause {
	byID := map[string]*rootCause{}
	var out []*rootCause
	for _, row := range r.Rows {
		if row.Result == nil {
			continue
		}
		seen := map[string]bool{}
		for _, c := range row.Result.Clauses {
			if c.Outcome != NotExercised || c.BlockedBy == "" || c.BlockedBy == row.ID {
				continue
			}
			rc := byID[c.BlockedBy]
			if rc == nil {
				rc = &rootCause{id: c.BlockedBy, count: map[string]int{}}
				byID[c.BlockedBy] = rc
				out = append(out, rc)
			}
			if !seen[c.BlockedBy] {
				seen[c.BlockedBy] = true
				rc.blocks = append(rc.blocks, row.ID)
			}
			if !seen[c.BlockedBy+"\x00"+c.Reason] {
				seen[c.BlockedBy+"\x00"+c.Reason] = true
				if rc.count[c.Reason] == 0 {
					rc.reasons = append(rc.reasons, c.Reason)
				}
				rc.count[c.Reason]++
			}
		}
	}
	for _, rc := range out {
		slices.SortStableFunc(rc.reasons, func(a, b string) int { return cmp.Compare(rc.count[b], rc.count[a]) })
	}
	slices.SortStableFunc(out, func(a, b *rootCause) int { return cmp.Compare(len(b.blocks), len(a.blocks)) })
	return out
}

// blockedOnly reports a row whose check found nothing wrong but was kept
// from judging by other scenarios: every clause it could not judge was
// blocked by one. The report gives it one line.
func blockedOnly(row Row) bool {
	res := row.Result
	if res == nil || res.Verdict != Skip && res.Verdict != Partial {
		return false
	}
	blocked := 0
	for _, c := range res.Clauses {
		switch {
		case c.Outcome == Broken:
			return false
		case c.Outcome != NotExercised:
		case c.BlockedBy == "" || c.BlockedBy == row.ID:
			return false
		default:
			blocked++
		}
	}
	return blocked > 0
}

// blockedLine is a blocked-only row's one line: which clauses, by what.
func blockedLine(row Row) string {
	var keys, by []string
	for _, c := range row.Result.Clauses {
		if c.Outcome == NotExercised {
			keys = append(keys, c.Key)
			if !slices.Contains(by, c.BlockedBy) {
				by = append(by, c.BlockedBy)
			}
		}
	}
	if row.Result.Verdict == Skip {
		return "blocked by " + strings.Join(by, ", ")
	}
	return strings.Join(keys, ", ") + " blocked by " + strings.Join(by, ", ")
}

// writeRootCauses prints the root causes, each scenario's own row in
// full under it, and returns the ids it printed.
func (r *Report) writeRootCauses(p *textPrinter, causes []*rootCause) map[string]bool {
	shown := map[string]bool{}
	if len(causes) == 0 {
		return shown
	}
	blocked := map[string]bool{}
	for _, rc := range causes {
		for _, id := range rc.blocks {
			blocked[id] = true
		}
	}
	p.blank()
	p.wrap(0, fmt.Sprintf("Root causes: %s kept %d other scenarios from being judged; fix these first", plural(len(causes), "scenario"), len(blocked)))
	const in = 13
	for _, rc := range causes {
		lead := []string{fmt.Sprintf("blocks %d: %s", len(rc.blocks), strings.Join(rc.blocks, " "))}
		for j, why := range rc.reasons {
			if j == maxShown && !p.verbose {
				lead = append(lead, fmt.Sprintf("… %s more (--verbose shows them)", plural(len(rc.reasons)-j, "reason")))
				break
			}
			why = fmt.Sprintf("because (%s): %s", plural(rc.count[why], "scenario"), why)
			if !p.verbose {
				why = cutTo(why, p.width-in)
			}
			lead = append(lead, why)
		}
		i := slices.IndexFunc(r.Rows, func(row Row) bool { return row.ID == rc.id })
		if i < 0 || r.Rows[i].Result == nil {
			p.line(2, rc.id+"  (not judged in this run)")
			for _, l := range lead {
				p.wrap(in, l)
			}
			continue
		}
		r.writeBudgeted(p, r.Rows[i], lead...)
		shown[rc.id] = true
	}
	return shown
}

// maxTextLines bounds the default text report: a broken adapter's report
// stays readable, its root causes first. --verbose prints everything.
const maxTextLines = 150

// writeBudgeted writes a row in full when its details fit what is left of
// the printer's budget, else compactly: its head and one line per failed
// clause.
func (r *Report) writeBudgeted(p *textPrinter, row Row, lead ...string) {
	var buf bytes.Buffer
	sub := *p
	sub.w = &buf
	r.writeRow(&sub, row, rowFull, lead...)
	extra := bytes.Count(buf.Bytes(), []byte("\n")) - 1
	if p.budget >= 0 && extra > p.budget-p.detail {
		buf.Reset()
		r.writeRow(&sub, row, rowCompact, lead...)
		extra = bytes.Count(buf.Bytes(), []byte("\n")) - 1
	}
	p.detail += extra
	_, _ = p.w.Write(buf.Bytes())
}

// maxShown bounds, without --verbose, the failures and calls shown per
// clause, and the reasons per root cause; maxMessageLines the lines of
// one failure.
const (
	maxShown        = 3
	maxMessageLines = 5
)

// A rowStyle is how much of a row the text report prints.
type rowStyle int

const (
	rowFull     rowStyle = iota
	rowOneLine           // the head and one reason: a row blocked by a root cause, or a consequence of a target gone down
	rowSeeAbove          // a root cause, printed in full above
	rowCompact           // the head and one line per failed clause: past the report's bound
)

// styleOf is how the report prints a row that has a result.
func (r *Report) styleOf(row Row, shown map[string]bool) rowStyle {
	switch {
	case r.Verbose:
		return rowFull
	case shown[row.ID]:
		return rowSeeAbove
	case blockedOnly(row):
		return rowOneLine
	case row.Result.Verdict == Error && r.TargetError != nil:
		return rowOneLine
	}
	return rowFull
}

// counted are distinct strings in first-seen order, each with how often
// it came.
func counted(ss []string) ([]string, map[string]int) {
	n := map[string]int{}
	var out []string
	for _, s := range ss {
		if n[s] == 0 {
			out = append(out, s)
		}
		n[s]++
	}
	return out, n
}

func times(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (×%d)", n)
	}
	return ""
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
