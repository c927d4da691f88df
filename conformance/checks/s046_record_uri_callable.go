package checks

import (
	"net/url"
	"strings"

	. "github.com/onsi/gomega"
)

var s046 = &Check{ID: "S046", Slug: "record-uri-callable", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hits(c)) == 0 {
		t.Skipf("no word from the target's records finds any hit")
	}
	h := hits(c)[0]
	outputs := []*Call{c, t.Call("fetch", map[string]any{"id": h.ID})}
	if q := firstRecordsCall(t); q != nil {
		outputs = append(outputs, q)
	}
	var seen []string
	for _, o := range outputs {
		seen = append(seen, handleURIs(o, "record")...)
	}
	for _, u := range seen {
		f := t.Call("fetch", map[string]any{"id": u})
		t.Expect(f.IsError()).To(BeFalse(), "the record URI %s appears in output, so fetch must accept it: %s", u, f.Describe())
	}
	// A tool that documents record URIs must take them.
	for _, tool := range []string{"fetch", "read_record_field"} {
		if !strings.Contains(toolDocs(t.Target, tool), "pdpp://record/") {
			continue
		}
		args := map[string]any{"id": "pdpp://record/" + url.PathEscape(h.ID)}
		if tool == "read_record_field" {
			ev := hitsWithEvidence(c)
			if len(ev) == 0 {
				continue
			}
			ex, _ := ev[0].Raw["evidence_excerpts"].([]any)
			x, _ := ex[0].(map[string]any)
			args = map[string]any{"id": "pdpp://record/" + url.PathEscape(ev[0].ID), "field_path": str(x["field_path"])}
		}
		r := t.Call(tool, args)
		t.Expect(r.IsError()).To(BeFalse(), "%s documents pdpp://record/ ids, so it must accept %v: %s", tool, args["id"], r.Describe())
	}
	bad := t.Call("fetch", map[string]any{"id": "pdpp://record/%zz"})
	t.Expect(bad.IsError()).To(BeTrue(), "a malformed record handle must be rejected")
	t.Expect(bad.ErrorCode()).NotTo(BeEmpty(), "a malformed record handle gets a typed error")
}}

// toolDocs is everything a tool says about itself: its description and
// every description in its input schema.
func toolDocs(tgt *Target, name string) string {
	return strings.Join(toolDescriptions(tgt)[name], "\n")
}

// firstRecordsCall is a query_records answer with records from the first
// streams of the index, so handle checks also scan record previews.
func firstRecordsCall(t *T) *Call {
	_, index := schemaIndex(t)
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		if c := t.Call("query_records", s.args(map[string]any{"limit": 5})); !c.IsError() && len(records(c)) > 0 {
			return c
		}
	}
	return nil
}
