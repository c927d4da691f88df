package probe

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// Handles: the pdpp:// URIs and paging handles a target shows, and what
// they decode to.

var handleURIRe = regexp.MustCompile(`pdpp://[a-z-]+/[^\s"'\\,;)\]}]+`)

// HandleURIs lists the pdpp:// URIs a call shows anywhere: text,
// structuredContent and _meta.
func HandleURIs(c *conformance.Call, kind string) []string {
	return HandleURIsIn(kind, c.Text(), string(c.Raw))
}

// HandleURIsIn lists the pdpp:// URIs of kind the texts show.
func HandleURIsIn(kind string, texts ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range texts {
		for _, u := range handleURIRe.FindAllString(s, -1) {
			// A URI cut by a preview's mark is part of a clipped value,
			// not a handle the model can use.
			if strings.HasPrefix(u, "pdpp://"+kind+"/") && !seen[u] && !clippedURI(u) {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// clippedURI tells a URI a preview cut (it runs into a cut mark, in any
// common notation: "…", "⋯", "...", "[…]").
func clippedURI(u string) bool {
	return strings.ContainsAny(u, "…⋯[") || strings.HasSuffix(u, "...")
}

// HandleJSON decodes a pdpp:// handle whose path is base64url JSON, as the
// canonical record and field-window handles are; nil for any other.
func HandleJSON(uri string) map[string]any {
	i := strings.Index(strings.TrimPrefix(uri, "pdpp://"), "/")
	if !strings.HasPrefix(uri, "pdpp://") || i < 0 {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(uri[len("pdpp://")+i+1:], "="))
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// A HandleScan is what a check scans for the pdpp:// handles a target
// emits: read results, and the handles that are only copies of record
// values (data, not the target's handles; their encoding is whoever
// wrote them).
type HandleScan struct {
	Calls  []*conformance.Call
	Copies map[string]bool
}

// ReadURIs are the read results a check scans for pdpp:// handles: a page
// of every stream the index lists (up to MaxStreamProbes), a fetch of the
// first record each page shows, and a search of the target's own words;
// with every handle that a record value holds.
func ReadURIs(t *conformance.T) HandleScan {
	scan := HandleScan{Copies: map[string]bool{}}
	eachPage(t, 5, func(src Source, c *conformance.Call) {
		scan.Calls = append(scan.Calls, c)
		for _, r := range Records(c) {
			for _, v := range StringValues(r["data"]) {
				for _, u := range handleURIRe.FindAllString(v, -1) {
					scan.Copies[u] = true
				}
			}
		}
		// The first record's document, fetched by the handle the page
		// shows for it (learned by following, never by key).
		if refs := RecordsShown(t, c, src.Stream); len(refs) > 0 && Serves(t.Target, "fetch") {
			if h := Handles(t, c, refs[:1])[refs[0]]; h != "" {
				if f := Follow(t, h); f.Call != nil {
					scan.Calls = append(scan.Calls, f.Call)
				}
			}
		}
	})
	if _, c, _ := FanInTerm(t); c != nil {
		scan.Calls = append(scan.Calls, c)
		if hs := Hits(t, c); len(hs) > 0 {
			if h := HitHandle(t, c, hs[0]); h != "" {
				if f := Follow(t, h); f.Call != nil {
					scan.Calls = append(scan.Calls, f.Call)
				}
			}
		}
	}
	return scan
}

// Emitted are the handles of kind a call shows that the target emitted:
// none that a record value holds (whole, or cut short by a preview).
func (s HandleScan) Emitted(c *conformance.Call, kind string) []string {
	var out []string
	for _, u := range HandleURIs(c, kind) {
		copied := false
		for v := range s.Copies {
			copied = copied || strings.HasPrefix(v, u)
		}
		if !copied {
			out = append(out, u)
		}
	}
	return out
}

// PagingHandles are the handles of an RS read envelope that seed 001 wants
// in content[] text: "" where the envelope has none.
type PagingHandles struct{ Cursor, Changes, Count string }

// HandlesOf reads the paging handles of an RS read envelope.
func HandlesOf(env map[string]any) PagingHandles {
	var h PagingHandles
	h.Cursor, _ = env["next_cursor"].(string)
	h.Changes, _ = env["next_changes_since"].(string)
	meta, _ := env["meta"].(map[string]any)
	switch c := meta["count"].(type) {
	case map[string]any:
		if c["value"] != nil {
			h.Count = String(c["value"])
		}
	case nil:
	default:
		h.Count = String(c)
	}
	return h
}
