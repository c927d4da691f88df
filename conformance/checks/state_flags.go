package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Shared by S023, S048 and S049: explicit completion flags held to the
// fixture.

// judgeStateFlags holds each explicit completion flag an answer c shows
// (probe.StateClaims), in its text and in its structuredContent apart, to
// the fixture: whole says the answer serves all there is (a whole field, a
// last page) or not. value, the fixture's own text in it, is set aside
// first, so only what the target says of it counts. keys, when given,
// are the only flags read (a page's "complete" may be its search recall's).
func judgeStateFlags(t *T, c *Call, value string, whole bool, what string, keys ...string) {
	parts := []struct {
		where, s string
	}{{"text", c.Text()}, {"structuredContent", probe.CompactJSON(c.Structured())}}
	truth := map[bool]string{true: "all there is", false: "not all there is"}[whole]
	for _, p := range parts {
		s := p.s
		if value != "" {
			s = strings.ReplaceAll(s, value, "")
		}
		in := conformance.Shown(fmt.Sprintf("the %s of %s", p.where, c.Describe()), s)
		for _, claim := range probe.StateClaims(s) {
			if len(keys) > 0 && !slices.Contains(keys, claim.Key) {
				continue
			}
			t.AssertWith(claim.Whole == whole, func() (conformance.Witness, error) { return conformance.Present(claim.Excerpt, in) },
				"%s, which the fixture says is %s: its %s says otherwise (%s)", what, truth, p.where, claim.Excerpt)
		}
	}
}
