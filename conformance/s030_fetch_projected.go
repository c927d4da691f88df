package conformance

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	. "github.com/onsi/gomega"
)

var s030 = &Check{ID: "S030", Slug: "fetch-projected", Mode: ModeBBD, Run: func(t *T) {
	_, index := t.schemaIndex()
	on := t
	if t.Target.Has(CapFixture) {
		on = t.On(t.ForkSame())
	}
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		c := on.Call("query_records", s.args(map[string]any{"limit": 1}))
		recs := records(c)
		if c.IsError() || len(recs) == 0 || s.conn == "" {
			continue
		}
		data, _ := recs[0]["data"].(map[string]any)
		keys := make([]string, 0, len(data))
		for k, v := range data {
			if sv, ok := v.(string); ok && len(sv) >= 8 && k != "id" {
				keys = append(keys, k)
			}
		}
		if len(keys) < 2 {
			continue
		}
		sort.Strings(keys)
		keep := keys[0]
		id := s.conn + "/" + s.stream + ":" + str(recs[0]["id"])
		f := on.Call("fetch", map[string]any{"id": id, "fields": []string{keep}})
		doc := expectDocument(t, f)
		raw, _ := json.Marshal(doc)
		for _, k := range keys[1:] {
			v := str(data[k])
			t.Expect(strings.Contains(string(raw), v)).To(BeFalse(), "fetch(fields: [%s]) shows the unrequested field %s (%q) in the document", keep, k, clipText(v, 60))
		}
		meta, _ := doc["metadata"].(map[string]any)
		t.Expect(meta["connection_id"]).To(Equal(s.conn), "metadata keeps the source connection_id")
		t.Expect(meta["stream"]).To(Equal(s.stream), "metadata keeps the stream")
		if on != t {
			reqs := on.Target.RS.RequestsTo("/v1/streams/" + url.PathEscape(s.stream) + "/records/")
			t.Expect(reqs).NotTo(BeEmpty())
			q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
			t.Expect(q["fields"]).To(Equal([]string{keep}), "the RS must receive the projection, so unrequested fields never leave it")
		}
		return
	}
	t.Skipf("no stream in the target's grant has a record with two or more string fields to project")
}}
