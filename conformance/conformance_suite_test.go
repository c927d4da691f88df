package conformance_test

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// The conformance suite (conformance/checks.Suite), against the reference
// adapter unless -mcpcheck.url or -mcpcheck.stdio names another target.
var _ = checks.Suite{Reference: reference.Spec, GoldenDir: "../golden/reference"}.Declare()

func TestConformance(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := checks.Configuration()
	ginkgo.RunSpecs(t, "PDPP MCP conformance", suiteConfig, reporterConfig)
}
