package checks

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
	term, c, conns := textFanInTerm(t)
	if c == nil {
		t.Skipf("no word from the target's visible records finds any hit")
	}
	t.Record("connections named in the search text", conns)
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

var (
	textStreamRe  = regexp.MustCompile(`\b(?:name|stream)="?([A-Za-z0-9_.-]+)"?`)
	textConnRe    = regexp.MustCompile(`\bconnection_id[:=]"?([A-Za-z0-9_.-]+)`)
	textValueRe   = regexp.MustCompile(`":"([^"\\]{3,})"`)
	textHitConnRe = regexp.MustCompile(`\bid=([^/\s]+)/`)
	hitCountRe    = regexp.MustCompile(`\b(\d+) (?:hit|result)`)
)

// textFanInTerm is fanInTerm for a host that shows only content[]: streams
// and connections come from the schema text, words from the record
// previews' text, and the connections of hits from the fetch ids in the
// search text. It returns the term whose search text names the most
// connections, that search, and how many it names.
func textFanInTerm(t *T) (string, *Call, int) {
	idx := t.Call("schema", map[string]any{})
	t.Expect(idx.IsError()).To(BeFalse(), "schema {} must succeed: %s", idx.Describe())
	var srcs []source
	for _, line := range strings.Split(idx.Text(), "\n") {
		m := textStreamRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := source{stream: m[1]}
		if cm := textConnRe.FindStringSubmatch(line); cm != nil {
			s.conn = cm[1]
		}
		srcs = append(srcs, s)
	}
	var words []string
	seen := map[string]bool{}
	for i, s := range srcs {
		if i == maxStreamProbes {
			break
		}
		c := t.Call("query_records", s.args(map[string]any{"limit": 5}))
		if c.IsError() {
			continue
		}
		for _, v := range textValueRe.FindAllStringSubmatch(c.Text(), -1) {
			if w := strings.ToLower(wordRe.FindString(v[1])); w != "" && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	var best string
	var bestCall *Call
	bestConns := 0
	for i, w := range words {
		if i == 12 || bestConns >= 3 {
			break
		}
		c := t.Call("search", map[string]any{"q": w})
		// Hits are known from the text: fetch ids, or a count of hits.
		if n := hitCountRe.FindStringSubmatch(c.Text()); c.IsError() || (!fetchHandleRe.MatchString(c.Text()) && (n == nil || n[1] == "0")) {
			continue
		}
		named := map[string]bool{}
		for _, m := range textHitConnRe.FindAllStringSubmatch(c.Text(), -1) {
			named[m[1]] = true
		}
		if bestCall == nil || len(named) > bestConns {
			best, bestCall, bestConns = w, c, len(named)
		}
	}
	return best, bestCall, bestConns
}
