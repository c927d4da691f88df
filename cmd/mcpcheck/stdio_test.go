package main

import (
	"regexp"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

// A conforming stdio adapter exits 0: the scenarios about the hosted
// endpoint do not apply to it, and its report says why.
func TestConformingStdioAdapterExitsZero(t *testing.T) {
	code, out, stderr := run(t, nil, "--stdio", adaptertest.Binary(t))
	if code != conformance.ExitPass {
		t.Errorf("exit %d, want 0\n%s\n%s", code, out, stderr)
	}
	for _, id := range []string{"S010", "S039", "S040"} {
		if !regexp.MustCompile(`(?m)^\s+N/A\s+required\s+` + id + `-\S+\s+not applicable: it judges the hosted HTTP endpoint`).MatchString(out) {
			t.Errorf("%s is not reported n/a for want of a hosted endpoint:\n%s", id, out)
		}
	}
}
