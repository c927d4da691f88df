package conformance_test

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
)

// The Ginkgo runner and the CLI runner give identical verdicts, on the
// reference adapter and on three mutants. The Ginkgo suite runs in a child
// process of this test binary, so each run is a real Ginkgo run with its
// own JSON report; the CLI side is conformance.Run, as mcpcheck calls it.
func TestRunnersAgreeUnderMutants(t *testing.T) {
	if os.Getenv("MCPCHECK_RUNNERS_CHILD") != "" {
		t.Skip("inside a child run")
	}
	for _, m := range []string{"", "snippet-as-title", "drop-tool-fetch", "challenge-without-resource-metadata"} {
		name := string(m)
		if name == "" {
			name = "reference"
		}
		t.Run(name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "ginkgo.json")
			cmd := exec.Command(os.Args[0], "-test.run=^TestConformance$", "-test.count=1", "-mcpcheck.mutant="+string(m),
				"-ginkgo.json-report="+report, "-ginkgo.label-filter=!golden")
			cmd.Env = append(os.Environ(), "MCPCHECK_RUNNERS_CHILD=1")
			out, _ := cmd.CombinedOutput() // a mutant's failing specs make the child exit 1
			ginkgo := ginkgoVerdicts(t, report, out)
			rep, err := conformance.Run(context.Background(), conformance.Config{Target: conformance.TargetSpec{Mutant: m}})
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
				out[id] = conformance.Skip
			case strings.HasPrefix(s.Failure.Message, "error:"):
				out[id] = conformance.Error
			default:
				out[id] = conformance.Fail
			}
		}
	}
	return out
}
