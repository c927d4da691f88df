package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var binaryWordRe = regexp.MustCompile(`(?i)binary`)

var s038 = &Check{ID: "S038", Slug: "binary-metadata-only", Mode: ModeBBD, Run: func(t *T) {
	var field string
	rec, ok := scanRecords(t, func(r aRecord) bool {
		for k, v := range r.Data {
			if looksBinary(v) {
				field = k
				return true
			}
		}
		return false
	})
	if !ok {
		t.Skipf("no record of the target's grant holds a binary field")
	}
	var bodies []string
	var routes []string
	for _, v := range rec.Data {
		switch x := v.(type) {
		case string:
			if looksBinary(x) {
				bodies = append(bodies, x[len(x)/2:len(x)/2+40])
			}
		case map[string]any:
			if u := str(x["fetch_url"]); u != "" {
				routes = append(routes, u)
			}
		}
	}
	src := source{stream: rec.Stream, conn: rec.Conn}
	q := t.Call("query_records", src.args(map[string]any{"limit": 5}))
	f := t.Call("fetch", map[string]any{"id": rec.ID})
	for _, c := range []*Call{q, f} {
		t.Expect(c.IsError()).To(BeFalse(), "%s must work: %s", c.Tool, c.Describe())
		visible := c.Text()
		if c.Tool == "fetch" {
			visible += string(c.Raw)
		}
		for _, b := range bodies {
			t.Expect(strings.Contains(visible, b)).To(BeFalse(), "%s must keep the base64 body of a binary field out of model-visible output", c.Tool)
		}
		t.Expect(binaryWordRe.MatchString(visible)).To(BeTrue(), "%s must say a binary field (%s) is there, as metadata", c.Tool, field)
	}
	for _, r := range routes {
		t.Expect(q.Text()+f.Text()).To(ContainSubstring(r), "the grant-scoped blob route %s must be offered as the continuation", r)
	}
}}
