package checks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

func TestBaselineExpectedAndStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.yml")
	if err := os.WriteFile(path, []byte("target: reference mutant\nexpected_failures:\n  S012: fetch is dropped on purpose\n  S001: believed broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := conformance.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), conformance.Config{Target: mutant("drop-tool-fetch"), Only: []string{"S001", "S012"}, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]conformance.Row{}
	for _, r := range rep.Rows {
		rows[r.ID] = r
	}
	if !strings.HasPrefix(rows["S012"].Baseline, "expected failure") || rep.Totals.Expected != 1 || rep.Totals.Failed != 0 {
		t.Errorf("S012 fails as baselined: %q, totals %+v", rows["S012"].Baseline, rep.Totals)
	}
	if !strings.HasPrefix(rows["S001"].Baseline, "stale") || rep.Totals.Stale != 1 {
		t.Errorf("S001 passes though baselined: %q, totals %+v", rows["S001"].Baseline, rep.Totals)
	}
	if rep.ExitCode() != conformance.ExitFail {
		t.Errorf("a stale baseline entry fails the run: exit %d", rep.ExitCode())
	}
	// Pruned, the same run passes: the expected failure no longer fails it.
	delete(b.ExpectedFailures, "S001")
	rep, err = run(context.Background(), conformance.Config{Target: mutant("drop-tool-fetch"), Only: []string{"S001", "S012"}, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != conformance.ExitPass {
		t.Errorf("with only expected failures the run passes: exit %d, totals %+v", rep.ExitCode(), rep.Totals)
	}
}

// A run whose every tool call failed says so: its passes say little.
func TestWarnsWhenOnlyErrorPathsRan(t *testing.T) {
	bin := adaptertest.Binary(t)
	rep, err := run(context.Background(), conformance.Config{Target: conformance.TargetSpec{Stdio: bin + " --provider-url http://127.0.0.1:1"}, Only: []string{"S023", "S024", "U03"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "only error paths") {
		t.Errorf("warnings %v", rep.Warnings)
	}
}

// S006 with no page to measure passes only partially: its argument
// checks alone must not pass as a held text budget.
func TestS006PartialWithoutAMeasuredPage(t *testing.T) {
	ctx := context.Background()
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := serveReference(t, fx, "")
	rs := hosted.RS
	rs.InjectFault("/v1/streams/", fakers.Fault{Status: 500})
	tgt, err := conformance.Open(ctx, conformance.TargetSpec{URL: hosted.MCPURL, Token: rs.ClientToken()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	settings, err := conformance.LoadSettings(0)
	if err != nil {
		t.Fatal(err)
	}
	r := conformance.Evaluate(ctx, entryOf(t, s006), tgt, settings)
	un := r.UnexercisedClauses()
	if r.Verdict != conformance.Partial || len(un) != 1 || un[0].Key != "S006.2" || !strings.Contains(un[0].Reason, "no page to measure") {
		t.Errorf("S006 with every records read failing: %s %s; not exercised %+v, want S006.2 alone, for want of a page", r.Verdict, r.Message, un)
	}
}

// The hosted checks' probes, with a bearer or without, refuse a redirect
// to another origin before sending anything there: a bearer stays on its
// origin, and a target cannot have mcpcheck read a URL of its choosing.
func TestHostedProbesKeepBearersOnTheirOrigin(t *testing.T) {
	rec := &hostile.Recorder{}
	other := httptest.NewServer(rec)
	defer other.Close()
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.Redirect307, RedirectTo: other.URL + "/mcp"})
	defer srv.Close()
	a := probe.HostedDo(context.Background(), "POST", srv.URL+"/mcp", "Bearer owner-secret", probe.InitializeBody, nil)
	var refused *conformance.RedirectError
	if !errors.As(a.Err, &refused) {
		t.Errorf("a bearer probe: err %v, want a refused redirect", a.Err)
	}
	if a := probe.HostedDo(context.Background(), "GET", srv.URL+"/connect", "", nil, nil); !errors.As(a.Err, &refused) {
		t.Errorf("an anonymous probe: %d %v, want a refused redirect", a.Status, a.Err)
	}
	if got := rec.Authorizations(); len(got) != 0 {
		t.Errorf("the other origin saw %d requests", len(got))
	}
}

// S011 compares two surfaces whatever their order.
func TestNormalizedToolsIgnoresOrder(t *testing.T) {
	a := json.RawMessage(`{"name":"alpha","inputSchema":{"type":"object"}}`)
	b := json.RawMessage(`{"name":"beta","description":"b","inputSchema":{"type":"object"}}`)
	c := json.RawMessage(`{"name":"gamma","inputSchema":{"type":"object"}}`)
	if x, y := probe.NormalizedTools([]json.RawMessage{b, c, a}), probe.NormalizedTools([]json.RawMessage{a, b, c}); x != y {
		t.Error("reordering tools changed the normalised tools")
	}
}

// On every other named fixture and a small scale grant, the reference
// adapter fails nothing: a check may skip for want of data, never misjudge
// a correct adapter because the data is shaped differently.
func TestReferenceAdapterFailsNothingOnAnyFixture(t *testing.T) {
	for _, name := range append(fakers.Fixtures(), "scale:4,2,6,30") {
		if name == fakers.DefaultFixture {
			continue // TestReferenceAdapterPasses
		}
		t.Run(name, func(t *testing.T) {
			rep, err := run(context.Background(), conformance.Config{Target: conformance.TargetSpec{Fixture: name}})
			if err != nil || rep.TargetError != nil {
				t.Fatalf("%v %v", err, rep.TargetError)
			}
			for _, row := range rep.Rows {
				if r := row.Result; r != nil && (r.Verdict == conformance.Fail || r.Verdict == conformance.Error) {
					t.Errorf("%s: %s %s", row.Name, r.Verdict, r.Message)
				}
			}
		})
	}
}

// entryOf is a check's registry entry: its scenario, clauses included.
func entryOf(t *testing.T, c *Check) conformance.Entry {
	t.Helper()
	entries, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Check == c {
			return e
		}
	}
	t.Fatalf("%s is not in the registry", c.ID)
	return conformance.Entry{}
}
