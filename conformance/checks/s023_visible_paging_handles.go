package checks

import (
	"fmt"

	. "github.com/onsi/gomega"
)

var s023 = &Check{ID: "S023", Slug: "visible-paging-handles", Mode: ModeBBD, Run: func(t *T) {
	src, page1, ok := findPaged(t)
	if !ok {
		t.Skipf("no stream in the target's grant has more than one page of two records")
	}
	env := page1.Data()
	text := page1.Text()
	want, _ := env["next_cursor"].(string)
	t.Expect(want).NotTo(BeEmpty(), "a page with has_more=true must carry next_cursor: %s", page1.Describe())
	got, found := handleIn(text, "next_cursor")
	t.Expect(found).To(BeTrue(), "content[] text must carry next_cursor for hosts that hide structuredContent:\n%s", clipText(text, 600))
	t.Expect(got).To(Equal(want), "the next_cursor in text must be the envelope's")
	if n, ok := findKey(env["meta"], "value"); ok {
		t.Expect(containsToken(text, fmt.Sprint(n))).To(BeTrue(), "the exact count %v must appear in text:\n%s", n, clipText(text, 600))
	}

	// Follow the handle from text alone.
	page2 := t.Call("query_records", src.args(map[string]any{"limit": 2, "cursor": got}))
	t.Expect(page2.IsError()).To(BeFalse(), "the next_cursor shown in text must page forward: %s", page2.Describe())
	first := map[any]bool{}
	for _, r := range records(page1) {
		first[r["id"]] = true
	}
	for _, r := range records(page2) {
		t.Expect(first[r["id"]]).To(BeFalse(), "page 2 repeats record %v of page 1", r["id"])
	}

	ch := t.Call("query_records", src.args(map[string]any{"limit": 2, "changes_since": "beginning"}))
	if !ch.IsError() {
		if want, _ := ch.Data()["next_changes_since"].(string); want != "" {
			got, found := handleIn(ch.Text(), "next_changes_since")
			t.Expect(found && got == want).To(BeTrue(), "content[] text must carry next_changes_since=%q:\n%s", want, clipText(ch.Text(), 600))
			resume := t.Call("query_records", src.args(map[string]any{"changes_since": got}))
			t.Expect(resume.IsError()).To(BeFalse(), "the next_changes_since shown in text must resume the feed: %s", resume.Describe())
		}
	}

	word := searchableWord(records(page1))
	if word == "" {
		return
	}
	s := t.Call("search", map[string]any{"q": word, "limit": 1})
	if s.IsError() {
		return
	}
	if next, ok := findKey(s.Structured(), "next_cursor"); ok && next != nil && next != "" {
		got, found := handleIn(s.Text(), "next_cursor")
		t.Expect(found && got == next).To(BeTrue(), "search text must carry next_cursor=%v:\n%s", next, clipText(s.Text(), 600))
		more := t.Call("search", map[string]any{"q": word, "limit": 1, "cursor": got})
		t.Expect(more.IsError()).To(BeFalse(), "the search next_cursor shown in text must page forward: %s", more.Describe())
	}
}}
