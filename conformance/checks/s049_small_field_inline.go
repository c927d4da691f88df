package checks

import (
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S049: the bounded read of a small field holds the text inline with its
// window's facts, found by value in text or structuredContent.
var s049 = &Check{ID: "S049", Slug: "small-field-inline", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	r, value := probe.SmallFieldRead(t)
	t.Clause(1, func() {
		if !t.Assert(!r.IsError() && probe.InlineHolds(r, value), "the bounded read of a small field must hold its text %q inline: %s", clipText(value, 80), r.Describe()) {
			return
		}
		missing := probe.WindowFacts(r, utf8.RuneCountInString(value))
		t.Assert(len(missing) == 0, "the read must show %s: %s", strings.Join(missing, ", "), r.Describe())
	})
	t.Clause(2, func() {
		if r.IsError() {
			t.Skipf("the bounded read failed (S049.1)")
		}
		files := probe.Materialized(r)
		t.Assert(probe.InlineHolds(r, value) || len(files) == 0, "a small field's read must not be only a resource link or file attachment (%s): %s", strings.Join(files, ", "), r.Describe())
	})
}}
