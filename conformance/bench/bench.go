// Package bench measures a PDPP MCP adapter: per-tool latency, the overhead
// it adds over the RS calls it makes, throughput under concurrency, peak
// RSS, stdio startup, footprint and the schema result on a scale grant. It
// works on the same three target kinds as the conformance checks, so two
// adapters can be compared in one run.
package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Schema names the JSON format of a bench run.
const Schema = "mcpcheck.bench/v1"

// Options bound a run. The zero value takes the defaults.
type Options struct {
	Samples     int           // paired latency samples per tool (default 300)
	Warmup      int           // calls per tool before sampling (default 20)
	Duration    time.Duration // per tool and concurrency level (default 1s)
	Concurrency []int         // default 1, 8, 64
	Tools       []string      // default: every tool of the plan the target serves
	// StartupRuns is how many times a stdio adapter is started to time its
	// first answered initialize (default 10; 0 keeps the default, <0 skips).
	StartupRuns int
	// Scale is the fixture for the scale schema measurement (default
	// scale:50,20,30,2: 1,000 streams of 30 fields); "-" skips it.
	Scale string
	// CallTimeout bounds each tool call, so a target that stops answering
	// ends the run instead of hanging it (default 10s).
	CallTimeout time.Duration
	// Progress, when set, hears of each measurement as it ends.
	Progress func(done, total int, name string)
	// Reference is the command that runs the reference adapter
	// (pdpp-mcp's arguments follow), so it is measured as a child process
	// like any other adapter. Empty: in process, with no RSS or startup.
	Reference []string
	// ReferenceTransport is how the reference adapter is reached: HTTP
	// (the default, `pdpp-mcp serve`) or stdio, to compare it like for
	// like with a stdio adapter. Stdio needs Reference.
	ReferenceTransport Transport
}

// A Transport names how bench reaches a target.
type Transport string

const (
	TransportHTTP  Transport = "http"  // Streamable HTTP over loopback or the network
	TransportStdio Transport = "stdio" // newline-delimited JSON-RPC on a child's stdio
)

