package conformance

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBaselineExpectedAndStale(t *testing.T) {
	b, err := LoadBaseline(writeFile(t, "baseline.yml", "target: reference mutant\nexpected_failures:\n  S012: fetch is dropped on purpose\n  S001: believed broken\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Config{Target: TargetSpec{Mutant: "drop-tool-fetch"}, Only: []string{"S001", "S012"}, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, r := range rep.Rows {
		rows[r.ID] = r
	}
	if !strings.HasPrefix(rows["S012"].Baseline, "expected failure") || rep.Totals.Expected != 1 || rep.Totals.Failed != 0 {
		t.Errorf("S012 fails as baselined: %q, totals %+v", rows["S012"].Baseline, rep.Totals)
	}
	if !strings.HasPrefix(rows["S001"].Baseline, "stale") || rep.Totals.Stale != 1 {
		t.Errorf("S001 passes though baselined: %q, totals %+v", rows["S001"].Baseline, rep.Totals)
	}
	if rep.ExitCode() != ExitFail {
		t.Errorf("a stale baseline entry fails the run: exit %d", rep.ExitCode())
	}
	// Pruned, the same run passes: the expected failure no longer fails it.
	delete(b.ExpectedFailures, "S001")
	rep, err = Run(context.Background(), Config{Target: TargetSpec{Mutant: "drop-tool-fetch"}, Only: []string{"S001", "S012"}, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != ExitPass {
		t.Errorf("with only expected failures the run passes: exit %d, totals %+v", rep.ExitCode(), rep.Totals)
	}
}

func TestBaselineRejectsBadFiles(t *testing.T) {
	for name, body := range map[string]string{
		"unknown id":    "expected_failures:\n  S999: nope\n",
		"no reason":     "expected_failures:\n  S012: \"\"\n",
		"unknown key":   "expected_failures: {}\nexpectedfailures: {}\n",
		"not YAML":      "expected_failures: [unclosed\n",
		"wrong shapes":  "expected_failures:\n  - S012\n",
		"missing file!": "",
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "b.yml", body)
			if name == "missing file!" {
				path += ".nope"
			}
			_, err := LoadBaseline(path)
			if _, ok := err.(*UsageError); !ok {
				t.Errorf("got %v, want a usage error", err)
			}
		})
	}
}

