package probe

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A Hit is one search result as structuredContent reports it. Where
// mcpcheck holds the fixture, Ref is the record the hit shows, found by
// value, and Conn, Key, Stream and Record are the fixture's own values
// the hit's object shows; else they are read under the seed's key names.
type Hit struct {
	ID, Title, Snippet, Conn, Key, Stream, Record, Label string
	Ref                                                  RecordRef
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

// Hits reads the search hits of a result. Where mcpcheck holds the
// fixture, the hits are the longest list of objects in structuredContent
// whose objects each show a different fixture record, found by value;
// else the list whose elements name their connection and connector under
// the seed's keys.
func Hits(t *conformance.T, c *conformance.Call) []Hit {
	if !t.Target.Has(conformance.CapControlledRS) {
		return hitsByKey(c)
	}
	return conformance.DiscoverCall(c, "hits", func() []Hit { return hitsByValue(t, c) })
}

func hitsByValue(t *conformance.T, c *conformance.Call) []Hit {
	lists := ObjectLists(c.Structured())
	if l, named := c.Container(); named {
		var items []map[string]any
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				items = append(items, m)
			}
		}
		lists = []ObjectList{{Items: items}}
	}
	var best []Hit
	for _, l := range lists {
		var hs []Hit
		seen := map[RecordRef]bool{}
		for _, it := range l.Items {
			strs := StringValues(it)
			ref, ok := RecordInStrings(t, strs)
			if !ok || seen[ref] {
				continue
			}
			seen[ref] = true
			hs = append(hs, hitOf(t, it, ref, strs))
		}
		if 2*len(hs) > len(l.Items) && len(hs) > len(best) {
			best = hs
		}
	}
	return best
}

// hitOf is one hit's object read by value: the fixture's own values of
// its record that the object shows.
func hitOf(t *conformance.T, m map[string]any, ref RecordRef, strs []string) Hit {
	h := Hit{Ref: ref, Raw: m, Record: ref.ID, Title: String(m["title"]), ID: String(m["id"])}
	has := func(v string) bool { return v != "" && slices.Contains(strs, v) }
	if has(ref.Conn) {
		h.Conn = ref.Conn
	}
	if has(ref.Stream) {
		h.Stream = ref.Stream
	}
	if r, ok := FindRecord(t, ref); ok {
		if has(r.Stream.Connector) {
			h.Key = r.Stream.Connector
		}
		for _, cn := range connectorOf(t, r.Stream.Connector).Connections {
			if cn.ID == ref.Conn && has(cn.DisplayName) {
				h.Label = cn.DisplayName
			}
		}
	}
	switch s := m["snippet"].(type) {
	case string:
		h.Snippet = s
	case map[string]any:
		h.Snippet = String(s["text"])
	}
	return h
}

