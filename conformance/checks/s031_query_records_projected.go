package checks

import (
	"net/url"
	"sort"

	. "github.com/onsi/gomega"
)

var s031 = &Check{ID: "S031", Slug: "query-records-projected", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	var (
		src    source
		fields []string
	)
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		_, rows := scopedSchema(t, s.args(nil))
		var names []string
		for _, r := range rows {
			for _, f := range fieldNames(r) {
				if f != "id" {
					names = append(names, f)
				}
			}
		}
		if len(names) >= 3 {
			src, fields = s, names[:2]
			break
		}
	}
	if src.stream == "" {
		t.Skipf("no stream in the target's grant shows three or more fields to project")
	}
	on := t.Private()
	c := on.Call("query_records", src.args(map[string]any{"fields": fields, "limit": 5}))
	t.Expect(c.IsError()).To(BeFalse(), "a projected read must succeed: %s", c.Describe())
	recs := records(c)
	t.Expect(recs).NotTo(BeEmpty(), "the projected read must return records to judge: %s", c.Describe())

	declared := queryRecordsDocs(on.Target)
	wanted := map[string]bool{}
	for _, f := range fields {
		wanted[f] = true
	}
	leaks := map[string]bool{}
	for _, r := range recs {
		for k, v := range r {
			if k == "data" {
				if data, ok := v.(map[string]any); ok {
					for dk := range data {
						if !wanted[dk] {
							leaks["data."+dk] = true
						}
					}
				}
				continue
			}
			if !wanted[k] && !containsToken(declared, k) {
				leaks[k] = true
			}
		}
	}
	var list []string
	for k := range leaks {
		list = append(list, k)
	}
	sort.Strings(list)
	t.Expect(list).To(BeEmpty(), "records projected to %v hold fields that are neither requested nor declared as identity or operational keys in the query_records description", fields)

	if on != t {
		reqs := on.RS().RequestsTo("/v1/streams/" + url.PathEscape(src.stream) + "/records")
		t.Expect(reqs).NotTo(BeEmpty())
		q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
		t.Expect(q["fields"]).To(Equal(fields), "the RS must receive fields, one repeated parameter per field")
	}
}}

// queryRecordsDocs is everything query_records says about itself.
func queryRecordsDocs(tgt *Target) string { return toolDocs(tgt, "query_records") }
