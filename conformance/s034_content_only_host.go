package conformance

import (
	"encoding/json"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	fetchHandleRe = regexp.MustCompile(`(?:first_fetch_id|\bid)=(\S+)`)
	evidenceRe    = regexp.MustCompile(`field_path=(\S+).*?\bid=(\S+)`)
)

// The journey reads content[] text only, as a host that hides
// structuredContent would: search, fetch, then a bounded field read.
var s034 = &Check{ID: "S034", Slug: "content-only-host", Mode: ModeBBD, Run: func(t *T) {
	term, c, _ := fanInTerm(t)
	if c == nil {
		t.Skipf("no word from the target's records finds any hit")
	}
	text := c.Text()
	m := fetchHandleRe.FindStringSubmatch(text)
	t.Expect(m).NotTo(BeNil(), "search text for %q must show a fetchable id:\n%s", term, clipText(text, 600))
	id := strings.TrimRight(m[1], ".,;")
	f := t.Call("fetch", map[string]any{"id": id})
	t.Expect(f.IsError()).To(BeFalse(), "fetch with the id from text alone must work: %s", f.Describe())
	var doc map[string]any
	t.Expect(json.Unmarshal([]byte(strings.TrimSpace(f.Text())), &doc)).To(Succeed(), "fetch text must carry the document")

	var fid, path string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "read_record_field") {
			if e := evidenceRe.FindStringSubmatch(line); e != nil {
				path, fid = e[1], strings.TrimRight(e[2], ".,;")
				break
			}
		}
	}
	if path == "" {
		t.Skipf("the search text offers no read_record_field evidence to follow for %q", term)
	}
	r := t.Call("read_record_field", map[string]any{"id": fid, "field_path": path})
	t.Expect(r.IsError()).To(BeFalse(), "read_record_field with the id and field_path from text alone must work: %s", r.Describe())
	t.Expect(strings.TrimSpace(r.Text())).NotTo(BeEmpty(), "the bounded read must show text")
}}
