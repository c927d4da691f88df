package variation

import (
	"regexp"
	"slices"
	"sort"
	"testing"
)

var seedRe = regexp.MustCompile(`\bseed 00[0-4]\b`)

// Every conforming variant names its freedom and the seed text that allows
// it, kills nothing, and changes something a client sees: its tools/list,
// a tool's answer, its resources, --help or the setup pages. A variant that
// changes nothing proves nothing.
func TestVariantsAreDocumentedAndObservable(t *testing.T) {
	shipped := observe(t, nil)
	if diff := differing(shipped, observe(t, nil)); len(diff) > 0 {
		t.Fatalf("two runs of the shipped adapter differ in %v: the observation would prove nothing", diff)
	}
	mutants := map[string]bool{}
	for _, m := range All() {
		mutants[m.ID] = true
	}
	seen := map[string]bool{}
	for _, v := range Variants() {
		t.Run(v.ID, func(t *testing.T) {
			if seen[v.ID] || mutants[v.ID] {
				t.Errorf("the id %s is taken", v.ID)
			}
			seen[v.ID] = true
			if !v.Conforming() || v.Allowed == "" || v.Doc == "" || v.Apply == nil {
				t.Errorf("a variant needs Freedom, Allowed, Doc and Apply")
			}
			if len(v.Kills) > 0 || len(v.Collateral) > 0 {
				t.Errorf("a conforming variant kills nothing, got %v %v", v.Kills, v.Collateral)
			}
			if !seedRe.MatchString(v.Allowed) {
				t.Errorf("Allowed must quote the seed that allows the freedom, with its number (seed 00N): %q", v.Allowed)
			}
			if got, err := Lookup(v.ID); err != nil || got.ID != v.ID {
				t.Errorf("Lookup(%q) = %v, %v", v.ID, got, err)
			}
			if diff := differing(shipped, observe(t, &v)); len(diff) == 0 {
				t.Errorf("changes nothing a client observes")
			} else {
				t.Logf("observably different: %v", diff)
			}
		})
	}
}

// differing lists the observations that are not the same in a and b.
func differing(a, b observation) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}
