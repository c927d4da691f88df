package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	hiddenClaimRe = regexp.MustCompile(`(?i)structured\s?content[^.]{0,80}\b(hidden|invisible|not (visible|shown|seen)|never (seen|shown|visible)|the model (cannot|can't|does not) see)\b|` +
		`\b(hidden|invisible)\b[^.]{0,60}structured\s?content`)
	pagingRe = regexp.MustCompile(`(?i)\b(page|pages|paging|cursor)\b`)
	narrowRe = regexp.MustCompile(`(?i)\b(fields|narrow|aggregate|search)\b`)
)

var s005 = &Check{ID: "S005", Slug: "structured-not-hidden", Mode: ModeBB, Run: func(t *T) {
	for tool, texts := range toolDescriptions(t.Target) {
		for _, d := range texts {
			t.Expect(hiddenClaimRe.FindString(d)).To(BeEmpty(), "tool %s claims structured data is hidden from the model: %q", tool, d)
			if strings.Contains(d, "structuredContent") {
				t.Expect(strings.ToLower(d)).To(ContainSubstring("structured"), "tool %s mentions structuredContent without calling it structured output", tool)
			}
		}
	}
	// The wide-read tool must steer the model to page, narrow or aggregate.
	for _, tool := range t.Target.Tools {
		if tool.Name != "query_records" {
			continue
		}
		t.Expect(pagingRe.MatchString(tool.Description)).To(BeTrue(), "query_records must tell the model to page: %q", tool.Description)
		t.Expect(narrowRe.MatchString(tool.Description)).To(BeTrue(), "query_records must tell the model to narrow fields or use aggregate/search: %q", tool.Description)
		return
	}
	t.Skipf("the target has no query_records tool to judge (S012 reports membership)")
}}
