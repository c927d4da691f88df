package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// TestMain doubles as the reference adapter when asked, so the stdio and
// child-process paths run without building a binary.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCHECK_BENCH_AS_ADAPTER") != "" {
		os.Exit(reference.Main(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// quick keeps every phase short: these tests prove the figures exist and
// are labelled, not how fast anything is.
func quick() Options {
	return Options{Samples: 5, Warmup: 2, Duration: 50 * time.Millisecond, Concurrency: []int{1, 4}, StartupRuns: 2, Scale: "scale:3,2,4,1"}
}

func asAdapter(t *testing.T) []string {
	t.Setenv("MCPCHECK_BENCH_AS_ADAPTER", "1")
	return []string{os.Args[0]}
}

func requireFigures(t *testing.T, rep Report, overhead bool) {
	t.Helper()
	if rep.Error != "" {
		t.Fatalf("target not measured: %s", rep.Error)
	}
	if len(rep.Tools) != 7 {
		t.Fatalf("measured %d calls, want 7; notes %v", len(rep.Tools), rep.Notes)
	}
	for _, tr := range rep.Tools {
		if tr.Error != "" {
			t.Fatalf("%s: %s", tr.Tool, tr.Error)
		}
		if tr.Latency.N != 5 || tr.Latency.P50 <= 0 || tr.Latency.P99 < tr.Latency.P50 {
			t.Errorf("%s latency %+v", tr.Tool, tr.Latency)
		}
		if overhead != (tr.Overhead != nil) {
			t.Errorf("%s: overhead present=%v, want %v", tr.Tool, tr.Overhead != nil, overhead)
		}
		if overhead && tr.RSRequests == 0 {
			t.Errorf("%s made no RS request", tr.Tool)
		}
		if len(tr.Throughput) != 2 || tr.Throughput[1].Concurrency != 4 || tr.Throughput[0].Calls == 0 || tr.Throughput[1].Errors != 0 {
			t.Errorf("%s throughput %+v", tr.Tool, tr.Throughput)
		}
	}
	if rep.Footprint == nil || rep.Footprint.TotalBytes == 0 {
		t.Error("no footprint")
	}
	requireCosts(t, rep)
}

// requireCosts checks that every call and the journey carry what their
// answers cost: text and structuredContent, bytes and tokens.
func requireCosts(t *testing.T, rep Report) {
	t.Helper()
	for _, tr := range rep.Tools {
		if c := tr.Cost; c == nil || c.TextBytes == 0 || c.TextTokens == 0 || c.StructuredBytes == 0 || c.StructuredTokens == 0 || c.BoundedBytes > c.StructuredBytes {
			t.Errorf("%s cost %+v", tr.Tool, tr.Cost)
		}
	}
	if big := rep.tool("fetch 60KB"); big != nil && big.Cost != nil && (big.Cost.BoundedFields == 0 || big.Cost.BoundedBytes*4 > big.Cost.StructuredBytes) {
		t.Errorf("the 60 KB fetch's structuredContent was not bounded: %+v", big.Cost)
	}
	j := rep.Journey
	if j == nil || j.Error != "" {
		t.Fatalf("journey %+v", j)
	}
	var steps []string
	var sum Cost
	for _, s := range j.Steps {
		steps = append(steps, s.Step)
		sum.add(s.Cost)
	}
	if want := "schema schema(stream) search fetch read_record_field aggregate"; strings.Join(steps, " ") != want {
		t.Errorf("journey steps %q, want %q", steps, want)
	}
	if sum != j.Total || j.Total.TextTokens == 0 || j.Total.StructuredTokens == 0 {
		t.Errorf("journey total %+v, steps sum to %+v", j.Total, sum)
	}
}

func TestReferenceAsChildProcess(t *testing.T) {
	o := quick()
	o.Reference = asAdapter(t)
	rep := Measure(context.Background(), referenceSpec(t), o)
	requireFigures(t, rep, true)
	if !strings.Contains(rep.Target, "child process") {
		t.Errorf("target %q", rep.Target)
	}
	if rep.PeakRSS < 1<<20 {
		t.Errorf("peak RSS %d", rep.PeakRSS)
	}
	if rep.Startup == nil || rep.Startup.N != 2 || rep.Startup.P50 <= 0 {
		t.Errorf("startup %+v", rep.Startup)
	}
	if s := rep.ScaleSchema; s == nil || s.Bytes == 0 || s.Tokens == 0 || s.Fixture != "scale:3,2,4,1" || s.Transport != TransportStdio {
		t.Errorf("scale schema %+v (notes %v)", s, rep.Notes)
	}
}

// Compared with a stdio adapter, the reference runs over stdio too, and
// says so.
func TestReferenceOverStdio(t *testing.T) {
	o := quick()
	o.Reference, o.ReferenceTransport = asAdapter(t), TransportStdio
	rep := Measure(context.Background(), referenceSpec(t), o)
	requireFigures(t, rep, true)
	if rep.Transport != TransportStdio || !strings.Contains(rep.Target, "over stdio") {
		t.Errorf("transport %q, target %q", rep.Transport, rep.Target)
	}
	if rep.PeakRSS == 0 || rep.Startup == nil {
		t.Errorf("no RSS or startup: %v", rep.Notes)
	}
	o.Reference = nil
	if rep := Measure(context.Background(), referenceSpec(t), o); !strings.Contains(rep.Error, "HTTP only") {
		t.Errorf("in process over stdio: %q", rep.Error)
	}
}

func TestStdioTarget(t *testing.T) {
	o := quick()
	rep := Measure(context.Background(), conformance.TargetSpec{Stdio: strings.Join(asAdapter(t), " ")}, o)
	requireFigures(t, rep, true)
	if rep.PeakRSS == 0 || rep.Startup == nil || rep.ScaleSchema == nil {
		t.Errorf("stdio target lacks RSS, startup or scale figures: %+v", rep.Notes)
	}
}

// A --url target has no RS of mcpcheck's: no overhead, and notes say why.
func TestURLTarget(t *testing.T) {
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	srv := adaptertest.Start(t, fx, adapter.Options{})
	rs := srv.RS
	rep := Measure(context.Background(), conformance.TargetSpec{URL: srv.MCPURL, Token: rs.ClientToken()}, quick())
	requireFigures(t, rep, false)
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{"overhead:", "peak RSS:", "stdio startup:", "scale schema:"} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note %q in %q", want, notes)
		}
	}
}

