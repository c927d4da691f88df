package checks

import "testing"

// Advice is judged by meaning: a sentence that tells the model to page,
// narrow fields, or aggregate or search, not a word in a sentence that
// only describes the tool.
func TestSteersAwayReadsAdviceNotKeywords(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		advice bool
	}{
		{"List records of one stream in bounded pages (default 25, max 100). Narrow with fields, filter with typed objects, page with cursor. Read-only.", true},
		{"Lists records. Prefer aggregate or search when full records are not needed.", true},
		{"Reads records. Use fields to keep only what you need; pass next_cursor for the next page.", true},
		{"Returns records. If you only need totals, call aggregate instead.", true},
		{"List records of one stream in bounded pages (default 25, max 100); the full page is structured output in structuredContent.data. Read-only; GET /v1/streams/{stream}/records.", false},
		{"Reads the records a search found, with all their fields. Read-only.", false},
		{"List records of one stream; see schema(stream). Read-only.", false},
	} {
		if got := steersAway(tc.desc) != ""; got != tc.advice {
			t.Errorf("steersAway(%q) = %v, want %v", tc.desc, got, tc.advice)
		}
	}
}
