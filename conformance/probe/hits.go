package probe

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// A Hit is one search result as structuredContent reports it.
type Hit struct {
	ID, Title, Snippet, Conn, Key, Stream, Record, Label string
	Raw                                                  map[string]any
}

// String is v as text: a string as is, nil as "", anything else printed.
func String(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// Hits reads the search hits of a result: the list of objects in
// structuredContent whose elements name their connection and connector,
// under whatever key.
func Hits(c *conformance.Call) []Hit {
	var out []Hit
	for _, e := range HitList(c) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		h := Hit{ID: String(m["id"]), Title: String(m["title"]), Conn: String(m["connection_id"]), Key: String(m["connector_key"]),
			Stream: String(m["stream"]), Record: FirstNonEmpty(String(m["record_key"]), String(m["record_id"])), Label: String(m["display_name"]), Raw: m}
		switch s := m["snippet"].(type) {
		case string:
			h.Snippet = s
		case map[string]any:
			h.Snippet = String(s["text"])
		}
		out = append(out, h)
	}
	return out
}

// ConnectionsOf counts the hits per connection id.
func ConnectionsOf(hs []Hit) map[string]int {
	out := map[string]int{}
	for _, h := range hs {
		out[h.Conn]++
	}
	return out
}

// FanInTerm finds a word from the target's own records whose search hits
// come from the most connections (at least two, when the grant allows).
func FanInTerm(t *conformance.T) (string, *conformance.Call, bool) {
	type found struct {
		term string
		c    *conformance.Call
		ok   bool
	}
	f := conformance.Discover(t, "fan-in-term", func() found { term, c, ok := fanInTermNow(t); return found{term, c, ok} })
	return f.term, f.c, f.ok
}

func fanInTermNow(t *conformance.T) (string, *conformance.Call, bool) {
	var words []string
	seen := map[string]bool{}
	eachPage(t, 5, func(_ Source, c *conformance.Call) {
		for _, r := range Records(c) {
			if w := SearchableWord([]map[string]any{r}); w != "" && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	})
	var best string
	var bestCall *conformance.Call
	bestConns := 0
	for i, w := range words {
		if i == 12 {
			break
		}
		c := t.CallRoles("search", dialect.Args{dialect.Query: w, dialect.Limit: 25})
		if c.IsError() {
			continue
		}
		if n := len(ConnectionsOf(Hits(c))); n > bestConns {
			best, bestCall, bestConns = w, c, n
		}
		if bestConns >= 3 {
			break
		}
	}
	return best, bestCall, bestConns >= 2
}

// TextSnippets are every snippet-like value in a search result.
func TextSnippets(c *conformance.Call) []string {
	var out []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, k)
			}
		case []any:
			for _, e := range x {
				walk(e, key)
			}
		case string:
			if key == "snippet" || key == "preview_text" || key == "text" {
				out = append(out, x)
			}
		}
	}
	walk(HitList(c), "")
	return out
}

// A ShownPreview is one evidence preview a search answer shows: a line of
// its text, or an excerpt in its structuredContent.
type ShownPreview struct{ ID, Field, Text string }

// ShownPreviews lists a search answer's evidence previews, text first.
func ShownPreviews(t *conformance.T, c *conformance.Call) []ShownPreview {
	var out []ShownPreview
	for _, e := range EvidenceLines(c.Text()) {
		out = append(out, ShownPreview{e.ID, e.FieldPath, e.Preview})
	}
	for _, h := range HitsWithEvidence(c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			out = append(out, ShownPreview{h.ID, FieldIn(t, xm), String(xm["preview_text"])})
		}
	}
	return out
}

// ReadDocument is a fetch result's document for checks that judge what is
// in it, not its shape (S029's): a failed fetch, or a result without a
// document object, blocks the clause being judged.
func ReadDocument(t *conformance.T, f *conformance.Call) map[string]any {
	if f.IsError() {
		t.BlockedBy("S029", "fetch returned no document: %s", f.Describe())
	}
	doc := f.Structured()
	if doc == nil {
		t.BlockedBy("S029", "fetch's structuredContent is not a document object: %s", f.Describe())
	}
	return doc
}

// FieldIn is the field an object of the target's answer (an evidence
// excerpt, a handle) names, under the target's own name for the field
// read's field argument or any name a field goes by.
func FieldIn(t *conformance.T, m map[string]any) string {
	v, _ := t.Target.Dialect().ValueIn(m, "read_record_field", dialect.Field)
	return String(v)
}

// HandleFields are the fields a handle's decoded JSON may name, best
// first: the value under the target's own field argument, then its other
// strings by key order, at most six; the keys are the target's own
// encoding, so a caller tries each as the field and keeps the one that
// reads.
func HandleFields(t *conformance.T, h map[string]any) []string {
	var out []string
	if f := FieldIn(t, h); f != "" {
		out = append(out, f)
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if v, ok := h[k].(string); ok && v != "" && !slices.Contains(out, v) && len(out) < 6 {
			out = append(out, v)
		}
	}
	return out
}

// HitField is the field an object within a hit (its first evidence
// excerpt, say) names, or "".
func HitField(t *conformance.T, h Hit) string {
	keys := make([]string, 0, len(h.Raw))
	for k := range h.Raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	field := ""
	for _, k := range keys {
		EachObject(h.Raw[k], func(m map[string]any) {
			if field == "" {
				field = FieldIn(t, m)
			}
		})
	}
	return field
}

// HitIDs are the ids of a search result's hits, in order.
func HitIDs(c *conformance.Call) []string {
	var out []string
	for _, h := range Hits(c) {
		out = append(out, h.ID)
	}
	return out
}
