package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S036: a small field's bounded read, asked with the handle the target
// showed for its record, shows its fixture value inline; a resource link
// or file beside the text is allowed (seed 002: the adapter "MAY return
// MCP resource_link blocks"), as the only way to the text it is not.
var s036 = &Check{ID: "S036", Slug: "small-text-inline", Mode: ModeBBD, Tools: []string{"read_record_field"}, Run: func(t *T) {
	f, ok := probe.SmallField(t)
	if !ok {
		t.Skipf("no record of the grant has a short text field whose handle a query_records text shows")
	}
	r := f.Read(t, nil)
	t.Clause(1, func() {
		if t.Works(r, f.From(t), "the bounded read of %s's small field %s must work", f.Rec.Ref, f.Field) {
			t.Shows(conformance.TextOf(r), read.Text(f.Value), "the bounded read of a small field must show its value %q in a text part", clipText(f.Value, 80))
		}
	})
	t.Clause(2, func() { expectNotOnlyMaterialized(t, r, f.Value) })
}}

// expectNotOnlyMaterialized judges a small field's read: a resource link
// or file standing for the field, with the field's value in no text part,
// is the witness.
func expectNotOnlyMaterialized(t *T, r *Call, value string) {
	if r.IsError() {
		t.Skipf("the bounded read failed")
	}
	files := probe.Materialized(r)
	t.AssertWith(probe.InlineHolds(r, value) || len(files) == 0, func() (conformance.Witness, error) {
		return conformance.Witness{Kind: conformance.WitnessPresent, Fact: files[0], In: []string{r.Describe() + ", whose text parts never show " + clipText(value, 60)}}, nil
	}, "a small field must not come only as a file or export (%s): %s", strings.Join(files, ", "), r.Describe())
}
