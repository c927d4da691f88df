package matrix

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// The Ginkgo runner and the CLI runner give identical verdicts, on the
// reference adapter and on three mutants. The Ginkgo side is a real run of
// the suite's own test binary (conformance.test, built once) with its own
// JSON report; the CLI side is conformance.Run, as mcpcheck calls it.
func TestRunnersAgreeUnderMutants(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "conformance.test")
	if out, err := exec.Command("go", "test", "-c", "-o", suite, "github.com/pdpp-connect/mcpcheck/conformance").CombinedOutput(); err != nil {
		t.Fatalf("build the suite: %v\n%s", err, out)
	}
	for _, m := range []string{"", "snippet-as-title", "drop-tool-fetch", "challenge-without-resource-metadata"} {
		name := m
		if name == "" {
			name = "reference"
		}
		t.Run(name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "ginkgo.json")
			cmd := exec.Command(suite, "-test.run=^TestConformance$", "-test.count=1", "-mcpcheck.mutant="+m,
				"-ginkgo.json-report="+report, "-ginkgo.label-filter=!golden")
			cmd.Dir = ".."                 // the suite's package directory, as go test runs it
			out, _ := cmd.CombinedOutput() // a mutant's failing specs make the child exit 1
			ginkgo := ginkgoVerdicts(t, report, out)
			entries, err := checks.LoadRegistry()
			if err != nil {
				t.Fatal(err)
			}
			spec, err := reference.Spec(m)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := conformance.Run(context.Background(), conformance.Config{Target: spec, Entries: entries})
			if err != nil {
				t.Fatal(err)
			}
			cli := rep.Verdicts()
			if len(ginkgo) != len(cli) {
				t.Errorf("Ginkgo judged %d scenarios, the CLI %d", len(ginkgo), len(cli))
			}
			for id, v := range cli {
				if ginkgo[id] != v {
					t.Errorf("%s: Ginkgo %q, CLI %q", id, ginkgo[id], v)
				}
			}
		})
	}
}

// ginkgoVerdicts reads a Ginkgo JSON report: one verdict per scenario id.
func ginkgoVerdicts(t *testing.T, path string, childOut []byte) map[string]conformance.Verdict {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the child wrote no Ginkgo report: %v\n%s", err, childOut)
	}
	var reports []struct {
		SpecReports []struct {
			LeafNodeType   string
			LeafNodeLabels []string
			State          string
			Failure        struct{ Message string }
		}
	}
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	out := map[string]conformance.Verdict{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != "It" || len(s.LeafNodeLabels) == 0 || s.State == "pending" || slices.Contains(s.LeafNodeLabels, "manual") {
				continue
			}
			id := s.LeafNodeLabels[0]
			switch {
			case s.State == "passed":
				out[id] = conformance.Pass
			case s.State == "skipped":
				// The suite skips what is neither pass nor fail, saying which.
				out[id] = conformance.Skip
				for _, v := range []conformance.Verdict{conformance.Partial, conformance.NA} {
					if strings.HasPrefix(s.Failure.Message, string(v)+":") {
						out[id] = v
					}
				}
				if strings.HasPrefix(s.Failure.Message, "recommended clauses failed") {
					out[id] = conformance.Fail
				}
			case strings.HasPrefix(s.Failure.Message, "error:"):
				out[id] = conformance.Error
			default:
				out[id] = conformance.Fail
			}
		}
	}
	return out
}
