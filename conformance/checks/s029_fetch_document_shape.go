package checks

import (
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// documentKeys are the MCP/OpenAI search-fetch document. Seed 001 allows
// nothing else in structuredContent; the anchor adds content_ladder (C4),
// which this check reports as a deviation.
var documentKeys = []string{"id", "metadata", "text", "title", "url"}

var s029 = &Check{ID: "S029", Slug: "fetch-document-shape", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hits(c)) == 0 {
		t.Skipf("no word from the target's records finds any hit to fetch")
	}
	h := hits(c)[0]
	f := t.Call("fetch", map[string]any{"id": h.ID})
	doc := expectDocument(t, f)
	meta, _ := doc["metadata"].(map[string]any)
	t.Expect(meta["connection_id"]).To(Equal(h.Conn), "metadata must carry the source connection_id for citation and retry")
	t.Expect(meta["stream"]).To(Equal(h.Stream), "metadata must carry the stream")
	if h.Key != "" {
		t.Expect(meta["connector_key"]).To(Equal(h.Key), "metadata must carry connector_key")
	}
	if h.Label != "" {
		t.Expect(meta["display_name"]).To(Equal(h.Label), "metadata must carry the display label")
	}
	expectContinuationWorks(t, doc)

	if !t.Target.Has(CapControlledRS) {
		return
	}
	// The fixture's longest text: whole, or cut with a flag and a continuation.
	rec, field, total, ok := longestText(t.RS().Fixture())
	if !ok {
		return
	}
	long := t.Call("fetch", map[string]any{"id": rec.ConnectionID + "/" + field.stream + ":" + rec.ID})
	ld := expectDocument(t, long)
	text, _ := ld["text"].(string)
	if utf8.RuneCountInString(text) >= total && strings.Contains(text, str(rec.Data[field.name])) {
		return
	}
	lm, _ := ld["metadata"].(map[string]any)
	flagged := false
	for k, v := range lm {
		flagged = flagged || (strings.Contains(k, "truncat") && v == true)
	}
	t.Expect(flagged).To(BeTrue(), "a %d-character text cut to %d must say so in metadata, never pass for the whole", total, utf8.RuneCountInString(text))
	t.Expect(expectContinuationWorks(t, ld)).To(BeTrue(), "a cut text must carry a read_record_field continuation in metadata")
}}

// expectDocument holds a fetch result to the document shape and returns it.
func expectDocument(t *T, f *Call) map[string]any {
	t.Expect(f.IsError()).To(BeFalse(), "fetch must succeed: %s", f.Describe())
	doc, mirror, err := fetchedDocument(f)
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Expect(keys).To(Equal(documentKeys), "structuredContent must be exactly the document {id, title, text, url, metadata}")
	t.Expect(err).NotTo(HaveOccurred(), "content[] must mirror the document as JSON text")
	t.Expect(reflect.DeepEqual(mirror, doc)).To(BeTrue(), "the JSON text in content[] must be the same object as structuredContent")
	for _, k := range []string{"id", "title", "url"} {
		t.Expect(str(doc[k])).NotTo(BeEmpty(), "the document needs a non-empty %s", k)
	}
	for _, p := range f.Result.Content {
		_, link := p.(*mcp.ResourceLink)
		t.Expect(link).To(BeFalse(), "fetch returns the document inline, not a resource_link")
	}
	return doc
}

// expectContinuationWorks runs a read_record_field continuation found in a
// document's metadata, if any, and reports whether there was one.
func expectContinuationWorks(t *T, doc map[string]any) bool {
	meta, _ := doc["metadata"].(map[string]any)
	var found bool
	var walk func(v any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok || found {
			return
		}
		if m["tool"] == "read_record_field" {
			if args, ok := m["args"].(map[string]any); ok {
				found = true
				r := t.Call("read_record_field", args)
				t.Expect(r.IsError()).To(BeFalse(), "the continuation in metadata must work: %s", r.Describe())
				return
			}
		}
		for _, e := range m {
			walk(e)
		}
	}
	walk(meta)
	return found
}

type textField struct{ stream, name string }

func longestText(fx *fakers.Fixture) (fakers.Record, textField, int, bool) {
	var best fakers.Record
	var bf textField
	total := 0
	for _, s := range fx.Streams {
		for _, rec := range s.Records {
			for _, k := range []string{"text", "content", "body", "summary"} {
				if v, ok := rec.Data[k].(string); ok && utf8.RuneCountInString(v) > total {
					best, bf, total = rec, textField{s.Name, k}, utf8.RuneCountInString(v)
				}
			}
		}
	}
	return best, bf, total, total > 0
}