func TestUnreachableTargetIsReportedNotFatal(t *testing.T) {
	run := NewRun(quick())
	rep := Measure(context.Background(), conformance.TargetSpec{URL: "http://127.0.0.1:1/mcp", ConnectTimeout: 2 * time.Second}, quick())
	if rep.Error == "" {
		t.Fatal("no error for a closed port")
	}
	run.Targets = append(run.Targets, rep, rep)
	var out bytes.Buffer
	run.WriteText(&out)
	if !strings.Contains(out.String(), "not measured:") || !strings.Contains(out.String(), "Comparison") {
		t.Errorf("text:\n%s", out.String())
	}
	data, err := json.Marshal(run)
	if err != nil || !bytes.Contains(data, []byte(`"schema":"mcpcheck.bench/v1"`)) {
		t.Errorf("json %s %v", data, err)
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	p := percentiles(ds)
	if p.P50 != 50 || p.P95 != 95 || p.P99 != 99 || p.Max != 100 || p.N != 100 {
		t.Errorf("%+v", p)
	}
	if (percentiles(nil) != Percentiles{}) {
		t.Error("empty series")
	}
}

func TestGoalsJudgeTheTargets(t *testing.T) {
	ok := Percentiles{N: 1, P50: 500 * time.Microsecond, P99: 2 * time.Millisecond}
	slow := Percentiles{N: 1, P50: 1500 * time.Microsecond, P99: 2 * time.Millisecond}
	rep := Report{
		Tools: []ToolResult{
			{Tool: "schema", Overhead: &ok},
			{Tool: "search", Overhead: &slow, Throughput: []Level{{Concurrency: 64, PerSecond: 4999}}},
			{Tool: "fetch 60KB", Overhead: &slow}, // informational: not judged
		},
		PeakRSS:     65 << 20,
		Footprint:   &conformance.Footprint{TotalBytes: 8193, TotalTokens: 1500},
		Startup:     &Percentiles{P50: 40 * time.Millisecond},
		ScaleSchema: &ScaleSchema{Fixture: DefaultScale, Latency: Percentiles{P50: 49 * time.Millisecond}},
	}
	got := map[string]bool{}
	for _, g := range rep.judge() {
		got[g.Name] = g.Met
	}
	want := map[string]bool{"schema overhead": true, "search overhead": false, "search throughput at c=64": false,
		"peak RSS under load": false, "stdio start to initialize": true, "compact schema, 50×20×30": true, "tools/list footprint": false}
	if len(got) != len(want) {
		t.Fatalf("goals %v, want %v", got, want)
	}
	for k, v := range want {
		if met, ok := got[k]; !ok || met != v {
			t.Errorf("%s: met=%v (present %v), want %v", k, met, ok, v)
		}
	}
}

// Two live targets in one run: the comparison puts their figures side by
// side, and each target's footprint table names every tool with bytes and
// tokens.
func TestComparisonOfTwoLiveTargets(t *testing.T) {
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	srv := adaptertest.Start(t, fx, adapter.Options{})
	rs := srv.RS
	o := quick()
	o.StartupRuns, o.Scale, o.Tools = -1, "-", []string{"search", "fetch"}
	run := NewRun(o)
	for _, spec := range []conformance.TargetSpec{referenceSpec(t), {URL: srv.MCPURL, Token: rs.ClientToken()}} {
		run.Targets = append(run.Targets, Measure(context.Background(), spec, o))
	}
	var out bytes.Buffer
	run.WriteText(&out)
	text := out.String()
	_, comparison, ok := strings.Cut(text, "\nComparison\n")
	if !ok {
		t.Fatalf("no comparison:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^\s*tool\s+figure\s+\[1\] http\s+\[2\] http\s+\[2\]/\[1\]\s*$`).MatchString(comparison) {
		t.Errorf("the comparison's columns do not name their transports:\n%s", comparison)
	}
	for _, fig := range []string{"p50 ms", "text tokens", "structured tokens", "bounded structured tokens"} {
		figures := regexp.MustCompile(`^\s*(search|fetch|fetch 60KB|journey)\s+` + fig + `\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+×\s*$`)
		rows := 0
		for _, line := range strings.Split(comparison, "\n") {
			if figures.MatchString(line) {
				rows++
			}
		}
		if want := map[bool]int{true: 3, false: 4}[fig == "p50 ms"]; rows != want { // the journey has costs, not timings
			t.Errorf("want %d %s rows with two figures and their ratio (search, fetch, fetch 60KB, the journey's costs); got %d in:\n%s", want, fig, rows, comparison)
		}
	}
	run.Compare()
	data, _ := json.Marshal(run)
	var back struct {
		Targets    []struct{ Transport string }
		Comparison []ComparisonRow
	}
	if err := json.Unmarshal(data, &back); err != nil || len(back.Targets) != 2 || back.Targets[1].Transport != "http" {
		t.Fatalf("json %v: %s", err, data)
	}
	journey := 0
	for _, row := range back.Comparison {
		if row.Tool == "journey" {
			journey++
			if len(row.Values) != 2 || row.Values[0] == nil || len(row.Ratios) != 1 || row.Ratios[0] == nil {
				t.Errorf("journey row %+v", row)
			}
		}
	}
	if journey != len(costFigures) {
		t.Errorf("%d journey rows in the JSON comparison, want %d", journey, len(costFigures))
	}
	fp := run.Targets[0].Footprint
	if !regexp.MustCompile(fmt.Sprintf(`tools/list\s+bytes\s+%d\s+%d`, fp.TotalBytes, fp.TotalBytes)).MatchString(comparison) {
		t.Errorf("the same adapter two ways must show the same tools/list bytes:\n%s", comparison)
	}
	for _, rep := range run.Targets {
		if rep.Footprint == nil || len(rep.Footprint.Tools) != 6 {
			t.Fatalf("%s: footprint %+v", rep.Target, rep.Footprint)
		}
		for _, tf := range rep.Footprint.Tools {
			if tf.Bytes <= 0 || tf.Tokens <= 0 {
				t.Errorf("%s: %s has %d B, %d tokens", rep.Target, tf.Name, tf.Bytes, tf.Tokens)
			}
			row := regexp.MustCompile(fmt.Sprintf(`(?m)^\s+%s\s+%d\s+%d\b`, tf.Name, tf.Bytes, tf.Tokens))
			if !row.MatchString(text) {
				t.Errorf("no footprint row for %s (%d B, %d tokens) in:\n%s", tf.Name, tf.Bytes, tf.Tokens, text)
			}
		}
	}
}

// referenceSpec is the reference adapter as a target, in process unless
// Options.Reference runs it as a child.
func referenceSpec(t *testing.T) conformance.TargetSpec {
	t.Helper()
	spec, err := reference.Spec("")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
