package conformance_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/pdpp-connect/mcpcheck"

// under reports whether pkg is dir or a package below it (both module paths
// without the module prefix).
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// importViolation says why package pkg may not link dep (both module paths
// without the module prefix), or "". The import rules of docs/DESIGN.md:
//   - the framework, conformance, and the checks, conformance/checks, link
//     no adapter/... package: they judge an adapter they do not know;
//   - adapter/... links no conformance/... and no fakers: the shipped
//     adapter holds nothing of the harness. adapter/variation (the mutant
//     catalogue) may link only adapter/... of this module. adapter/adaptertest
//     serves the adapter in front of a fixture RS for other packages' tests
//     (as net/http/httptest does) and is not part of the shipped adapter.
//   - no harness package (conformance/..., but conformance/reference, the
//     one seam, and conformance/matrix, which runs it) links adapter/...;
//     what both sides need (the shell quoter) lives in the module's internal/;
//   - internal/realrskit, which starts the real RS, is for mcpcheck's
//     command line (--rs real) and the tests that run against the real RS
//     (fakers/realrsdiff, integration/...) only: never the harness;
//   - the framework links neither the probes (conformance/probe) nor the
//     checks; the probes do not link the checks; the readers
//     (conformance/read) link nothing of the module;
//   - the checks and probes do not import the framework's internals
//     (conformance/internal/...): they reach them through the framework
//     ([directImportViolation]).
func importViolation(pkg, dep string) string {
	switch {
	case dep == "internal/realrskit" && !under(pkg, "fakers/realrsdiff") && !under(pkg, "integration") && pkg != "cmd/mcpcheck":
		return "the real-RS starter serves only mcpcheck --rs real and the tests that run against the real RS"
	case pkg == "conformance" && (under(dep, "conformance/probe") || under(dep, "conformance/checks")):
		return "the framework knows no probe and no check: they build on it"
	case under(pkg, "conformance/probe") && under(dep, "conformance/checks"):
		return "the probes sit below the checks: checks import probe, never the reverse"
	case pkg == "conformance/dialect":
		return "the role resolver is a leaf: it reads a target's tools/list and answers, and links nothing of the module"
	case pkg == "conformance/read":
		return "the readers are a leaf: pure functions of text and JSON, which link nothing of the module"
	case under(pkg, "conformance") && !under(pkg, "conformance/reference") && !under(pkg, "conformance/matrix") &&
		!under(pkg, "conformance/clausemap") && under(dep, "adapter"):
		return "the harness does not import the adapter it judges (conformance/reference does, and the matrix and clause map that run and name its mutants)"
	case under(pkg, "adapter/variation") && !under(dep, "adapter") && !under(dep, "internal"):
		return "the mutant catalogue may import only adapter/... (and the module's internal/...)"
	case under(pkg, "adapter") && !under(pkg, "adapter/variation") && !under(pkg, "adapter/adaptertest") &&
		(under(dep, "conformance") || under(dep, "fakers")):
		return "the shipped adapter holds nothing of the harness"
	}
	return ""
}

// directImportViolation says why package pkg may not import dep itself,
// or "": the checks link conformance/internal/... through the framework
// but never name it.
func directImportViolation(pkg, dep string) string {
	if (under(pkg, "conformance/checks") || under(pkg, "conformance/probe")) && under(dep, "conformance/internal") {
		return "checks and probes reach the framework's internals only through the framework (conformance)"
	}
	return importViolation(pkg, dep)
}

func TestImportRuleCases(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"conformance", "adapter", false},
		{"conformance", "adapter/rsclient", false},
		{"conformance/checks", "adapter/variation", false},
		{"conformance/bench", "adapter/shellquote", false},
		{"conformance", "conformance/internal/sameorigin", true},
		{"conformance/bench", "internal/shellquote", true},
		{"adapter", "internal/shellquote", true},
		{"conformance/dialect", "conformance", false},
		{"conformance/read", "conformance", false},
		{"conformance/read", "fakers", false},
		{"conformance/probe", "conformance/read", true},
		{"conformance/checks", "conformance/dialect", true},
		{"conformance/checks", "conformance/probe", true},
		{"conformance/probe", "conformance", true},
		{"conformance/probe", "fakers", true},
		{"conformance/probe", "conformance/checks", false},
		{"conformance", "conformance/probe", false},
		{"conformance", "conformance/checks", false},
		{"conformance", "fakers", true},
		{"conformance/reference", "adapter", true},
		{"conformance/matrix", "conformance/reference", true},
		{"adapter", "fakers", false},
		{"adapter/rsclient", "conformance/redact", false},
		{"adapter", "adapter/rsclient", true},
		{"adapter/variation", "adapter", true},
		{"adapter/variation", "fakers", false},
		{"adapter/variation", "scenarios", false},
		{"adapter/adaptertest", "fakers", true},
		{"adapterx", "fakers", true},
		{"adapter", "internal/realrskit", false},
		{"conformance", "internal/realrskit", false},
		{"fakers", "internal/realrskit", false},
		{"fakers/realrsdiff", "internal/realrskit", true},
		{"integration/realrs", "internal/realrskit", true},
		{"cmd/mcpcheck", "internal/realrskit", true},
		{"cmd/pdpp-mcp", "internal/realrskit", false},
	} {
		if got := importViolation(c.pkg, c.dep) == ""; got != c.ok {
			t.Errorf("%s linking %s: allowed %v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"conformance/checks", "conformance/internal/sameorigin", false},
		{"conformance/checks", "conformance", true},
		{"conformance/probe", "conformance/internal/wiretap", false},
		{"conformance", "conformance/internal/wiretap", true},
		{"conformance/checks", "adapter", false},
	} {
		if got := directImportViolation(c.pkg, c.dep) == ""; got != c.ok {
			t.Errorf("%s importing %s: allowed %v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
}

// Every package of the module keeps the import rules, on what it links
// (its transitive imports; test files do not count).
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for {
		var p struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		pkg := strings.TrimPrefix(p.ImportPath, module+"/")
		for _, dep := range p.Deps {
			if d, ok := strings.CutPrefix(dep, module+"/"); ok {
				if why := importViolation(pkg, d); why != "" {
					t.Errorf("%s links %s: %s", pkg, d, why)
				}
			}
		}
		for _, dep := range p.Imports {
			if d, ok := strings.CutPrefix(dep, module+"/"); ok {
				if why := directImportViolation(pkg, d); why != "" && importViolation(pkg, d) == "" {
					t.Errorf("%s imports %s: %s", pkg, d, why)
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list named %d packages; the module has more", seen)
	}
}
