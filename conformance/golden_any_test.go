package conformance_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

func TestGoldensForAnyTarget(t *testing.T) {
	// The test itself rewrites goldens in a temp dir, so it must not inherit
	// the CI guard from the machine running it; the guard has its own case.
	t.Setenv("CI", "")
	ctx := context.Background()
	spec, err := reference.Spec("")
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := conformance.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	dir := t.TempDir()
	g, err := conformance.CompareGoldens(ctx, tgt, dir, false)
	if err != nil || goldenStatuses(g)["tools-list.golden.json"] != conformance.GoldenMissing || !goldensFailed(g) {
		t.Fatalf("a missing golden fails and is not created: %v %+v", err, g)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools-list.golden.json")); !os.IsNotExist(err) {
		t.Fatal("comparing wrote a golden")
	}
	t.Setenv("CI", "true")
	if _, err := conformance.CompareGoldens(ctx, tgt, dir, true); err == nil || !strings.Contains(err.Error(), "CI never rewrites goldens") {
		t.Fatalf("with CI set, --update-golden is refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools-list.golden.json")); !os.IsNotExist(err) {
		t.Fatal("a refused update wrote a golden")
	}
	t.Setenv("CI", "")
	if g, err = conformance.CompareGoldens(ctx, tgt, dir, true); err != nil || goldenStatuses(g)["tools-list.golden.json"] != conformance.GoldenWritten {
		t.Fatalf("--update-golden writes: %v %+v", err, g)
	}
	if g, err = conformance.CompareGoldens(ctx, tgt, dir, false); err != nil || goldensFailed(g) {
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
	g, err = conformance.CompareGoldens(ctx, tgt, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := goldenStatuses(g); s["tools-list.golden.json"] != conformance.GoldenChanged || s["orphan.golden.json"] != conformance.GoldenStale {
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
	if !slices.Contains(breaking, "list_streams: tool removed") || !slices.Contains(nonBreaking, "search: description changed") {
		t.Errorf("breaking %v, non-breaking %v", breaking, nonBreaking)
	}
	// Each changed tool comes with a unified diff, golden → target.
	diffs := map[string]string{}
	for _, d := range g.Diffs {
		diffs[d.Name] = d.Diff
	}
	if d := diffs["search"]; !strings.Contains(d, "-  \"description\": \"Search text.") || !strings.Contains(d, "+  \"description\": \"Search granted text.") {
		t.Errorf("search diff:\n%s", d)
	}
	if d := diffs["list_streams"]; !strings.Contains(d, "-  \"name\": \"list_streams\"") {
		t.Errorf("list_streams diff:\n%s", d)
	}
	if len(diffs) != 2 {
		t.Errorf("diffs for %v; want search and list_streams only", slices.Sorted(maps.Keys(diffs)))
	}
}

// A URL target has no fixture to call tools against: only its tools/list and
// initialize are goldens, and a schema golden left in its directory is stale.
func TestGoldensForURLTarget(t *testing.T) {
	t.Setenv("CI", "")
	ctx := context.Background()
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	hosted := adaptertest.Start(t, fx, adapter.Options{})
	rs := hosted.RS
	tgt, err := conformance.Open(ctx, conformance.TargetSpec{URL: hosted.MCPURL, Token: rs.ClientToken()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	dir := t.TempDir()
	g, err := conformance.CompareGoldens(ctx, tgt, dir, true)
	want := map[string]string{"initialize.golden.json": conformance.GoldenWritten, "tools-list.golden.json": conformance.GoldenWritten}
	if err != nil || !reflect.DeepEqual(goldenStatuses(g), want) {
		t.Fatalf("update wrote %v (%v), want %v", goldenStatuses(g), err, want)
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "*")); len(written) != 2 {
		t.Errorf("files on disk %v, want the two goldens", written)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema-global.golden.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = conformance.CompareGoldens(ctx, tgt, dir, false)
	want = map[string]string{"initialize.golden.json": conformance.GoldenMatch, "tools-list.golden.json": conformance.GoldenMatch, "schema-global.golden.json": conformance.GoldenStale}
	if err != nil || !reflect.DeepEqual(goldenStatuses(g), want) {
		t.Errorf("compare gave %v (%v), want %v", goldenStatuses(g), err, want)
	}
}

// goldenStatuses maps each golden file of a report to its status.
func goldenStatuses(g *conformance.GoldenReport) map[string]string {
	out := map[string]string{}
	for _, f := range g.Files {
		out[f.Name] = f.Status
	}
	return out
}

// goldensFailed reports a comparison that fails the run: a golden changed,
// missing or stale.
func goldensFailed(g *conformance.GoldenReport) bool {
	for _, s := range goldenStatuses(g) {
		if s == conformance.GoldenChanged || s == conformance.GoldenMissing || s == conformance.GoldenStale {
			return true
		}
	}
	return false
}

// A golden that is a symbolic link is neither read nor written through:
// comparing refuses it, and --update-golden replaces the link with a
// regular file, by a temporary file and a rename, leaving its target alone.
func TestUpdateGoldenReplacesASymlink(t *testing.T) {
	t.Setenv("CI", "")
	ctx := context.Background()
	spec, err := reference.Spec("")
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := conformance.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	dir, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "precious")
	const precious = "PRECIOUS-secret-contents\n"
	if err := os.WriteFile(victim, []byte(precious), 0o600); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(dir, "tools-list.golden.json")
	if err := os.Symlink(victim, golden); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	g, err := conformance.CompareGoldens(ctx, tgt, dir, false)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("comparing against a symlinked golden: %v %+v, want a refusal", err, g)
	}
	if err != nil && strings.Contains(err.Error(), "PRECIOUS") {
		t.Errorf("the refusal quotes the link's target: %v", err)
	}
	if g, err = conformance.CompareGoldens(ctx, tgt, dir, true); err != nil || goldenStatuses(g)["tools-list.golden.json"] != conformance.GoldenWritten {
		t.Fatalf("--update-golden over a symlink: %v %+v", err, g)
	}
	if data, _ := os.ReadFile(victim); string(data) != precious {
		t.Errorf("the link's target was written: %q", data)
	}
	if fi, err := os.Lstat(golden); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the golden is not a regular file now: %v %v", fi.Mode(), err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
	if g, err = conformance.CompareGoldens(ctx, tgt, dir, false); err != nil || goldensFailed(g) {
		t.Errorf("the replaced golden matches: %v %+v", err, g)
	}
}
