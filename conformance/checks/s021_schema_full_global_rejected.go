package checks

import (
	"net/url"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var scopedFullCallRe = regexp.MustCompile(`schema\s*\(\s*stream`)

var s021 = &Check{ID: "S021", Slug: "schema-full-global-rejected", Mode: ModeBB, Run: func(t *T) {
	c := t.Call("schema", map[string]any{"detail": "full"})
	t.Expect(c.IsError()).To(BeTrue(), "schema(detail: \"full\") without stream must be rejected: %s", c.Describe())
	text := c.Text()
	t.Expect(c.ErrorCode()).NotTo(BeEmpty(), "the rejection must be a typed error: %s", clipText(text, 400))
	// Seed 001 is stricter than the anchor, which returns the RS's REST
	// phrasing (catalog C5): the error names the scoped MCP call.
	t.Expect(scopedFullCallRe.MatchString(text)).To(BeTrue(), "the error must point to schema(stream, connection_id, detail: \"full\"): %s", clipText(text, 400))
	t.Expect(text).To(And(ContainSubstring("connection_id"), ContainSubstring("full")), "the error must name connection_id and detail \"full\" for the retry")
	if t.Target.Has(CapControlledRS) {
		for _, r := range t.RS().RequestsTo("/v1/schema") {
			q, _ := url.ParseQuery(r.RawQuery)
			grantWide := q.Get("stream") == "" && !strings.EqualFold(q.Get("view"), "compact")
			t.Expect(grantWide && r.Status == 200).To(BeFalse(), "the adapter fetched the grant-wide full schema (GET /v1/schema?%s)", r.RawQuery)
		}
	}
}}