func (o *Options) defaults() {
	if o.Samples <= 0 {
		o.Samples = 300
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if o.Warmup <= 0 {
		o.Warmup = 20
	}
	if o.Duration <= 0 {
		o.Duration = time.Second
	}
	if len(o.Concurrency) == 0 {
		o.Concurrency = []int{1, 8, 64}
	}
	o.StartupRuns = cmp.Or(o.StartupRuns, 10)
	o.Scale = cmp.Or(o.Scale, DefaultScale)
}

// DefaultScale is the scale grant of the schema target: 50 connectors × 20
// streams × 30 fields.
const DefaultScale = "scale:50,20,30,2"

// A Report is one target's measurements.
type Report struct {
	Target     string                 `json:"target"`
	TargetKind conformance.TargetKind `json:"target_kind"`
	// Transport is how every figure of this report was measured.
	Transport Transport `json:"transport"`
	Error     string    `json:"error,omitempty"` // the target could not be measured at all
	// AuthRejected says the Error was the target refusing the credentials.
	AuthRejected bool         `json:"auth_rejected,omitempty"`
	Tools        []ToolResult `json:"tools,omitempty"`
	// PeakRSS is the adapter process's VmHWM after the load, when it is a
	// child process on Linux.
	PeakRSS   int64                  `json:"peak_rss_bytes,omitempty"`
	Startup   *Percentiles           `json:"stdio_startup,omitempty"`
	Footprint *conformance.Footprint `json:"footprint,omitempty"`
	// Journey sums what one question's calls cost a model.
	Journey     *Journey     `json:"journey,omitempty"`
	ScaleSchema *ScaleSchema `json:"scale_schema,omitempty"`
	// Goals judge the figures against the reference adapter's targets.
	Goals []Goal `json:"goals,omitempty"`
	// Notes say what was not measured and why.
	Notes []string `json:"notes,omitempty"`
}

// A ToolResult is one tool's figures.
type ToolResult struct {
	Tool  string         `json:"tool"` // the tool, or the plan's label for a second call of it
	Args  map[string]any `json:"args"`
	Error string         `json:"error,omitempty"` // the fixed call failed: no figures
	// Latency of the tool call, one client, sequential.
	Latency Percentiles `json:"latency"`
	// RSRequests are the RS requests one call made; Direct times the same
	// requests made directly and sequentially, and Overhead is the
	// per-sample difference. Absent when the RS is not mcpcheck's.
	RSRequests int          `json:"rs_requests,omitempty"`
	Direct     *Percentiles `json:"direct,omitempty"`
	Overhead   *Percentiles `json:"overhead,omitempty"`
	Throughput []Level      `json:"throughput,omitempty"`
	// Cost is what the call's answer puts in front of a model.
	Cost *Cost `json:"cost,omitempty"`
}

// Measured reports whether at least one tool got figures.
func (r Report) Measured() bool {
	for _, t := range r.Tools {
		if t.Error == "" {
			return true
		}
	}
	return false
}

// A Level is throughput at one concurrency.
type Level struct {
	Concurrency int     `json:"concurrency"`
	Calls       int     `json:"calls"`
	Errors      int     `json:"errors"`
	PerSecond   float64 `json:"calls_per_second"`
	// AdapterCPU is the adapter process's CPU time per call, when it is a
	// child on Linux; HarnessCPU is mcpcheck's own (load generator and
	// fixture RS): where the two cores went.
	AdapterCPU time.Duration `json:"adapter_cpu_per_call_ns,omitempty"`
	HarnessCPU time.Duration `json:"harness_cpu_per_call_ns,omitempty"`
}

// ScaleSchema is the compact schema answer on the scale grant.
type ScaleSchema struct {
	Fixture   string      `json:"fixture"`
	Transport Transport   `json:"transport"`  // stdio, unless the reference runs in process
	Bytes     int         `json:"text_bytes"` // the text content the model reads
	Tokens    int         `json:"text_tokens"`
	Latency   Percentiles `json:"latency"`
}

// A Run is a bench run over one or more targets.
type Run struct {
	Schema    string    `json:"schema"`
	Tool      string    `json:"tool"`
	Started   time.Time `json:"started"`
	GoVersion string    `json:"go_version"`
	CPUs      int       `json:"cpus"`
	Options   struct {
		Samples     int   `json:"samples"`
		DurationNS  int64 `json:"duration_per_level_ns"`
		Concurrency []int `json:"concurrency"`
	} `json:"options"`
	Targets []Report `json:"targets"`
	// Comparison puts every target's headline figures side by side, when
	// the run holds more than one ([Run.Compare]).
	Comparison []ComparisonRow `json:"comparison,omitempty"`
}

// NewRun starts a run record with the options it uses.
func NewRun(o Options) *Run {
	o.defaults()
	r := &Run{Schema: Schema, Tool: "mcpcheck " + conformance.Version(), Started: time.Now().UTC(), GoVersion: runtime.Version(), CPUs: runtime.GOMAXPROCS(0)}
	r.Options.Samples, r.Options.DurationNS, r.Options.Concurrency = o.Samples, int64(o.Duration), o.Concurrency
	return r
}

// Measure benchmarks one target. A target that cannot be reached yields a
// report with Error set, not an error: a comparison run goes on.
func Measure(ctx context.Context, spec conformance.TargetSpec, o Options) Report {
	o.defaults()
	rep := Report{TargetKind: spec.Kind(), Transport: transportOf(spec, o)}
	sub, err := open(ctx, spec, o)
	if err != nil {
		rep.Target = spec.Describe()
		rep.Error = err.Error()
		var te *conformance.TargetError
		rep.AuthRejected = errors.As(err, &te) && !te.Unreachable
		return rep
	}
	defer sub.close()
	sub.timeout = o.CallTimeout
	rep.Target = sub.target.Description
	if settings, err := conformance.LoadSettings(0); err == nil {
		if fp, err := conformance.MeasureFootprint(sub.target, settings.BudgetBytes); err == nil {
			rep.Footprint = fp
		}
	}
	calls, notes := plan(ctx, sub, o.Tools)
	rep.Notes = append(rep.Notes, notes...)
	direct := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	defer direct.CloseIdleConnections()
	rep.Journey = sub.runJourney(ctx)
	step, steps := 0, len(calls)+2
	progress := func(name string) {
		if step++; o.Progress != nil {
			o.Progress(step, steps, rep.Target+": "+name)
		}
	}
	for _, c := range calls {
		rep.Tools = append(rep.Tools, measureTool(ctx, sub, direct, c, o))
		progress(c.name())
	}
	if sub.rs == nil {
		rep.Notes = append(rep.Notes, "overhead: the RS behind a --url target is not mcpcheck's, so its calls cannot be replayed")
	}
	switch rss, err := peakRSS(sub.pid); {
	case sub.pid == 0:
		rep.Notes = append(rep.Notes, "peak RSS: the adapter is not a child process of mcpcheck")
	case err != nil:
		rep.Notes = append(rep.Notes, "peak RSS: "+err.Error())
	default:
		rep.PeakRSS = rss
	}
	rep.Startup, notes = measureStartup(ctx, spec, o)
	rep.Notes = append(rep.Notes, notes...)
	progress("stdio startup")
	rep.ScaleSchema, notes = measureScale(ctx, spec, o)
	rep.Notes = append(rep.Notes, notes...)
	progress("scale schema")
	rep.Goals = rep.judge()
	return rep
}

// A call is one fixed tool call of the plan.
type call struct {
	tool, label string // label names a second call of the same tool
	args        map[string]any
}

func (c call) name() string {
	if c.label != "" {
		return c.label
	}
	return c.tool
}

// plan fixes each tool's arguments, named as the target declares them
// (conformance/dialect). Records are the fixture's (a typical message and
// the 60 KB body, which fetch must cut and label), their ids taken from
// the target's own search answers, never built in one adapter's format. A
// target whose data lacks them (a --url target) measures the first hit.
func plan(ctx context.Context, sub *subject, only []string) ([]call, []string) {
	const term = "budget" // hits in several connections of the default fixture
	d := sub.target.Dialect()
	var notes []string
	idOf := func(q string, tokens ...string) (string, string) {
		args, err := d.Resolve("search", dialect.Args{dialect.Query: q, dialect.Limit: 25})
		if err != nil {
			return "", err.Error()
		}
		ctx, cancel := context.WithTimeout(ctx, sub.timeout)
		defer cancel()
		res, err := sub.session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args})
		if err != nil || res.IsError {
			return "", fmt.Sprintf("search %q failed", q)
		}
		sc, _ := structuredMap(res)
		if id := hitID(d, res, sc, tokens...); id != "" {
			return id, ""
		}
		if id := hitID(d, res, sc); id != "" {
			return id, fmt.Sprintf("the target has no record %s; measured %s, its first hit for %q", strings.Join(tokens, "/"), id, q)
		}
		return "", fmt.Sprintf("search %q returned no id to use", q)
	}
	typical := sync.OnceValues(func() (string, string) { return idOf(term, "cin_work", "m005") })
	long := sync.OnceValues(func() (string, string) {
		return idOf(fakers.LongBodyPhrase, "cin_work", fakers.LongBodyRecordID)
	})
	type planned struct {
		call
		roles dialect.Args
		id    func() (string, string) // the record the call reads, if any
	}
	calls := []planned{
		{call: call{tool: "schema"}, roles: dialect.Args{}},
		{call: call{tool: "query_records"}, roles: dialect.Args{dialect.Stream: "issues", dialect.Limit: 25}},
		{call: call{tool: "aggregate"}, roles: dialect.Args{dialect.Stream: "issues", dialect.Metric: "count", dialect.GroupBy: "state"}},
		{call: call{tool: "search"}, roles: dialect.Args{dialect.Query: term, dialect.Limit: 10}},
		{call: call{tool: "fetch"}, roles: dialect.Args{}, id: typical},
		{call: call{tool: "fetch", label: "fetch 60KB"}, roles: dialect.Args{}, id: long},
		{call: call{tool: "read_record_field"}, roles: dialect.Args{dialect.Field: "body", dialect.Length: 2048}, id: long},
	}
	served := map[string]bool{}
	for _, t := range sub.target.Tools {
		served[t.Name] = true
	}
	var out []call
	for _, c := range calls {
		if len(only) > 0 && !slices.Contains(only, c.tool) {
			continue
		}
		if !served[c.tool] {
			notes = append(notes, c.name()+": not served by the target")
			continue
		}
		if c.id != nil {
			id, note := c.id()
			if note != "" {
				notes = append(notes, c.name()+": "+note)
			}
			if id == "" {
				continue
			}
			c.roles[dialect.RecordID] = id
		}
		args, err := d.Resolve(c.tool, c.roles)
		if err != nil {
			notes = append(notes, c.name()+": not measured: "+err.Error())
			continue
		}
		c.args = args
		out = append(out, c.call)
	}
	return out, notes
}

