package checks

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// documentKeys are the MCP/OpenAI search-fetch document. Seed 001 allows
// nothing else in structuredContent; the anchor adds content_ladder (C4),
// which this check reports as a deviation.
var documentKeys = []string{"id", "metadata", "text", "title", "url"}

// S029 owns the fetch document's shape. A cut long text is S050's (it
// never truncates silently), and a continuation S033's.
var s029 = &Check{ID: "S029", Slug: "fetch-document-shape", Mode: ModeBBD, Tools: []string{"fetch"}, Run: func(t *T) {
	probe.ReadsIndex(t)
	_, c, _ := probe.FanInTerm(t)
	if c == nil || len(probe.Hits(c)) == 0 {
		t.Skipf("no word from the target's records finds any hit to fetch")
	}
	h := probe.Hits(c)[0]
	if h.ID == "" {
		t.BlockedBy("S024", "the first search hit carries no id to fetch: %v", h.Raw)
	}
	f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: h.ID})
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
			t.Expect(probe.String(doc[k])).NotTo(BeEmpty(), "the document needs a non-empty %s", k)
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
		mirrors := documentMirrors(f)
		if !t.Assert(len(mirrors) > 0, "content[] must mirror the document as JSON text: %s", clipText(f.Text(), 300)) {
			return
		}
		// One property, one clause: keys structuredContent holds beyond the
		// document are S029.1's; the mirror is judged against the document.
		want := documentOf(doc)
		t.Assert(slices.ContainsFunc(mirrors, func(m map[string]any) bool { return reflect.DeepEqual(m, want) }),
			"the JSON text in content[] must be the same document {id, title, text, url, metadata} as structuredContent holds:\n%s", clipText(f.Text(), 300))
	})
	t.Clause(3, func() {
		for _, k := range []string{"data", "provider_url", "request_id"} {
			_, has := doc[k]
			t.Assert(!has, "structuredContent carries %s: %s", k, clipText(probe.CompactJSON(doc[k]), 200))
		}
	})
	t.Clause(4, func() {
		meta, ok := doc["metadata"].(map[string]any)
		if !ok {
			t.BlockedBy("S029", "the document has no metadata object (S029.1)")
		}
		if h.Conn == "" || h.Stream == "" {
			t.BlockedBy("S024", "search hit %s does not say which connection and stream it comes from", h.ID)
		}
		expectSourceIdentity(t, meta, doc, h.Conn, h.Key, h.Stream, h.Record)
	})
}}

// documentOf is the search-fetch document in structuredContent: its
// document keys, without any others it carries.
func documentOf(sc map[string]any) map[string]any {
	doc := map[string]any{}
	for _, k := range documentKeys {
		if v, ok := sc[k]; ok {
			doc[k] = v
		}
	}
	return doc
}

// documentMirrors are the text parts of a fetch result that decode as a
// JSON object: the document mirror, in whatever layout.
func documentMirrors(f *Call) []map[string]any {
	var out []map[string]any
	for _, p := range f.Result.Content {
		tc, ok := p.(*mcp.TextContent)
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(tc.Text)), &m) == nil && m != nil {
			out = append(out, m)
		}
	}
	return out
}

// expectSourceIdentity requires a document's metadata to hold, by value
// under any key, the source identity a citation or retry needs: the
// connection, the connector key (when known), the stream and the record id
// (in metadata or in the document's id).
func expectSourceIdentity(t *T, meta, doc map[string]any, conn, key, stream, record string) {
	vals := probe.StringValues(meta)
	has := func(v string) bool { return slices.Contains(vals, v) }
	t.Assert(has(conn), "metadata must carry the source connection %s for citation and retry: %s", conn, clipText(probe.CompactJSON(meta), 300))
	t.Assert(has(stream), "metadata must carry the stream %s: %s", stream, clipText(probe.CompactJSON(meta), 300))
	if key != "" {
		t.Assert(has(key), "metadata must carry the connector key %s: %s", key, clipText(probe.CompactJSON(meta), 300))
	}
	if record != "" {
		t.Assert(has(record) || probe.ContainsToken(probe.String(doc["id"]), record) || slices.ContainsFunc(vals, func(v string) bool { return probe.ContainsToken(v, record) }),
			"metadata or the document id must carry the record id %s: %s", record, clipText(probe.CompactJSON(meta), 300))
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
