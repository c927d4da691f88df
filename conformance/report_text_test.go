package conformance

import (
	"bytes"
	"strings"
	"testing"
)

// The head names the whole target: a long command (a checkout's deep path)
// must not cut off the RS it read, which CI's runner once did.
func TestTextHeadKeepsTheWholeTarget(t *testing.T) {
	long := "stdio /ci/" + strings.Repeat("deep/", 30) + "r_adapter.py --provider-url {rs_url}, reading the real PDPP reference RS (github grant)"
	var out bytes.Buffer
	(&Report{Tool: "mcpcheck test", Target: long}).WriteText(&out)
	joined := strings.Join(strings.Fields(out.String()), " ")
	if !strings.Contains(joined, "reading the real PDPP reference RS (github grant)") {
		t.Fatalf("the head cut the target:\n%s", out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if len([]rune(l)) > TextWidth {
			t.Errorf("a head line is wider than %d: %q", TextWidth, l)
		}
	}
}
