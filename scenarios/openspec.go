package scenarios

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// An OpenSpec tree's requirements, read without mcpcheck's own grammar:
// any spec repository's specs (openspec/specs/<capability>/spec.md) and
// its changes' spec deltas (openspec/changes/<change>/specs/<capability>/
// spec.md, under "## ADDED/MODIFIED/REMOVED/RENAMED Requirements").

// A SpecRequirement is one "### Requirement:" of a spec or a change.
type SpecRequirement struct {
	Capability string
	Source     string // "spec", or "change <name> (ADDED)"
	Name       string
	Text       string
	Scenarios  []SpecScenario
	File       string
	Line       int
}

// A SpecScenario is one "#### Scenario:" with its bullets, as written.
type SpecScenario struct {
	Name    string
	Bullets []string
	Line    int
}

// ReadOpenSpec reads every spec and change delta under fsys, which holds
// an openspec/ directory (or is one). Archived changes are left out: they
// are already in the specs.
func ReadOpenSpec(fsys fs.FS) ([]SpecRequirement, error) {
	root := "openspec"
	if _, err := fs.Stat(fsys, root); err != nil {
		root = "."
	}
	var files []string
	for _, pattern := range []string{"specs/*/spec.md", "changes/*/specs/*/spec.md"} {
		m, err := fs.Glob(fsys, path.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no OpenSpec specs or changes under %s (want specs/<capability>/spec.md or changes/<change>/specs/<capability>/spec.md)", root)
	}
	sort.Strings(files)
	var out []SpecRequirement
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		parts := strings.Split(strings.TrimPrefix(strings.TrimPrefix(f, root), "/"), "/")
		capability, source := parts[len(parts)-2], "spec"
		if parts[0] == "changes" {
			source = "change " + parts[1]
		}
		out = append(out, readSpecFile(f, data, capability, source)...)
	}
	return out, nil
}

func readSpecFile(file string, src []byte, capability, source string) []SpecRequirement {
	var (
		out     []SpecRequirement
		section string
		req     *SpecRequirement
		sc      *SpecScenario
	)
	line := func(n ast.Node) int {
		for c := n; c != nil; c = c.FirstChild() {
			if c.Type() != ast.TypeInline && c.Lines().Len() > 0 {
				return strings.Count(string(src[:c.Lines().At(0).Start]), "\n") + 1
			}
		}
		return 0
	}
	raw := func(n ast.Node) string {
		var parts []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			parts = append(parts, strings.TrimSpace(string(seg.Value(src))))
		}
		return strings.TrimSpace(strings.Join(parts, " "))
	}
	flushScenario := func() {
		if sc != nil && req != nil {
			req.Scenarios = append(req.Scenarios, *sc)
		}
		sc = nil
	}
	flush := func() {
		flushScenario()
		if req != nil {
			out = append(out, *req)
		}
		req = nil
	}
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			title := raw(n)
			switch {
			case n.Level <= 2:
				flush()
				section = title
			case n.Level == 3:
				flush()
				name, ok := strings.CutPrefix(title, "Requirement:")
				if !ok {
					continue
				}
				from := source
				if kind, _, ok := strings.Cut(section, " Requirements"); ok && source != "spec" {
					from += " (" + kind + ")"
				}
				req = &SpecRequirement{Capability: capability, Source: from, Name: strings.TrimSpace(name), File: file, Line: line(n)}
			case n.Level == 4 && req != nil:
				flushScenario()
				name, ok := strings.CutPrefix(title, "Scenario:")
				if ok {
					sc = &SpecScenario{Name: strings.TrimSpace(name), Line: line(n)}
				}
			}
		case *ast.Paragraph:
			if req != nil && sc == nil {
				req.Text = strings.TrimSpace(req.Text + " " + raw(n))
			}
		case *ast.List:
			if sc == nil {
				continue
			}
			for item := n.FirstChild(); item != nil; item = item.NextSibling() {
				if b := item.FirstChild(); b != nil {
					sc.Bullets = append(sc.Bullets, raw(b))
				}
			}
		}
	}
	flush()
	return out
}
