package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

var s026 = &Check{ID: "S026", Slug: "search-snippet-highlight", Mode: ModeBBD, Run: func(t *T) {
	term, c, ok := fanInTerm(t)
	if !ok && c == nil {
		t.Skipf("no word from the target's records finds any hit")
	}
	calls := []*Call{c}
	if ok {
		calls = append(calls, t.Call("search", map[string]any{"q": term + " " + term, "limit": 25}))
	}
	judged := 0
	for _, call := range calls {
		for _, s := range textSnippets(call) {
			judged++
			t.Expect(markupProblem(s)).To(BeEmpty(), "snippet %q", clipText(s, 300))
		}
		for _, line := range strings.Split(call.Text(), "\n") {
			t.Expect(markupProblem(line)).To(BeEmpty(), "visible text line %q", clipText(line, 300))
		}
	}
	t.Record("snippets judged", judged)
}}
