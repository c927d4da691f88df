package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// A ComparisonRow is one figure of every target, side by side.
type ComparisonRow struct {
	Tool   string `json:"tool"` // a call of the plan, "journey" or "tools/list"
	Figure string `json:"figure"`
	Unit   string `json:"unit"` // ms, calls/s, bytes or tokens
	// Values has one entry per target, in the run's order; null where the
	// target has no such figure.
	Values []*float64 `json:"values"`
	// Ratios are each later target's value over the first's.
	Ratios []*float64 `json:"ratios_to_first"`
}

// Compare fills the run's comparison when it holds more than one target.
func (r *Run) Compare() {
	if len(r.Targets) > 1 {
		r.Comparison = r.comparison()
	}
}

// A costFigure reads one figure of a Cost.
type costFigure struct {
	name, unit string
	of         func(Cost) int
}

var costFigures = []costFigure{
	{"text B", "bytes", func(c Cost) int { return c.TextBytes }},
	{"text tokens", "tokens", func(c Cost) int { return c.TextTokens }},
	{"structured B", "bytes", func(c Cost) int { return c.StructuredBytes }},
	{"structured tokens", "tokens", func(c Cost) int { return c.StructuredTokens }},
	{"bounded structured B", "bytes", func(c Cost) int { return c.BoundedBytes }},
	{"bounded structured tokens", "tokens", func(c Cost) int { return c.BoundedTokens }},
}

func (r *Run) comparison() []ComparisonRow {
	var rows []ComparisonRow
	add := func(tool, fig, unit string, of func(Report) (float64, bool)) {
		row := ComparisonRow{Tool: tool, Figure: fig, Unit: unit}
		for _, rep := range r.Targets {
			if v, ok := of(rep); ok {
				row.Values = append(row.Values, &v)
			} else {
				row.Values = append(row.Values, nil)
			}
		}
		for _, v := range row.Values[1:] {
			var q *float64
			if v != nil && row.Values[0] != nil && *row.Values[0] != 0 {
				x := *v / *row.Values[0]
				q = &x
			}
			row.Ratios = append(row.Ratios, q)
		}
		rows = append(rows, row)
	}
	last := r.Options.Concurrency[len(r.Options.Concurrency)-1]
	durations := []struct {
		name string
		of   func(*ToolResult) (time.Duration, bool)
	}{
		{"p50 ms", func(t *ToolResult) (time.Duration, bool) { return t.Latency.P50, true }},
		{"p99 ms", func(t *ToolResult) (time.Duration, bool) { return t.Latency.P99, true }},
		{"overhead p50 ms", func(t *ToolResult) (time.Duration, bool) {
			if t.Overhead == nil {
				return 0, false
			}
			return t.Overhead.P50, true
		}},
	}
	for _, name := range toolOrder(r.Targets) {
		measured := func(rep Report) (*ToolResult, bool) {
			t := rep.tool(name)
			return t, t != nil && t.Error == ""
		}
		for _, d := range durations {
			add(name, d.name, "ms", func(rep Report) (float64, bool) {
				t, ok := measured(rep)
				if !ok {
					return 0, false
				}
				v, ok := d.of(t)
				return float64(v) / float64(time.Millisecond), ok
			})
		}
		add(name, fmt.Sprintf("c=%d calls/s", last), "calls/s", func(rep Report) (float64, bool) {
			t, ok := measured(rep)
			if !ok || len(t.Throughput) == 0 {
				return 0, false
			}
			return t.Throughput[len(t.Throughput)-1].PerSecond, true
		})
		for _, f := range costFigures {
			add(name, f.name, f.unit, func(rep Report) (float64, bool) {
				t, ok := measured(rep)
				if !ok || t.Cost == nil {
					return 0, false
				}
				return float64(f.of(*t.Cost)), true
			})
		}
	}
	for _, f := range costFigures {
		add("journey", f.name, f.unit, func(rep Report) (float64, bool) {
			if rep.Journey == nil || rep.Journey.Error != "" {
				return 0, false
			}
			return float64(f.of(rep.Journey.Total)), true
		})
	}
	add("tools/list", "bytes", "bytes", func(rep Report) (float64, bool) {
		if rep.Footprint == nil {
			return 0, false
		}
		return float64(rep.Footprint.TotalBytes), true
	})
	return rows
}

func formatFigure(v *float64, unit string) string {
	switch {
	case v == nil:
		return "-"
	case unit == "ms":
		return ms(time.Duration(*v * float64(time.Millisecond)))
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

// transport names how the report's figures were measured.
func (rep *Report) transport() Transport {
	if rep.Transport == "" {
		return TransportHTTP
	}
	return rep.Transport
}

// writeCosts prints what each call's answer, and the journey, put in
// front of a model.
func (rep *Report) writeCosts(w io.Writer) {
	measured := rep.Journey != nil && len(rep.Journey.Steps) > 0
	for _, t := range rep.Tools {
		measured = measured || t.Cost != nil
	}
	if !measured {
		return
	}
	head := "\ttext B\ttext tokens\tstructured B\tstructured tokens\tbounded structured B\tbounded tokens\t"
	row := func(c Cost) string {
		return fmt.Sprintf("\t%d\t%d\t%d\t%d\t%d\t%d\t", c.TextBytes, c.TextTokens, c.StructuredBytes, c.StructuredTokens, c.BoundedBytes, c.BoundedTokens)
	}
	fmt.Fprintf(w, "  result cost (content[] text and structuredContent as received, o200k tokens; bounded: strings over %d chars as %d-char truncation descriptors):\n",
		DefaultBound.MaxChars, DefaultBound.PreviewChars)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  call"+head)
	for _, t := range rep.Tools {
		if t.Cost != nil {
			fmt.Fprintln(tw, "  "+t.Tool+row(*t.Cost))
		}
	}
	if j := rep.Journey; j != nil && len(j.Steps) > 0 {
		fmt.Fprintln(tw, "  journey"+row(j.Total))
	}
	_ = tw.Flush()
	j := rep.Journey
	if j == nil {
		return
	}
	fmt.Fprintln(w, "  journey (arguments from the target's own answers):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  step\targs"+head)
	for _, s := range j.Steps {
		args, _ := json.Marshal(s.Args)
		fmt.Fprintln(tw, "  "+s.Step+"\t"+termsafe.Line(string(args))+row(s.Cost))
	}
	fmt.Fprintln(tw, "  journey total\t"+row(j.Total))
	_ = tw.Flush()
	if j.Error != "" {
		fmt.Fprintf(w, "  journey stopped: %s\n", termsafe.Line(j.Error))
	}
}
