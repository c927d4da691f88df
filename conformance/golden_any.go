package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sebdah/goldie/v2"
)

// Golden footprints for any target: the normalised tools/list and
// initialize of a deployed server kept in its own repository, so its CI
// catches drift. Statuses of a golden file:
const (
	GoldenMatch   = "match"
	GoldenChanged = "changed"
	GoldenMissing = "missing" // no golden yet: write it with --update-golden
	GoldenWritten = "written"
	GoldenStale   = "stale"   // a golden nothing produces any more
	GoldenRemoved = "removed" // a stale golden that --update-golden deleted
)

// A GoldenReport is how a target compared with its goldens.
type GoldenReport struct {
	Dir     string       `json:"dir"`
	Files   []GoldenFile `json:"files"`
	Changes []ToolChange `json:"changes,omitempty"`
	// Diffs are unified diffs, golden → target: one per changed tool, and
	// one per other changed golden file.
	Diffs []GoldenDiff `json:"diffs,omitempty"`
}

// A GoldenDiff is a unified diff of one tool or golden file.
type GoldenDiff struct {
	Name string `json:"name"`
	Diff string `json:"diff"`
}

// A GoldenFile is one golden and its status.
type GoldenFile struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// A ToolChange is one difference in tools/list against its golden.
type ToolChange struct {
	Tool     string `json:"tool"`
	Breaking bool   `json:"breaking"`
	What     string `json:"what"`
}

func (g *GoldenReport) failed() bool {
	if g == nil {
		return false
	}
	for _, f := range g.Files {
		if f.Status == GoldenChanged || f.Status == GoldenMissing || f.Status == GoldenStale {
			return true
		}
	}
	return false
}

// goldenSuffix ends every golden file name.
const goldenSuffix = ".golden.json"

// CompareGoldens compares the target's normalised payloads with the goldens
// in dir, or rewrites them with update. CI never writes goldens: with CI
// set, update is an error, and a missing golden fails instead of appearing.
func CompareGoldens(ctx context.Context, t *Target, dir string, update bool) (*GoldenReport, error) {
	if update && os.Getenv("CI") != "" {
		return nil, &UsageError{"--update-golden: CI never rewrites goldens; update them locally and review the diff"}
	}
	produced := map[string][]byte{}
	var err error
	if produced["tools-list"], err = GoldenTools(t); err != nil {
		return nil, err
	}
	if produced["initialize"], err = GoldenInitialize(t); err != nil {
		return nil, err
	}
	if t.Kind == KindReference {
		for _, gc := range GoldenCalls {
			if produced[gc.Name], err = GoldenResult(ctx, t, gc); err != nil {
				return nil, err
			}
		}
	}
	for n, b := range produced { // a golden is committed: it must hold no token
		if produced[n], err = t.redactJSON(b); err != nil {
			return nil, err
		}
	}
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	rep := &GoldenReport{Dir: dir}
	names := make([]string, 0, len(produced))
	for n := range produced {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, n+goldenSuffix)
		old, err := readGolden(path, update)
		status := GoldenMatch
		switch {
		case os.IsNotExist(err) && update:
			status = GoldenWritten
		case os.IsNotExist(err):
			status = GoldenMissing
		case err != nil:
			return nil, err
		case !bytes.Equal(old, produced[n]) && update:
			status = GoldenWritten
		case !bytes.Equal(old, produced[n]):
			status = GoldenChanged
			if n == "tools-list" {
				rep.Changes = classifyToolChanges(old, produced[n])
				rep.Diffs = append(rep.Diffs, toolDiffs(old, produced[n])...)
			} else {
				rep.Diffs = append(rep.Diffs, GoldenDiff{Name: n + goldenSuffix, Diff: unifiedDiff(old, produced[n])})
			}
		}
		if status == GoldenWritten {
			if err := writeGolden(path, produced[n]); err != nil {
				return nil, err
			}
		}
		rep.Files = append(rep.Files, GoldenFile{Name: n + goldenSuffix, Status: status})
	}
	stale, err := StaleGoldens(dir, names, update)
	if err != nil {
		return nil, err
	}
	status := map[bool]string{false: GoldenStale, true: GoldenRemoved}[update]
	for _, name := range stale {
		rep.Files = append(rep.Files, GoldenFile{Name: name, Status: status})
	}
	return rep, nil
}

// readGolden reads a golden that is a regular file. One that is not (a
// symbolic link, say, that a checkout could carry to a secret) is never
// read through: with update it counts as absent, to be replaced by a
// regular file; otherwise it is an error.
func readGolden(path string, update bool) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular() && update:
		return nil, fs.ErrNotExist
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("golden %s is not a regular file (%s): mcpcheck reads and writes goldens only as regular files; --update-golden replaces it", path, fi.Mode().Type())
	}
	return os.ReadFile(path)
}

