package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// WriteText prints each target's table, then a side-by-side comparison
// when the run holds more than one target.
func (r *Run) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s bench, %s, %d CPUs; %d paired samples per tool, %s per concurrency level\n",
		r.Tool, r.GoVersion, r.CPUs, r.Options.Samples, durationOf(r.Options.DurationNS))
	for i, rep := range r.Targets {
		fmt.Fprintf(w, "\n[%d] %s; every figure over %s\n", i+1, termsafe.Line(rep.Target), rep.transport())
		rep.writeText(w, r.Options.Concurrency)
	}
	if len(r.Targets) > 1 {
		r.writeComparison(w)
	}
}

func (rep *Report) writeText(w io.Writer, levels []int) {
	if rep.Error != "" {
		fmt.Fprintf(w, "  not measured: %s\n", termsafe.Line(rep.Error))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "tool\tp50 ms\tp95 ms\tp99 ms\tRS calls\tdirect p50\toverhead p50\toverhead p99"
	for _, n := range levels {
		head += fmt.Sprintf("\tc=%d calls/s", n)
	}
	fmt.Fprintln(tw, head+"\terrors\t")
	var failed []string
	for _, t := range rep.Tools {
		if t.Error != "" {
			failed = append(failed, termsafe.Line(t.Tool+": "+conformance.FirstLine(t.Error)))
			continue
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s", t.Tool, ms(t.Latency.P50), ms(t.Latency.P95), ms(t.Latency.P99))
		if t.Direct != nil {
			row += fmt.Sprintf("\t%d\t%s\t%s\t%s", t.RSRequests, ms(t.Direct.P50), ms(t.Overhead.P50), ms(t.Overhead.P99))
		} else {
			row += "\t-\t-\t-\t-"
		}
		errs := 0
		for _, l := range t.Throughput {
			row += fmt.Sprintf("\t%.0f", l.PerSecond)
			errs += l.Errors
		}
		fmt.Fprintf(tw, "%s\t%d\t\n", row, errs)
	}
	_ = tw.Flush()
	for _, f := range failed {
		fmt.Fprintf(w, "  error: %s\n", f)
	}
	rep.writeCPU(w)
	rep.writeCosts(w)
	if rep.PeakRSS > 0 {
		fmt.Fprintf(w, "  peak RSS of the adapter process: %.1f MiB (VmHWM after the load)\n", float64(rep.PeakRSS)/(1<<20))
	}
	if s := rep.Startup; s != nil {
		fmt.Fprintf(w, "  stdio start to answered initialize: p50 %s ms, p95 %s ms, max %s ms (%d starts)\n", ms(s.P50), ms(s.P95), ms(s.Max), s.N)
	}
	if s := rep.ScaleSchema; s != nil {
		fmt.Fprintf(w, "  compact schema on %s over %s: %d B, %d o200k tokens of text; p50 %s ms, p95 %s ms\n",
			s.Fixture, s.Transport, s.Bytes, s.Tokens, ms(s.Latency.P50), ms(s.Latency.P95))
	}
	if rep.Footprint != nil {
		fmt.Fprintln(w, "  footprint (tools/list as received):")
		var b strings.Builder
		rep.Footprint.WriteTable(&b)
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprintln(w, "  "+line)
		}
	}
	rep.writeGoals(w)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  not measured: %s\n", termsafe.Line(n))
	}
}

