package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The README's "How a spec author adds a scenario" runs as written, in a
// copy of the repository: each code block goes where the words after its
// language say (append, create, edit a line, or add a row to a slice), and
// each sh line's "# fails: …" or "# passes" is what it must do. The copy
// shares the build cache, so after a first run only what the steps change
// compiles anew. Run it alone with -timeout 20m on a busy machine.
func TestSpecAuthorWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the walkthrough in a copy of the repository; skipped under -short")
	}
	if os.Getenv("MCPCHECK_IN_WALKTHROUGH") != "" {
		t.Skip("already inside the walkthrough's copy")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := walkthroughBlocks(t, string(readme))
	// A fixed path under the gitignored .cache/ lets the build cache serve
	// every package the steps leave alone on the next run (the compiler's
	// cache keys include the source directory).
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".cache", "walkthrough")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copyTree(t, root, dir)
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(15 * time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-10*time.Second))
	defer cancel()
	commands := 0
	for _, b := range blocks {
		switch b.action {
		case "append", "create", "edit", "row":
			applyBlock(t, dir, b)
		case "sh":
			for _, line := range strings.Split(strings.TrimSpace(b.body), "\n") {
				commands++
				runStep(ctx, t, dir, line)
			}
		default:
			t.Fatalf("README block %q: unknown action", b.info)
		}
	}
	if commands < 4 {
		t.Fatalf("the walkthrough has %d commands; its blocks were not found", commands)
	}
}

type readmeBlock struct {
	info, action, path, slice, body string
}

// walkthroughBlocks are the fenced blocks of the README's walkthrough
// section, unindented, with what their info string says.
func walkthroughBlocks(t *testing.T, readme string) []readmeBlock {
	_, section, ok := strings.Cut(readme, "## How a spec author adds a scenario, end to end\n")
	if !ok {
		t.Fatal("README has no walkthrough section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var (
		out    []readmeBlock
		cur    *readmeBlock
		indent string
		body   strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			f := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			cur = &readmeBlock{info: strings.Join(f, " ")}
			if len(f) == 1 && f[0] == "sh" {
				cur.action = "sh"
			} else if len(f) >= 3 {
				cur.action, cur.path = f[1], f[2]
				if len(f) > 3 {
					cur.slice = f[3]
				}
			} else {
				t.Fatalf("README walkthrough block %q says neither where it goes nor that it is sh", trimmed)
			}
			body.Reset()
		case cur != nil && trimmed == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(strings.TrimPrefix(line, indent) + "\n")
		}
	}
	return out
}

func applyBlock(t *testing.T, dir string, b readmeBlock) {
	path := filepath.Join(dir, filepath.FromSlash(b.path))
	old, err := os.ReadFile(path)
	if err != nil && b.action != "create" {
		t.Fatalf("README block %q: %v", b.info, err)
	}
	var data string
	switch b.action {
	case "create":
		data = b.body
	case "append":
		data = string(old) + b.body
	case "edit": // each line of the block replaces the file's line it extends by one token
		data = string(old)
		for _, want := range strings.Split(strings.TrimRight(b.body, "\n"), "\n") {
			data = replaceExtendedLine(t, b, data, want)
		}
	case "row": // the block's rows end the named slice literal
		start := strings.Index(string(old), "var "+b.slice+" = []")
		end := strings.Index(string(old[max(start, 0):]), "\n}\n")
		if start < 0 || end < 0 {
			t.Fatalf("README block %q: %s has no slice %s", b.info, b.path, b.slice)
		}
		at := start + end + 1
		data = string(old[:at]) + b.body + string(old[at:])
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceExtendedLine replaces the line of data whose comma-separated
// items are want's, less one.
func replaceExtendedLine(t *testing.T, b readmeBlock, data, want string) string {
	items := func(s string) []string {
		var out []string
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	wantItems := items(want)
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		have := items(l)
		if len(have) != len(wantItems)-1 || len(have) == 0 {
			continue
		}
		if slices.ContainsFunc(have, func(h string) bool { return !slices.Contains(wantItems, h) }) {
			continue
		}
		lines[i] = want
		return strings.Join(lines, "\n")
	}
	t.Fatalf("README block %q: %s has no line that %q extends by one item", b.info, b.path, want)
	return ""
}

// runStep runs one "command  # fails: text" or "command  # passes" line.
func runStep(ctx context.Context, t *testing.T, dir, line string) {
	cmdline, expect, ok := strings.Cut(line, "  # ")
	if !ok {
		t.Fatalf("README walkthrough command %q says neither # fails: nor # passes", line)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-count=1", "NO_COLOR=1", "MCPCHECK_IN_WALKTHROUGH=1")
	out, err := cmd.CombinedOutput()
	t.Logf("$ %s\n%s", cmdline, clip(string(out)))
	switch {
	case expect == "passes":
		if err != nil {
			t.Fatalf("%s: want success, got %v:\n%s", cmdline, err, clip(string(out)))
		}
	case strings.HasPrefix(expect, "fails: "):
		want := strings.TrimPrefix(expect, "fails: ")
		if err == nil {
			t.Fatalf("%s: want a failure naming %q, it passed", cmdline, want)
		}
		if !matchWithEllipsis(want, string(out)) {
			t.Fatalf("%s: want a failure naming %q, got %v:\n%s", cmdline, want, err, clip(string(out)))
		}
		// A step a spec author is told to expect fails with a message, not
		// a crash (issue 35: the first step used to panic in package init).
		if strings.Contains(string(out), "goroutine ") || strings.Contains(string(out), "panic:") {
			t.Fatalf("%s: the expected failure reads like a crash:\n%s", cmdline, clip(string(out)))
		}
	default:
		t.Fatalf("README walkthrough command %q: unknown expectation %q", cmdline, expect)
	}
}

// matchWithEllipsis finds want in out, "…" standing for any text on the line.
func matchWithEllipsis(want, out string) bool {
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `[^\n]*`)).MatchString(out)
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n…\n" + s[len(s)-2000:]
	}
	return s
}

// copyTree copies the repository's files, less what git and builds keep.
func copyTree(t *testing.T, from, to string) {
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "bin":
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(fmt.Errorf("copy the repository: %w", err))
	}
}