// hitsByKey reads hits under the seed's key names: where mcpcheck holds
// no fixture to find them by value.
func hitsByKey(c *conformance.Call) []Hit {
	var out []Hit
	for _, e := range HitList(c) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		h := Hit{ID: String(m["id"]), Title: String(m["title"]), Conn: String(m["connection_id"]), Key: String(m["connector_key"]),
			Stream: String(m["stream"]), Record: FirstNonEmpty(String(m["record_key"]), String(m["record_id"])), Label: String(m["display_name"]), Raw: m}
		h.Ref = RecordRef{h.Conn, h.Stream, h.Record}
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

// HitHandle is the handle fetch takes for a hit, found by following the
// strings of the hit's object (and, failing them, of the answer's text):
// "" when none names the hit's record.
func HitHandle(t *conformance.T, c *conformance.Call, h Hit) string {
	if !t.Target.Has(conformance.CapControlledRS) {
		return h.ID
	}
	var cands []string
	for _, s := range StringValues(h.Raw) {
		if !slices.Contains(cands, s) {
			cands = append(cands, s)
		}
	}
	ordered := orderCandidates(t, c, cands, []RecordRef{h.Ref})
	ordered = append(ordered, HandleCandidates(t, c, []RecordRef{h.Ref})...)
	for i, cand := range ordered {
		if i == 10 {
			break
		}
		if f := Follow(t, cand); f.OK && f.Ref == h.Ref {
			return cand
		}
	}
	return ""
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
		if n := len(ConnectionsOf(Hits(t, c))); n > bestConns {
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
type ShownPreview struct {
	ID, Field, Text string
	Ref             RecordRef // the fixture's record, where found by value
}

// ShownPreviews lists a search answer's evidence previews, text first:
// those in the notations the readers know, then, by value, each window
// the fixture RS proved for the search that the answer shows a part of.
func ShownPreviews(t *conformance.T, c *conformance.Call) []ShownPreview {
	out := knownPreviews(t, c)
	if !t.Target.Has(conformance.CapControlledRS) {
		return out
	}
	q := String(t.Target.Dialect().Value(c.Tool, c.Args, dialect.Query))
	if q == "" {
		return out
	}
	proven, _ := Proven(t, q)
	for _, w := range proven {
		id := ""
		s := previewShowing(c, w.Preview)
		if s == "" {
			// However little of the window it shows (only the term, or
			// text beside the match): the excerpt line of the hit's own
			// text block that names the field.
			id = Handles(t, c, []RecordRef{w.Ref})[w.Ref]
			s = excerptNaming(c.Text(), id, w.Field)
		}
		if s == "" || slices.ContainsFunc(out, func(p ShownPreview) bool { return p.Text != "" && strings.Contains(Plain(s), Plain(p.Text)) }) {
			continue
		}
		// Its id is the handle the answer shows for the record, followed.
		if id == "" {
			id = Handles(t, c, []RecordRef{w.Ref})[w.Ref]
		}
		out = append(out, ShownPreview{ID: id, Field: w.Field, Text: s, Ref: w.Ref})
	}
	return out
}

// excerptNaming is the excerpt of the line of handle's text block that
// names field and shows an excerpt (a mark, or a cut mark): from its last
// label ("…: ") on; "" when there is none.
func excerptNaming(text, handle, field string) string {
	if handle == "" {
		return ""
	}
	for _, line := range strings.Split(BlocksWith(text, handle), "\n") {
		if !ContainsToken(line, field) || !HighlightTag.MatchString(line) && !Ellipsis.MatchString(line) {
			continue
		}
		if j := strings.LastIndex(line, ": "); j >= 0 {
			return strings.TrimSpace(line[j+2:])
		}
	}
	return ""
}

// previewShowing is the line of c's text, else the string of its
// structuredContent, that shows a marked match and four words running of
// the RS's preview rs; from its last label ("…: ") before the match on.
func previewShowing(c *conformance.Call, rs string) string {
	words := strings.Fields(Plain(rs))
	if len(words) < 4 {
		return ""
	}
	cands := strings.Split(c.Text(), "\n")
	cands = append(cands, StringValues(c.Structured())...)
	for _, cand := range cands {
		at := HighlightTag.FindStringIndex(cand)
		if at == nil {
			continue
		}
		plain := Plain(cand)
		for i := 0; i+4 <= len(words); i++ {
			if !strings.Contains(plain, strings.Join(words[i:i+4], " ")) {
				continue
			}
			// A quoted preview is its quotes' content; else from its last
			// label ("…: ") before the match on.
			if q := quotedAround(cand, at[0]); q != "" {
				return q
			}
			if j := strings.LastIndex(cand[:at[0]], ": "); j >= 0 {
				return cand[j+2:]
			}
			return cand
		}
	}
	return ""
}

// quotedAround is the double-quoted part of s around byte i, or "".
func quotedAround(s string, i int) string {
	open := strings.LastIndex(s[:i], `"`)
	if open < 0 {
		return ""
	}
	end := strings.Index(s[i:], `"`)
	if end < 0 {
		return ""
	}
	return s[open+1 : i+end]
}

// knownPreviews are the previews in the notations the readers know.
func knownPreviews(t *conformance.T, c *conformance.Call) []ShownPreview {
	var out []ShownPreview
	for _, e := range EvidenceLines(c.Text()) {
		out = append(out, ShownPreview{ID: e.ID, Field: e.FieldPath, Text: e.Preview})
	}
	for _, h := range HitsWithEvidence(t, c) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			out = append(out, ShownPreview{ID: h.ID, Field: FieldIn(t, xm), Text: String(xm["preview_text"])})
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

// HitRefs are the records of a search result's hits, in order.
func HitRefs(t *conformance.T, c *conformance.Call) []RecordRef {
	var out []RecordRef
	for _, h := range Hits(t, c) {
		out = append(out, h.Ref)
	}
	return out
}

// A ProvenWindow is an evidence window the fixture RS proved for a
// search: the record, the field, and the RS's own preview.
type ProvenWindow struct {
	Ref            RecordRef
	Field, Preview string
}

// Proven reads the fixture RS's own answers to the searches for q: the
// windows it proved, and the records it found without one. "Proven" is
// what the RS says, never what the target's hit says.
func Proven(t *conformance.T, q string) (proven []ProvenWindow, unproven []RecordRef) {
	reqs := t.RS().RequestsTo("/v1/search")
	reqs = slices.DeleteFunc(slices.Clone(reqs), func(r fakers.Request) bool {
		v, _ := url.ParseQuery(r.RawQuery)
		return !slices.ContainsFunc(slices.Collect(maps.Values(v)), func(vs []string) bool { return slices.Contains(vs, q) })
	})
	if len(reqs) == 0 {
		// The log no longer holds the target's search (a controlled URL
		// target's log is reset by its forks): the RS's own answer to q.
		// (q= is the RS contract's search parameter, not an adapter's.)
		reqs = []fakers.Request{{Method: "GET", Path: "/v1/search", RawQuery: "q=" + url.QueryEscape(q) + "&limit=50", Authorization: "Bearer " + t.RS().ClientToken()}}
	}
	for _, r := range reqs {
		_, body := t.RS().Replay(r)
		var env struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &env)
		for _, h := range env.Data {
			ref := RecordRef{String(h["connection_id"]), String(h["stream"]), String(h["record_key"])}
			ex, _ := h["evidence_excerpts"].([]any)
			if len(ex) == 0 && !slices.Contains(unproven, ref) {
				unproven = append(unproven, ref)
			}
			for _, x := range ex {
				xm, _ := x.(map[string]any)
				rd, _ := xm["read"].(map[string]any) // the RS's own field-window route
				w := ProvenWindow{ref, String(rd["field"]), String(xm["preview_text"])}
				if !slices.Contains(proven, w) {
					proven = append(proven, w)
				}
			}
		}
	}
	return proven, unproven
}

// LineHandles are the tokens of one line of an answer that may name ref
// to a read tool, best first: pdpp:// URIs and tokens holding ref's id,
// then opaque tokens, then the bare id; never the fixture's content.
func LineHandles(t *conformance.T, line string, ref RecordRef) []string {
	content := fixtureContent(t)
	var uris, holding, opaque, bare []string
	seen := map[string]bool{}
	for _, tok := range idTokenRe.FindAllString(line, -1) {
		if k, v, ok := strings.Cut(tok, "="); ok && !strings.HasPrefix(tok, "pdpp:") && k != "" {
			tok = v
		}
		tok = strings.Trim(tok, ".,;:\"'`")
		if tok == "" || seen[tok] || len(tok) < 3 {
			continue
		}
		seen[tok] = true
		switch {
		case strings.HasPrefix(tok, "pdpp://"):
			uris = append(uris, tok)
		case tok == ref.ID:
			bare = append(bare, tok)
		case content[tok]:
		case ref.ID != "" && strings.Contains(tok, ref.ID):
			holding = append(holding, tok)
		case len(tok) >= 12 && strings.ContainsAny(tok, "0123456789"):
			opaque = append(opaque, tok)
		}
	}
	return slices.Concat(uris, holding, opaque, bare)
}