// writeGolden writes a golden by a temporary file in its directory and a
// rename: a symbolic link in its place is replaced, never written through,
// and no reader sees half a golden.
func writeGolden(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// StaleGoldens lists the golden files in dir that none of the produced
// names (without the suffix) accounts for, and deletes them with remove.
func StaleGoldens(dir string, produced []string, remove bool) ([]string, error) {
	existing, err := filepath.Glob(filepath.Join(dir, "*"+goldenSuffix))
	if err != nil {
		return nil, err
	}
	sort.Strings(existing)
	var out []string
	for _, p := range existing {
		name := filepath.Base(p)
		if slices.Contains(produced, strings.TrimSuffix(name, goldenSuffix)) {
			continue
		}
		if remove {
			if err := os.Remove(p); err != nil {
				return nil, err
			}
		}
		out = append(out, name)
	}
	return out, nil
}

// classifyToolChanges compares two normalised tools arrays tool by tool:
// a removed tool, a removed or newly required argument, or a changed type
// breaks clients; a new tool, a new optional argument or new wording does not.
func classifyToolChanges(oldRaw, newRaw []byte) []ToolChange {
	byName := func(raw []byte) map[string]map[string]any {
		var list []map[string]any
		_ = json.Unmarshal(raw, &list)
		out := map[string]map[string]any{}
		for _, t := range list {
			if n, ok := t["name"].(string); ok {
				out[n] = t
			}
		}
		return out
	}
	olds, news := byName(oldRaw), byName(newRaw)
	var out []ToolChange
	add := func(tool string, breaking bool, format string, args ...any) {
		out = append(out, ToolChange{Tool: tool, Breaking: breaking, What: fmt.Sprintf(format, args...)})
	}
	for name, o := range olds {
		n, ok := news[name]
		if !ok {
			add(name, true, "tool removed")
			continue
		}
		op, or := schemaParts(o)
		np, nr := schemaParts(n)
		for arg, was := range op {
			ns, ok := np[arg]
			switch {
			case !ok:
				add(name, true, "argument %s removed", arg)
			case shapeChanged(was, ns):
				add(name, true, "argument %s changed type or allowed values", arg)
			case !sameJSON(was, ns):
				add(name, false, "argument %s described or constrained differently", arg)
			}
		}
		for arg := range np {
			if _, ok := op[arg]; !ok {
				add(name, nr[arg], "argument %s added%s", arg, map[bool]string{true: ", required", false: ", optional"}[nr[arg]])
			}
		}
		for arg := range nr {
			if _, existed := op[arg]; existed && !or[arg] {
				add(name, true, "argument %s is now required", arg)
			}
		}
		if !sameJSON(o["description"], n["description"]) {
			add(name, false, "description changed")
		}
		if !sameJSON(o["annotations"], n["annotations"]) {
			add(name, false, "annotations changed")
		}
		if !sameJSON(o["outputSchema"], n["outputSchema"]) {
			add(name, false, "output schema changed")
		}
	}
	for name := range news {
		if _, ok := olds[name]; !ok {
			add(name, false, "tool added")
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].What < out[j].What
	})
	return out
}

// shapeChanged reports whether an argument's schema accepts different
// values: its type, enum or const, its items, its anyOf/oneOf/allOf branches,
// or the shape of a nested property that existed before. Wording and bounds
// are left to the non-breaking "constrained differently" case.
func shapeChanged(was, now map[string]any) bool {
	for _, k := range []string{"type", "enum", "const"} {
		if !sameJSON(was[k], now[k]) {
			return true
		}
	}
	if wi, ni := was["items"], now["items"]; wi != nil || ni != nil {
		wm, wok := wi.(map[string]any)
		nm, nok := ni.(map[string]any)
		if !wok || !nok { // absent on one side, or the tuple form
			if !sameJSON(wi, ni) {
				return true
			}
		} else if shapeChanged(wm, nm) {
			return true
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		wl, _ := was[k].([]any)
		nl, _ := now[k].([]any)
		if len(wl) != len(nl) {
			return true
		}
		for i := range wl {
			if shapeChanged(asObject(wl[i]), asObject(nl[i])) {
				return true
			}
		}
	}
	wp, np := asObject(was["properties"]), asObject(now["properties"])
	for name, w := range wp {
		n, ok := np[name]
		if !ok || shapeChanged(asObject(w), asObject(n)) {
			return true
		}
	}
	return false
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// schemaParts are a tool's input properties and which are required.
func schemaParts(tool map[string]any) (map[string]map[string]any, map[string]bool) {
	in, _ := tool["inputSchema"].(map[string]any)
	props := map[string]map[string]any{}
	if p, ok := in["properties"].(map[string]any); ok {
		for k, v := range p {
			m, _ := v.(map[string]any)
			props[k] = m
		}
	}
	req := map[string]bool{}
	list, _ := in["required"].([]any)
	for _, r := range list {
		if s, ok := r.(string); ok {
			req[s] = true
		}
	}
	return props, req
}

// sameJSON reports whether two decoded JSON values encode alike.
func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// toolDiffs are unified diffs of each tool whose normalised JSON differs
// between two tools arrays (a removed or added tool diffs against nothing).
func toolDiffs(oldRaw, newRaw []byte) []GoldenDiff {
	byName := func(raw []byte) map[string]json.RawMessage {
		var list []json.RawMessage
		_ = json.Unmarshal(raw, &list)
		out := map[string]json.RawMessage{}
		for _, t := range list {
			var head struct{ Name string }
			if json.Unmarshal(t, &head) == nil {
				out[head.Name] = t
			}
		}
		return out
	}
	olds, news := byName(oldRaw), byName(newRaw)
	names := map[string]bool{}
	for n := range olds {
		names[n] = true
	}
	for n := range news {
		names[n] = true
	}
	var out []GoldenDiff
	for _, n := range SortedIDs(names) {
		a, b := indentJSON(olds[n]), indentJSON(news[n])
		if a != b {
			out = append(out, GoldenDiff{Name: n, Diff: unifiedDiff([]byte(a), []byte(b))})
		}
	}
	return out
}

func indentJSON(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String() + "\n"
}

// unifiedDiff is goldie's classic diff, golden (old) → target (new).
func unifiedDiff(old, new []byte) string {
	return goldie.Diff(goldie.ClassicDiff, string(new), string(old))
}
