package clausemap

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

const root = "../.."

// scenarios/INDEX.md is what the clause map says today.
func TestIndexIsCurrent(t *testing.T) {
	scs, err := Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	WriteMarkdown(&want, scs)
	got, err := os.ReadFile(filepath.Join(root, "scenarios", "INDEX.md"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("scenarios/INDEX.md is out of date; regenerate it from the module root:\n\t%s", IndexCommand)
	}
	for _, s := range scs {
		if !strings.Contains(want.String(), "| **"+s.ID) && len(s.Clauses) > 0 {
			t.Errorf("INDEX.md does not show the clause keys of %s", s.ID)
		}
	}
}

// Every check has a mutant that names it (a clause key or its id): a quick,
// static gate for a spec author; conformance/matrix proves each is killed.
func TestEveryCheckHasAMutant(t *testing.T) {
	named := map[string]bool{}
	for _, m := range variation.All() {
		for _, k := range m.Kills {
			id, _, _ := strings.Cut(k, ".")
			named[id] = true
		}
	}
	for _, c := range checks.All() {
		if !named[c.ID] {
			t.Errorf("%s has no mutant that it kills: add a row naming its clause keys to adapter/variation/mutants_<group>.go", c.Name())
		}
	}
}

// Every adapter code entry names a scenario and a declaration its file holds.
func TestAdapterCodeExists(t *testing.T) {
	cat, err := scenarios.Load()
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]map[string]bool{}
	declsOf := func(file string) map[string]bool {
		if d, ok := decls[file]; ok {
			return d
		}
		d := map[string]bool{}
		decls[file] = d
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, file), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			return d
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv != nil {
					name = "(" + recvName(decl.Recv.List[0].Type) + ")." + name
				}
				d[name] = true
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							d[n.Name] = true
						}
					case *ast.TypeSpec:
						d[spec.Name.Name] = true
					}
				}
			}
		}
		return d
	}
	check := func(owner, entry string) {
		file, sym, ok := strings.Cut(entry, " ")
		if !ok || !declsOf(file)[sym] {
			t.Errorf("%s: %q names no declaration of %s (want \"adapter/FILE.go SYMBOL\", SYMBOL a function, (*recv).method, const, var or type)", owner, entry, file)
		}
	}
	for id, entries := range adapterCode {
		if _, ok := cat.Lookup(id); !ok {
			t.Errorf("adapterCode names %s, which the catalog does not have", id)
		}
		for _, e := range entries {
			check(id, e)
		}
	}
	for tool, e := range toolCode {
		check(tool, e)
	}
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	}
	return "?"
}
