package checks

import (
	"regexp"
)

var (
	hiddenClaimRe = regexp.MustCompile(`(?i)structured\s?content[^.]{0,80}\b(hidden|invisible|not (visible|shown|seen)|never (seen|shown|visible)|(the )?model (cannot|can't|does not|doesn't|won't|will not) see)\b|` +
		`\b(hidden|invisible)\b[^.]{0,60}structured\s?content`)
	// Steering away from wide reads: page, narrow fields, or use
	// aggregate or search instead.
	steerRe = regexp.MustCompile(`(?i)\b(page|pages|paging|paginat\w*|cursor|next_cursor|fields|narrow\w*|project\w*|aggregate|search)\b`)
)

// Seed 000: descriptions "SHALL describe structuredContent as structured
// output, not as hidden output", and "SHALL instruct the model to page,
// narrow fields, or aggregate/search when it does not need full records".
// A description that never names structuredContent claims nothing hidden;
// one of the three steers suffices, on the tool that reads full records.
var s005 = &Check{ID: "S005", Slug: "structured-not-hidden", Mode: ModeBB, Run: func(t *T) {
	for tool, texts := range toolDescriptions(t.Target) {
		t.Clause(1, func() {
			for _, d := range texts {
				t.Assert(hiddenClaimRe.FindString(d) == "", "tool %s claims structured data is hidden from the model: %q", tool, d)
			}
		})
	}
	t.Clause(2, func() {
		for _, tool := range t.Target.Tools {
			if tool.Name == "query_records" {
				t.Assert(steerRe.MatchString(tool.Description), "query_records must tell the model to page, narrow fields, or use aggregate or search when it does not need full records: %q", tool.Description)
				return
			}
		}
		t.BlockedBy("S012", "the target serves no query_records, the tool that reads full records")
	})
}}
