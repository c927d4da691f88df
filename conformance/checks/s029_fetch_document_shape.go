package checks

import (
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
)

// documentKeys are the MCP/OpenAI search-fetch document. Seed 001 allows
// nothing else in structuredContent; the anchor adds content_ladder (C4),
// which this check reports as a deviation.
var documentKeys = []string{"id", "metadata", "text", "title", "url"}

// S029 owns the fetch document's shape. A cut long text is S050's (it
// never truncates silently), and a continuation S033's.
var s029 = &Check{ID: "S029", Slug: "fetch-document-shape", Mode: ModeBBD, Tools: []string{"fetch"}, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hits(c)) == 0 {
		t.Skipf("no word from the target's records finds any hit to fetch")
	}
	h := hits(c)[0]
	f := t.Call("fetch", map[string]any{"id": h.ID})
	if f.IsError() {
		t.Clause(1, func() {
			t.Fatalf("fetch of search hit %q must return its document, not an error: %s", h.ID, f.Describe())
		})
		t.Skipf("fetch of the search hit failed (S029.1)")
	}
	doc := f.Structured()
	t.Clause(1, func() {
		keys := slices.Sorted(mapKeys(doc))
		t.Expect(keys).To(Equal(documentKeys), "structuredContent must be exactly the document {id, title, text, url, metadata}")
		for _, k := range []string{"id", "title", "url"} {
			t.Expect(str(doc[k])).NotTo(BeEmpty(), "the document needs a non-empty %s", k)
		}
		_, isText := doc["text"].(string)
		t.Assert(isText, "the document's text is a string: %v", doc["text"])
		_, isObject := doc["metadata"].(map[string]any)
		t.Assert(isObject, "the document's metadata is an object: %v", doc["metadata"])
		for _, p := range f.Result.Content {
			_, link := p.(*mcp.ResourceLink)
			t.Assert(!link, "fetch returns the document inline, not a resource_link")
		}
	})
	t.Clause(2, func() {
		_, mirror, err := fetchedDocument(f)
		if !t.Expect(err).NotTo(HaveOccurred(), "content[] must mirror the document as JSON text: %s", clipText(f.Text(), 300)) {
			return
		}
		t.Assert(reflect.DeepEqual(mirror, doc), "the JSON text in content[] must be the same object as structuredContent")
	})
	t.Clause(3, func() {
		for _, k := range []string{"data", "provider_url", "request_id"} {
			_, has := doc[k]
			t.Assert(!has, "structuredContent carries %s: %s", k, clipText(compactJSONOf(doc[k]), 200))
		}
	})
	t.Clause(4, func() {
		meta, ok := doc["metadata"].(map[string]any)
		if !ok {
			t.BlockedBy("S029", "the document has no metadata object (S029.1)")
		}
		t.Expect(meta["connection_id"]).To(Equal(h.Conn), "metadata must carry the source connection_id for citation and retry")
		t.Expect(meta["stream"]).To(Equal(h.Stream), "metadata must carry the stream")
		if h.Key != "" {
			t.Expect(meta["connector_key"]).To(Equal(h.Key), "metadata must carry connector_key")
		}
		if h.Label != "" {
			t.Expect(meta["display_name"]).To(Equal(h.Label), "metadata must carry the display label")
		}
	})
}}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
