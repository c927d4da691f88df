package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// documentKeys are the MCP/OpenAI search-fetch document. Seed 001 allows
// nothing else in structuredContent; the anchor adds content_ladder (C4),
// which this check reports as a deviation.
var documentKeys = []string{"id", "metadata", "text", "title", "url"}

// S029 owns the fetch document's shape. A cut long text is S050's (it
// never truncates silently), and a continuation S033's.
var s029 = &Check{ID: "S029", Slug: "fetch-document-shape", Mode: ModeBBD, Tools: []string{"fetch"}, Run: func(t *T) {
	probe.Grant(t)
	_, c, _ := probe.FanInTerm(t)
	if c == nil || len(probe.Hits(t, c)) == 0 {
		t.Skipf("no word from the target's records finds any hit to fetch")
	}
	h := probe.Hits(t, c)[0]
	id := probe.HitHandle(t, c, h)
	if id == "" {
		t.BlockedBy("S024", "no string of the first search hit (%s) is a handle fetch takes for its record: %v", h.Ref, h.Raw)
	}
	f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: id})
	if f.IsError() {
		t.Clause(1, func() { t.Works(f, c, "fetch of search hit %q must return its document, not an error", id) })
		t.Skipf("fetch of the search hit failed (S029.1)")
	}
	doc := f.Structured()
	keysEv := conformance.Shown("the keys of fetch's structuredContent", strings.Join(slices.Sorted(maps.Keys(doc)), "\n"))
	t.Clause(1, func() {
		for k := range doc {
			t.AssertWith(slices.Contains(documentKeys, k), func() (conformance.Witness, error) { return conformance.Present(k, keysEv) },
				"structuredContent must be exactly the document {id, title, text, url, metadata}; it also holds %s", k)
		}
		for _, k := range documentKeys {
			t.AssertWith(doc[k] != nil, func() (conformance.Witness, error) { return conformance.Absent(read.Text(k), keysEv) },
				"structuredContent must be the document {id, title, text, url, metadata}; it lacks %s", k)
		}
		for _, k := range []string{"id", "title", "url"} {
			if doc[k] != nil {
				t.AssertWith(probe.String(doc[k]) != "", func() (conformance.Witness, error) {
					return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a non-empty " + k, In: []string{f.Describe()}}, nil
				}, "the document needs a non-empty %s", k)
			}
		}
		_, isText := doc["text"].(string)
		t.AssertWith(isText || doc["text"] == nil, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: probe.CompactJSON(doc["text"]), In: []string{"the document's text, which is not a string"}}, nil
		}, "the document's text is a string: %v", doc["text"])
		_, isObject := doc["metadata"].(map[string]any)
		t.AssertWith(isObject || doc["metadata"] == nil, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: probe.CompactJSON(doc["metadata"]), In: []string{"the document's metadata, which is not an object"}}, nil
		}, "the document's metadata is an object: %v", doc["metadata"])
		for _, p := range f.Result.Content {
			if link, ok := p.(*mcp.ResourceLink); ok {
				t.FailWith(conformance.Witness{Kind: conformance.WitnessPresent, Fact: link.URI, In: []string{"a resource_link part of " + f.Describe()}}, nil, "fetch returns the document inline, not a resource_link")
			}
		}
	})
	t.Clause(2, func() {
		judgeDocumentMirror(t, f)
		// A mirror can go wrong only on a later fetch (a stale title) or
		// on long text, so another hit's record and the record with a
		// long text field are fetched too, where fetch takes the handle.
		var more []string
		for _, o := range probe.Hits(t, c)[1:] {
			if o.Ref != h.Ref {
				more = append(more, probe.HitHandle(t, c, o))
				break
			}
		}
		if long, ok := probe.LongField(t); ok {
			more = append(more, long.Handle)
		}
		for _, id := range more {
			if id == "" {
				continue
			}
			if o := t.CallRoles("fetch", dialect.Args{dialect.RecordID: id}); !o.IsError() && o.Structured() != nil {
				judgeDocumentMirror(t, o)
			}
		}
	})
	t.Clause(3, func() {
		for _, k := range []string{"data", "provider_url", "request_id"} {
			_, has := doc[k]
			t.AssertWith(!has, func() (conformance.Witness, error) { return conformance.Present(k, keysEv) },
				"structuredContent carries %s: %s", k, clipText(probe.CompactJSON(doc[k]), 200))
		}
	})
	t.Clause(4, func() {
		meta, ok := doc["metadata"].(map[string]any)
		if !ok {
			t.BlockedBy("S029", "the document has no metadata object (S029.1)")
		}
		expectSourceIdentity(t, meta, doc, h.Ref)
	})
}}

// judgeDocumentMirror holds a fetch's content[] to a JSON mirror of
// the very document structuredContent holds.
func judgeDocumentMirror(t *T, f *Call) {
	mirrors := documentMirrors(f)
	if !t.AssertWith(len(mirrors) > 0, func() (conformance.Witness, error) {
		return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a text part holding the document as JSON", In: []string{f.Describe()}}, nil
	}, "content[] must mirror the document as JSON text: %s", clipText(f.Text(), 300)) {
		return
	}
	// One property, one clause: keys structuredContent holds beyond the
	// document are S029.1's; the mirror is judged against the document.
	want := documentOf(f.Structured())
	t.AssertWith(slices.ContainsFunc(mirrors, func(m map[string]any) bool { return reflect.DeepEqual(m, want) }), func() (conformance.Witness, error) {
		return mirrorDifference(want, mirrors[0])
	}, "the JSON text in content[] must be the same document {id, title, text, url, metadata} as structuredContent holds:\n%s", clipText(f.Text(), 300))
}

// mirrorDifference witnesses a content[] mirror that is not the document:
// the first of its keys whose value differs, or is missing, by value.
func mirrorDifference(want, got map[string]any) (conformance.Witness, error) {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(want[k], got[k]) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: k + ": " + describedValue(got[k]),
				In: []string{"the JSON text of fetch's content[], where structuredContent's " + k + " is " + describedValue(want[k])}}, nil
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: k, In: []string{"the JSON text of fetch's content[], beyond the document"}}, nil
		}
	}
	return conformance.Witness{}, fmt.Errorf("the mirror and the document agree")
}

// describedValue shows a value clipped, with a string's length, so two
// long strings that differ past the clip still read differently.
func describedValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%s (%d characters)", clipText(probe.CompactJSON(s), 120), len([]rune(s)))
	}
	return clipText(probe.CompactJSON(v), 120)
}

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
// fixture's connection, connector key, stream and record id of the record
// (the record id in metadata or in the document's id).
func expectSourceIdentity(t *T, meta, doc map[string]any, ref probe.RecordRef) {
	ev := conformance.Shown("the document's metadata", probe.CompactJSON(meta))
	t.Shows(ev, read.Text(ref.Conn), "metadata must carry the source connection %s for citation and retry", ref.Conn)
	t.Shows(ev, read.Text(ref.Stream), "metadata must carry the stream %s", ref.Stream)
	if r, ok := probe.FindRecord(t, ref); ok {
		t.Shows(ev, read.Text(r.Stream.Connector), "metadata must carry the connector key %s", r.Stream.Connector)
	}
	t.Shows(conformance.Answers(ev, conformance.Shown("the document's id", probe.String(doc["id"]))), read.Text(ref.ID), "metadata or the document id must carry the record id %s", ref.ID)
}