func toolText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s := t.Text
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			return "isError: " + s
		}
	}
	return "isError"
}

func measureTool(ctx context.Context, sub *subject, direct *http.Client, c call, o Options) ToolResult {
	r := ToolResult{Tool: c.name(), Args: c.args}
	if err := sub.invoke(ctx, c); err != nil { // the SDK client says best what went wrong
		r.Error = err.Error()
		return r
	}
	_, cost, err := sub.measureCost(ctx, c.tool, c.args)
	if err != nil {
		r.Error = "cost: " + err.Error()
		return r
	}
	r.Cost = &cost
	one, err := sub.invokers(ctx, c, 1)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	call := one[0]
	for range o.Warmup {
		if err := call(ctx); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	var replay []fakers.Request
	if sub.rs != nil {
		sub.rs.KeepRequests(fakers.DefaultLogLimit)
		_ = call(ctx)
		replay = sub.rs.Requests()
		sub.rs.KeepRequests(0) // the log would cost time and grow through the load
		r.RSRequests = len(replay)
	}
	lat := make([]time.Duration, 0, o.Samples)
	var dir, over []time.Duration
	for range o.Samples {
		start := time.Now()
		if err := call(ctx); err != nil {
			r.Error = err.Error()
			return r
		}
		d := time.Since(start)
		lat = append(lat, d)
		if len(replay) > 0 {
			dd, err := replayDirect(ctx, direct, sub.rsURL, replay)
			if err != nil {
				r.Error = "direct RS call: " + err.Error()
				return r
			}
			dir, over = append(dir, dd), append(over, d-dd)
		}
	}
	r.Latency = percentiles(lat)
	if len(dir) > 0 {
		p, q := percentiles(dir), percentiles(over)
		r.Direct, r.Overhead = &p, &q
	}
	for _, n := range o.Concurrency {
		workers, err := sub.invokers(ctx, c, n)
		if err != nil {
			r.Error = fmt.Sprintf("open %d sessions: %v", n, err)
			return r
		}
		a0, h0 := processCPU(sub.pid), processCPU(os.Getpid())
		l := load(ctx, workers, o.Duration)
		if l.Calls > 0 {
			if a0 > 0 {
				l.AdapterCPU = (processCPU(sub.pid) - a0) / time.Duration(l.Calls)
			}
			if h0 > 0 {
				l.HarnessCPU = (processCPU(os.Getpid()) - h0) / time.Duration(l.Calls)
			}
		}
		r.Throughput = append(r.Throughput, l)
	}
	return r
}

// replayDirect makes the RS requests of one tool call directly, in order.
func replayDirect(ctx context.Context, hc *http.Client, base string, reqs []fakers.Request) (time.Duration, error) {
	start := time.Now()
	for _, q := range reqs {
		u := base + q.Path
		if q.RawQuery != "" {
			u += "?" + q.RawQuery
		}
		req, err := http.NewRequestWithContext(ctx, q.Method, u, nil)
		if err != nil {
			return 0, err
		}
		if q.Authorization != "" {
			req.Header.Set("Authorization", q.Authorization)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// load runs the workers back to back for d. Calls are never cancelled at
// the deadline (a cancelled call ends an SDK client session); workers stop
// starting new ones, and the clock stops when the last call returns.
func load(ctx context.Context, workers []invoker, d time.Duration) Level {
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for _, call := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if call(ctx) == nil {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return Level{Concurrency: len(workers), Calls: int(ok.Load()), Errors: int(bad.Load()), PerSecond: float64(ok.Load()) / el.Seconds()}
}

// processCPU is a process's user+system CPU time from /proc (Linux), or 0.
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command: state is field 3, utime 14, stime 15.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	if _, err := fmt.Sscan(f[11], &ut); err != nil {
		return 0
	}
	if _, err := fmt.Sscan(f[12], &st); err != nil {
		return 0
	}
	const clockTick = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / clockTick
}

// peakRSS reads the high-water mark of a process's resident set (Linux).
func peakRSS(pid int) (int64, error) {
	if pid == 0 {
		return 0, nil
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("cannot read /proc (%s): %v", runtime.GOOS, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}
