package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	cutLineRe = regexp.MustCompile(`…|\[truncated|\[binary-only|\[json_field`)
	// omissionRe finds a marker saying items of the answer are not shown.
	omissionRe = regexp.MustCompile(`\bmore_(?:results|records|fields|hits|items)=\d+`)
	// shownIDRe finds the fetch id of a listed hit or previewed record.
	shownIDRe = regexp.MustCompile(`(?m)^(?:\d+\.|record\[\d+\]) id=(\S+)`)
)

// Every visible truncation or omission marker comes with a continuation the
// model can call, and every continuation found is executed.
var s033 = &Check{ID: "S033", Slug: "omitted-content-continuation", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	executed := 0
	run := func(c continuation, from string) *Call {
		executed++
		r := t.Call(c.Tool, c.Args)
		t.Expect(r.IsError()).To(BeFalse(), "the continuation %s %v shown in %s must work: %s", c.Tool, c.Args, from, r.Describe())
		if id := str(c.Args["id"]); id != "" && c.Tool == "read_record_field" {
			t.Expect(r.Text()).To(ContainSubstring(id), "the continuation must stay on record %s", id)
		}
		return r
	}
	// follow requires each omission marker to carry a call on its line and
	// follows the resumed pages until nothing is hidden: the ids shown
	// along the way must cover the whole first page.
	follow := func(first *Call, tool string, total int) {
		seen := map[string]bool{}
		marked := false
		c := first
		for step := 0; c != nil && step < 40; step++ {
			text := c.Text()
			for _, m := range shownIDRe.FindAllStringSubmatch(text, -1) {
				seen[strings.TrimRight(m[1], ".,;")] = true
			}
			var next *Call
			for _, line := range strings.Split(text, "\n") {
				mk := omissionRe.FindString(line)
				if mk == "" {
					continue
				}
				marked = true
				conts := continuationsIn(line)
				t.Expect(conts).NotTo(BeEmpty(), "the omission marker %s in %s text must carry a call that reaches the hidden items, not only structuredContent:\n%s", mk, tool, clipText(line, 300))
				for _, cont := range conts {
					if r := run(cont, tool+" "+mk); cont.Tool == tool {
						next = r
					}
				}
			}
			c = next
		}
		if marked && len(seen) > 0 {
			t.Expect(len(seen)).To(Equal(total), "following the %s continuations in text must reach every item of the first page (%d shown of %d)", tool, len(seen), total)
		}
	}
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		c := t.Call("query_records", s.args(nil)) // default limits: the preview hides most of the page
		if c.IsError() {
			continue
		}
		follow(c, "query_records", len(records(c)))
		text := c.Text()
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "record[") || !cutLineRe.MatchString(line) {
				continue
			}
			m := evIDRe.FindStringSubmatch(line)
			t.Expect(m).NotTo(BeNil(), "a cut record preview must carry the id to fetch it whole: %s", clipText(line, 200))
			f := t.Call("fetch", map[string]any{"id": strings.TrimRight(m[1], ".,;")})
			t.Expect(f.IsError()).To(BeFalse(), "fetch with the id of a cut preview must work: %s", f.Describe())
			executed++
		}
		for _, cont := range continuationsIn(text) {
			run(cont, "query_records text")
		}
	}
	term, sc, _ := fanInTerm(t)
	if sc != nil {
		d := t.Call("search", map[string]any{"q": term})
		t.Expect(d.IsError()).To(BeFalse(), "search at its default limit must work: %s", d.Describe())
		follow(d, "search", len(hits(d)))
		for _, e := range evidenceLines(sc.Text()) {
			if strings.Contains(e.Line, "complete=false") && e.ID != "" {
				run(continuation{Tool: "read_record_field", Args: map[string]any{"id": e.ID, "field_path": e.FieldPath}}, "search evidence")
			}
		}
	}
	// A long field read in small windows: the next window starts where the last ended.
	long, ok := scanRecords(t, func(r aRecord) bool { return longestString(r.Data) > 600 })
	if ok {
		f := longestField(long.Data)
		w := t.Call("read_record_field", map[string]any{"id": long.ID, "field_path": f, "limit_chars": 200})
		t.Expect(w.IsError()).To(BeFalse(), "read_record_field must work: %s", w.Describe())
		conts := continuationsIn(w.Text())
		t.Expect(conts).NotTo(BeEmpty(), "an incomplete window must show the next call:\n%s", clipText(w.Text(), 400))
		for _, cont := range conts {
			run(cont, "read_record_field text")
		}
	}
	t.Record("continuations executed", executed)
	if executed == 0 {
		t.Skipf("the target's visible output showed no truncation to follow")
	}
}}

func longestString(data map[string]any) int {
	n := 0
	for _, v := range data {
		if s, ok := v.(string); ok && !looksBinary(s) && len([]rune(s)) > n {
			n = len([]rune(s))
		}
	}
	return n
}

func longestField(data map[string]any) string {
	best, n := "", 0
	for k, v := range data {
		if s, ok := v.(string); ok && !looksBinary(s) && len([]rune(s)) > n {
			best, n = k, len([]rune(s))
		}
	}
	return best
}