func TestGoldensForAnyTarget(t *testing.T) {
	// The test itself rewrites goldens in a temp dir, so it must not inherit
	// the CI guard from the machine running it; the guard has its own case.
	t.Setenv("CI", "")
	ctx := context.Background()
	tgt, err := Open(ctx, TargetSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	dir := t.TempDir()
	g, err := CompareGoldens(ctx, tgt, dir, false)
	if err != nil || goldenStatuses(g)["tools-list.golden.json"] != GoldenMissing || !g.failed() {
		t.Fatalf("a missing golden fails and is not created: %v %+v", err, g)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools-list.golden.json")); !os.IsNotExist(err) {
		t.Fatal("comparing wrote a golden")
	}
	t.Setenv("CI", "true")
	if _, err := CompareGoldens(ctx, tgt, dir, true); err == nil || !strings.Contains(err.Error(), "CI never rewrites goldens") {
		t.Fatalf("with CI set, --update-golden is refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools-list.golden.json")); !os.IsNotExist(err) {
		t.Fatal("a refused update wrote a golden")
	}
	t.Setenv("CI", "")
	if g, err = CompareGoldens(ctx, tgt, dir, true); err != nil || goldenStatuses(g)["tools-list.golden.json"] != GoldenWritten {
		t.Fatalf("--update-golden writes: %v %+v", err, g)
	}
	if g, err = CompareGoldens(ctx, tgt, dir, false); err != nil || g.failed() {
		t.Fatalf("a fresh golden matches: %v %+v", err, g)
	}
	// Drift: the golden remembers an old description and a tool the target
	// no longer serves, and an orphan golden has no producer.
	path := filepath.Join(dir, "tools-list.golden.json")
	old, _ := os.ReadFile(path)
	drifted := strings.Replace(string(old), `"Search granted text.`, `"Search text.`, 1)
	drifted = strings.TrimSuffix(strings.TrimSpace(drifted), "]") + `,{"name":"list_streams","description":"gone","inputSchema":{"type":"object"}}]`
	if err := os.WriteFile(path, []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "orphan.golden.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = CompareGoldens(ctx, tgt, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := goldenStatuses(g); s["tools-list.golden.json"] != GoldenChanged || s["orphan.golden.json"] != GoldenStale {
		t.Errorf("statuses %v", s)
	}
	var breaking, nonBreaking []string
	for _, c := range g.Changes {
		if c.Breaking {
			breaking = append(breaking, c.Tool+": "+c.What)
		} else {
			nonBreaking = append(nonBreaking, c.Tool+": "+c.What)
		}
	}
	if !contains(breaking, "list_streams: tool removed") || !contains(nonBreaking, "search: description changed") {
		t.Errorf("breaking %v, non-breaking %v", breaking, nonBreaking)
	}
}

// A URL target has no fixture to call tools against: only its tools/list and
// initialize are goldens, and a schema golden left in its directory is stale.
func TestGoldensForURLTarget(t *testing.T) {
	t.Setenv("CI", "")
	ctx := context.Background()
	fx, err := LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS
	tgt, err := Open(ctx, TargetSpec{URL: hosted.MCPURL, Token: rs.ClientToken()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	dir := t.TempDir()
	g, err := CompareGoldens(ctx, tgt, dir, true)
	want := map[string]string{"initialize.golden.json": GoldenWritten, "tools-list.golden.json": GoldenWritten}
	if err != nil || !reflect.DeepEqual(goldenStatuses(g), want) {
		t.Fatalf("update wrote %v (%v), want %v", goldenStatuses(g), err, want)
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "*")); len(written) != 2 {
		t.Errorf("files on disk %v, want the two goldens", written)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema-global.golden.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = CompareGoldens(ctx, tgt, dir, false)
	want = map[string]string{"initialize.golden.json": GoldenMatch, "tools-list.golden.json": GoldenMatch, "schema-global.golden.json": GoldenStale}
	if err != nil || !reflect.DeepEqual(goldenStatuses(g), want) {
		t.Errorf("compare gave %v (%v), want %v", goldenStatuses(g), err, want)
	}
}

func TestClassifyToolChanges(t *testing.T) {
	old := `[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"},"z":{"type":"string"}},"required":["x"]}}]`
	now := `[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"integer"},"z":{"type":"string","description":"new"},"w":{"type":"string"},"v":{"type":"string"}},"required":["x","z","v"]}}]`
	got := map[string]bool{}
	for _, c := range classifyToolChanges([]byte(old), []byte(now)) {
		got[c.What] = c.Breaking
	}
	want := map[string]bool{
		"argument x changed type or allowed values": true, "argument y removed": true, "argument z is now required": true,
		"argument z described or constrained differently": false, "argument w added, optional": false, "argument v added, required": true,
	}
	for what, breaking := range want {
		if b, ok := got[what]; !ok || b != breaking {
			t.Errorf("%s: got breaking=%v (present %v), want %v; all %v", what, b, ok, breaking, got)
		}
	}
}

// A change below an argument's top level still changes what it accepts.
func TestClassifyNestedShapeChanges(t *testing.T) {
	arg := func(name, schema string) string {
		return `[{"name":"a","inputSchema":{"type":"object","properties":{"` + name + `":` + schema + `}}}]`
	}
	for name, c := range map[string]struct {
		old, now string
		breaking bool
	}{
		"items type":            {`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"integer"}}`, true},
		"items enum":            {`{"type":"array","items":{"enum":["a","b"]}}`, `{"type":"array","items":{"enum":["a"]}}`, true},
		"items dropped":         {`{"type":"array","items":{"type":"string"}}`, `{"type":"array"}`, true},
		"anyOf branch type":     {`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"string"},{"type":"boolean"}]}`, true},
		"oneOf branch removed":  {`{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"oneOf":[{"type":"string"}]}`, true},
		"const":                 {`{"const":"v1"}`, `{"const":"v2"}`, true},
		"nested property type":  {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"number"}}}`, true},
		"nested property gone":  {`{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string"}}}`, true},
		"deep nested items":     {`{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}}}`, `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`, true},
		"nested description":    {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string","description":"start"}}}`, false},
		"nested optional added": {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}`, false},
		"items maxLength":       {`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"string","maxLength":9}}`, false},
	} {
		changes := classifyToolChanges([]byte(arg("x", c.old)), []byte(arg("x", c.now)))
		if len(changes) != 1 || changes[0].Breaking != c.breaking {
			t.Errorf("%s: changes %+v, want one with breaking=%v", name, changes, c.breaking)
		}
	}
}

// A run whose every tool call failed says so: its passes say little.
func TestWarnsWhenOnlyErrorPathsRan(t *testing.T) {
	bin := adaptertest.Binary(t)
	rep, err := Run(context.Background(), Config{Target: TargetSpec{Stdio: bin + " --provider-url http://127.0.0.1:1"}, Only: []string{"S023", "S024", "U03"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "only error paths") {
		t.Errorf("warnings %v", rep.Warnings)
	}
}

// S006 with no page to measure skips: its argument checks alone must not
// pass as a held text budget.
func TestS006SkipsWithoutAMeasuredPage(t *testing.T) {
	ctx := context.Background()
	fx, err := LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS
	rs.InjectFault("/v1/streams/", fakers.Fault{Status: 500})
	tgt, err := Open(ctx, TargetSpec{URL: hosted.MCPURL, Token: rs.ClientToken()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	settings, err := LoadSettings(0)
	if err != nil {
		t.Fatal(err)
	}
	if r := Evaluate(ctx, s006, tgt, settings); r.Verdict != Skip || !strings.Contains(r.Message, "no query_records page") {
		t.Errorf("S006 with every records read failing: %s %s", r.Verdict, r.Message)
	}
}

// goldenStatuses maps each golden file of a report to its status.
func goldenStatuses(g *GoldenReport) map[string]string {
	out := map[string]string{}
	for _, f := range g.Files {
		out[f.Name] = f.Status
	}
	return out
}
