package conformance_test

import (
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/checks"
)

// The conformance suite (conformance/checks.Suite), against the reference
// adapter unless -mcpcheck.url or -mcpcheck.stdio names another target.
var _ = checks.Suite{Reference: reference, GoldenDir: "../golden/reference"}.Declare()

func reference(mutant string) (conformance.TargetSpec, error) {
	m, err := adapter.ParseMutant(mutant)
	return conformance.TargetSpec{Mutant: m}, err
}

func TestConformance(t *testing.T) { checks.RunSuite(t) }
