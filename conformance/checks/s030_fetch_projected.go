package checks

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	. "github.com/onsi/gomega"
)

var s030 = &Check{ID: "S030", Slug: "fetch-projected", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	on := t
	if t.Target.Has(CapFixture) {
		fx := t.BaseFixture()
		// A spec-conformant RS may add schema-required fields to a
		// projection; this one adds every field, so only the adapter's own
		// projection keeps the document narrow.
		for _, st := range fx.Streams {
			for _, f := range st.Fields {
				fx.ProjectionAddsFields = append(fx.ProjectionAddsFields, f.Name)
			}
		}
		on = t.On(t.Fork(fx))
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
		id := s.conn + "/" + s.stream + ":" + str(recs[0]["id"])
		// The first and the last field: one of them is usually not the
		// stream's primary text, so the projection itself is the answer.
		for _, keep := range []string{keys[0], keys[len(keys)-1]} {
			f := on.Call("fetch", map[string]any{"id": id, "fields": []string{keep}})
			doc := readDocument(t, f)
			raw, _ := json.Marshal(doc)
			head := []rune(str(data[keep]))
			t.Expect(shownIn(string(raw), string(head[:min(len(head), 60)]))).To(BeTrue(), "fetch(fields: [%s]) must show the requested field's value:\n%s", keep, clipText(f.Text(), 400))
			t.Expect(f.Text()).NotTo(ContainSubstring("no field declares"), "a projection is the answer, not a missing primary text:\n%s", clipText(f.Text(), 400))
			for _, k := range keys {
				if v := str(data[k]); k != keep {
					t.Expect(shownIn(string(raw), v)).To(BeFalse(), "fetch(fields: [%s]) shows the unrequested field %s (%q) in the document", keep, k, clipText(v, 60))
				}
			}
			meta, _ := doc["metadata"].(map[string]any)
			t.Expect(meta["connection_id"]).To(Equal(s.conn), "metadata keeps the source connection_id")
			t.Expect(meta["stream"]).To(Equal(s.stream), "metadata keeps the stream")
			if on != t {
				reqs := on.RS().RequestsTo("/v1/streams/" + url.PathEscape(s.stream) + "/records/")
				t.Expect(reqs).NotTo(BeEmpty())
				q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
				t.Expect(q["fields"]).To(Equal([]string{keep}), "the RS must receive the projection, so unrequested fields never leave it")
			}
		}
		return
	}
	t.Skipf("no stream in the target's grant has a record with two or more string fields to project")
}}

// shownIn reports whether raw JSON holds s, escaped either way.
func shownIn(raw, s string) bool {
	b, _ := json.Marshal(s)
	var w strings.Builder
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.Contains(raw, strings.Trim(string(b), `"`)) || strings.Contains(raw, strings.Trim(strings.TrimSpace(w.String()), `"`))
}