// writeCPU prints where the CPU went at the highest concurrency.
func (rep *Report) writeCPU(w io.Writer) {
	var parts []string
	for _, t := range rep.Tools {
		if len(t.Throughput) == 0 {
			continue
		}
		l := t.Throughput[len(t.Throughput)-1]
		if l.AdapterCPU > 0 {
			parts = append(parts, fmt.Sprintf("%s %s/%s", t.Tool, us(l.AdapterCPU), us(l.HarnessCPU)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  CPU µs per call at the highest concurrency, adapter/mcpcheck (load generator and RS): %s\n", strings.Join(parts, ", "))
	}
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond)) }

// writeComparison puts the headline figures of every target side by
// side, each column labelled with its transport, and each later target's
// figure as a ratio to the first's.
func (r *Run) writeComparison(w io.Writer) {
	fmt.Fprintln(w, "\nComparison")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "tool\tfigure"
	for i, rep := range r.Targets {
		head += fmt.Sprintf("\t[%d] %s", i+1, rep.transport())
	}
	for i := 1; i < len(r.Targets); i++ {
		head += fmt.Sprintf("\t[%d]/[1]", i+1)
	}
	fmt.Fprintln(tw, head+"\t")
	for _, row := range r.comparison() {
		line := row.Tool + "\t" + row.Figure
		for _, v := range row.Values {
			line += "\t" + formatFigure(v, row.Unit)
		}
		for _, q := range row.Ratios {
			if q == nil {
				line += "\t-"
			} else {
				line += fmt.Sprintf("\t%.2f×", *q)
			}
		}
		fmt.Fprintln(tw, line+"\t")
	}
	_ = tw.Flush()
}

func (rep *Report) tool(name string) *ToolResult {
	for i := range rep.Tools {
		if rep.Tools[i].Tool == name {
			return &rep.Tools[i]
		}
	}
	return nil
}

func toolOrder(reps []Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, rep := range reps {
		for _, t := range rep.Tools {
			if !seen[t.Tool] {
				seen[t.Tool] = true
				out = append(out, t.Tool)
			}
		}
	}
	return out
}

func durationOf(ns int64) string {
	return fmt.Sprint(time.Duration(ns))
}

// A Goal is one of the reference adapter's performance targets (issue 10),
// judged on a report.
type Goal struct {
	Name     string `json:"name"`
	Want     string `json:"want"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// judge measures a report against the reference adapter's targets. Figures
// the report lacks (a --url target has no RSS) are left out.
func (rep *Report) judge() []Goal {
	var out []Goal
	add := func(name, want, measured string, met bool) {
		out = append(out, Goal{name, want, measured, met})
	}
	for _, t := range rep.Tools {
		if t.Overhead == nil || strings.Contains(t.Tool, " ") { // labelled extra calls are informational
			continue
		}
		add(t.Tool+" overhead", "p50 ≤ 1 ms, p99 ≤ 5 ms", fmt.Sprintf("p50 %s ms, p99 %s ms", ms(t.Overhead.P50), ms(t.Overhead.P99)),
			t.Overhead.P50 <= time.Millisecond && t.Overhead.P99 <= 5*time.Millisecond)
	}
	if t := rep.tool("search"); t != nil && len(t.Throughput) > 0 {
		l := t.Throughput[len(t.Throughput)-1]
		if l.Concurrency == 64 {
			add("search throughput at c=64", "≥ 5,000 calls/s", fmt.Sprintf("%.0f calls/s", l.PerSecond), l.PerSecond >= 5000)
		}
	}
	if rep.PeakRSS > 0 {
		add("peak RSS under load", "≤ 64 MiB", fmt.Sprintf("%.1f MiB", float64(rep.PeakRSS)/(1<<20)), rep.PeakRSS <= 64<<20)
	}
	if s := rep.Startup; s != nil {
		add("stdio start to initialize", "≤ 50 ms", ms(s.P50)+" ms (p50)", s.P50 <= 50*time.Millisecond)
	}
	if s := rep.ScaleSchema; s != nil && s.Fixture == DefaultScale {
		add("compact schema, 50×20×30", "≤ 50 ms", ms(s.Latency.P50)+" ms (p50)", s.Latency.P50 <= 50*time.Millisecond)
	}
	if f := rep.Footprint; f != nil {
		add("tools/list footprint", "≤ 8,192 B and ≤ 2,000 tokens", fmt.Sprintf("%d B, %d tokens", f.TotalBytes, f.TotalTokens), f.TotalBytes <= 8192 && f.TotalTokens <= 2000)
	}
	return out
}

func (rep *Report) writeGoals(w io.Writer) {
	goals := rep.Goals
	if len(goals) == 0 {
		return
	}
	fmt.Fprintln(w, "  targets for the reference adapter (issue 10):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range goals {
		mark := "met"
		if !g.Met {
			mark = "MISSED"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", mark, g.Name, g.Want, g.Measured)
	}
	_ = tw.Flush()
}
