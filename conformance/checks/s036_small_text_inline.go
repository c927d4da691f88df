package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S036: a small field's bounded read shows it inline; a resource link or
// file beside the text is allowed (seed 002: the adapter "MAY return MCP
// resource_link blocks"), as the only way to the text it is not.
var s036 = &Check{ID: "S036", Slug: "small-text-inline", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	r, value := probe.SmallFieldRead(t)
	t.Clause(1, func() {
		t.Assert(!r.IsError() && probe.InlineHolds(r, value), "the bounded read of a small field must show its value %q in a text part: %s", clipText(value, 80), r.Describe())
	})
	t.Clause(2, func() {
		if r.IsError() {
			t.Skipf("the bounded read failed (S036.1)")
		}
		files := probe.Materialized(r)
		t.Assert(probe.InlineHolds(r, value) || len(files) == 0, "a small field must not come only as a file or export (%s): %s", strings.Join(files, ", "), r.Describe())
	})
}}
