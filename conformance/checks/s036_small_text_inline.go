package checks

import (
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
)

// smallField finds a record with a short plain-text field (not its id).
func smallField(t *T) (aRecord, string, string, bool) {
	var field, value string
	rec, ok := scanRecords(t, func(r aRecord) bool {
		for k, v := range r.Data {
			if s, ok := v.(string); ok && k != "id" && strings.Count(s, " ") >= 2 && utf8.RuneCountInString(s) <= 200 && !looksBinary(s) {
				field, value = k, s
				return true
			}
		}
		return false
	})
	return rec, field, value, ok
}

var s036 = &Check{ID: "S036", Slug: "small-text-inline", Mode: ModeBBD, Run: func(t *T) {
	rec, field, value, ok := smallField(t)
	if !ok {
		t.Skipf("no record of the target's grant has a short text field")
	}
	r := t.Call("read_record_field", map[string]any{"id": rec.ID, "field_path": field})
	expectInlineText(t, r, value)
}}

// expectInlineText holds a small-field read to inline text: a text part
// with the value, no resource link, no resource in structuredContent or _meta.
func expectInlineText(t *T, r *Call, value string) {
	t.Expect(r.IsError()).To(BeFalse(), "read_record_field must work: %s", r.Describe())
	t.Expect(r.Result.Content).NotTo(BeEmpty())
	first, ok := r.Result.Content[0].(*mcp.TextContent)
	t.Expect(ok).To(BeTrue(), "the first content part must be inline text, not %T", r.Result.Content[0])
	t.Expect(first.Text).To(ContainSubstring(value), "the inline text must carry the field's value")
	for _, p := range r.Result.Content {
		switch p.(type) {
		case *mcp.ResourceLink, *mcp.EmbeddedResource:
			t.Expect(false).To(BeTrue(), "small text must not come as a resource or resource_link")
		}
	}
	t.Expect(r.Structured()).NotTo(HaveKey("resource"), "no resource in structuredContent")
	t.Expect(r.Result.Meta).NotTo(HaveKey("resource"), "no resource in _meta")
}
