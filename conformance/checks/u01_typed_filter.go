package checks

import (
	"net/url"
	"strings"

	. "github.com/onsi/gomega"
)

// A filterable stream has an exact-match field and a range field.
type filterable struct {
	src          source
	eq, eqType   string
	rng, rngType string
	op           string
}

// findFilterable reads flag strings from scoped schemas until a row shows
// an eq field and an r= field.
func findFilterable(t *T) (filterable, bool) {
	_, index := schemaIndex(t)
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		_, rows := scopedSchema(t, s.args(nil))
		for _, r := range rows {
			f := filterable{src: s}
			for _, name := range fieldNames(r) {
				typ := ""
				for _, tok := range flagTokens(r.FieldCaps[name]) {
					if v, ok := strings.CutPrefix(tok, "t="); ok {
						typ = v
					}
				}
				for _, tok := range flagTokens(r.FieldCaps[name]) {
					switch {
					case tok == "eq" && f.eq == "" && name != "id":
						f.eq, f.eqType = name, typ
					case strings.HasPrefix(tok, "r=") && f.rng == "":
						f.rng, f.rngType, f.op = name, typ, strings.Split(strings.TrimPrefix(tok, "r="), "|")[0]
					}
				}
			}
			if f.eq != "" && f.rng != "" && f.op != "" {
				return f, true
			}
		}
	}
	return filterable{}, false
}

var u01 = &Check{ID: "U01", Slug: "typed-filter", Mode: ModeBBD, Run: func(t *T) {
	f, ok := findFilterable(t)
	if !ok {
		t.Skipf("no stream in the target's grant shows both an exact (eq) and a range (r=) filter field")
	}
	on := t.Private()
	exact, rng := map[string]any{f.eq: sampleValue(f.eqType)}, map[string]any{f.op: sampleValue(f.rngType)}
	filters := []map[string]any{{f.eq: exact[f.eq], f.rng: rng}}
	if f.eq == f.rng { // one field with both: one filter key each call
		filters = []map[string]any{exact, {f.rng: rng}}
	}
	path := "/v1/streams/" + url.PathEscape(f.src.stream) + "/records"
	sent := url.Values{}
	for _, filter := range filters {
		c := on.Call("query_records", f.src.args(map[string]any{"filter": filter, "limit": 1}))
		t.Expect(c.IsError()).To(BeFalse(), "a typed object filter must be accepted: %s", c.Describe())
		if on != t {
			reqs := on.RS().RequestsTo(path)
			t.Expect(reqs).NotTo(BeEmpty())
			q, _ := url.ParseQuery(reqs[len(reqs)-1].RawQuery)
			t.Expect(q.Has("filter")).To(BeFalse(), "the RS must never receive a bare filter=")
			for k, v := range q {
				sent[k] = v
			}
		}
	}
	if on != t {
		t.Expect(sent.Has("filter["+f.eq+"]")).To(BeTrue(), "the RS must receive filter[%s]=value: %s", f.eq, sent.Encode())
		t.Expect(sent.Has("filter["+f.rng+"]["+f.op+"]")).To(BeTrue(), "the RS must receive filter[%s][%s]=value: %s", f.rng, f.op, sent.Encode())
		on.RS().ResetRequests()
	}
	for what, bad := range map[string]any{
		"a query-string filter": "filter[" + f.eq + "]=x",
		"an empty object":       map[string]any{},
		"a bracket-syntax key":  map[string]any{f.eq + "[gte]": "x"},
	} {
		for _, tool := range []string{"query_records", "aggregate"} {
			args := f.src.args(map[string]any{"filter": bad})
			if tool == "aggregate" {
				args["metric"] = "count"
			}
			r := on.Call(tool, args)
			t.Expect(r.IsError()).To(BeTrue(), "%s: %s must be rejected: %s", tool, what, r.Describe())
			t.Expect(r.ErrorCode()).NotTo(BeEmpty(), "%s: the rejection of %s must be typed: %s", tool, what, r.Describe())
			t.Expect(r.Text()).To(ContainSubstring("filter"), "%s: the rejection of %s must name the filter argument", tool, what)
		}
	}
	if on != t {
		t.Expect(len(on.RS().RequestsTo("/v1/streams/"))).To(BeZero(), "a rejected filter must never reach the RS")
	}
}}
