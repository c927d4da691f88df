package checks

import (
	"unicode/utf8"

	. "github.com/onsi/gomega"
)

var s049 = &Check{ID: "S049", Slug: "small-field-inline", Mode: ModeBBD, Run: func(t *T) {
	rec, field, value, ok := smallField(t)
	if !ok {
		t.Skipf("no record of the target's grant has a short text field")
	}
	r := t.Call("read_record_field", map[string]any{"id": rec.ID, "field_path": field})
	expectInlineText(t, r, value)
	sc := r.Structured()
	w, _ := sc["window"].(map[string]any)
	t.Expect(w).NotTo(BeNil(), "structuredContent.window must describe the window")
	t.Expect(w["text"]).To(Equal(value), "the window text is the whole small field")
	for _, k := range []string{"start_chars", "end_chars", "limit_chars", "total_chars", "complete"} {
		t.Expect(w).To(HaveKey(k), "the window must say %s", k)
	}
	t.Expect(w["complete"]).To(Equal(true), "a small field fits one window: complete=true")
	t.Expect(w["total_chars"]).To(BeNumerically("==", utf8.RuneCountInString(value)), "total_chars is the field's size")
	t.Expect(w["limit_chars"]).To(BeNumerically(">=", 1))
	record, _ := sc["record"].(map[string]any)
	for _, k := range []string{"id", "connection_id", "stream", "record_id"} {
		t.Expect(record).To(HaveKey(k), "structuredContent.record must carry %s", k)
	}
	f, _ := sc["field"].(map[string]any)
	t.Expect(f["path"]).To(Equal(field))
	t.Expect(f).To(HaveKey("text_like"))
}}
