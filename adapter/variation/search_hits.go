package variation

// Mutants of the hits of a search page: the source they state and the
// handles they carry.

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hitSourceFromFirst states every hit's source (connection_id,
// connector_key, display_name) as the first hit's, in structuredContent and
// in the text's titles; ids and handles stay right.
func hitSourceFromFirst(_ *mcp.CallToolRequest, r *result) {
	if r.IsError {
		return
	}
	sc := r.structured()
	list, _ := sc["results"].([]any)
	var first map[string]any
	text := r.text()
	for _, x := range list {
		h, _ := x.(map[string]any)
		if h == nil {
			continue
		}
		if first == nil {
			first = h
			continue
		}
		if label, _ := h["display_name"].(string); label != "" && label != first["display_name"] {
			text = strings.ReplaceAll(text, `title="`+label+" /", `title="`+str(first["display_name"])+" /")
		}
		for _, k := range []string{"connection_id", "connector_key", "display_name"} {
			h[k] = first[k]
		}
	}
	if first == nil {
		return
	}
	r.setStructured(sc)
	r.setText(text)
}

// swapHitHandlesOnLaterPages swaps the handles of the first two hits of a
// search page read with a cursor, in structuredContent and text.
func swapHitHandlesOnLaterPages(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Cursor string `json:"cursor"`
	}
	if json.Unmarshal(req.Params.Arguments, &in) != nil || in.Cursor == "" {
		return
	}
	swapFirstHitHandles(req, r)
}

// swapFirstHitHandles swaps the handles of the first two hits of a search
// page, in structuredContent and text; each hit's stated record, title and
// snippet stay its own.
func swapFirstHitHandles(_ *mcp.CallToolRequest, r *result) {
	list, _ := r.structured()["results"].([]any)
	if r.IsError || len(list) < 2 {
		return
	}
	a, _ := list[0].(map[string]any)
	b, _ := list[1].(map[string]any)
	ida, idb := str(a["id"]), str(b["id"])
	if ida == "" || idb == "" {
		return
	}
	rep := strings.NewReplacer(ida, idb, idb, ida)
	r.setText(rep.Replace(r.text()))
	var sc any
	_ = decodeJSON([]byte(rep.Replace(string(mustJSON(r.StructuredContent)))), &sc)
	r.StructuredContent = sc
}

var hitTitleRe = regexp.MustCompile(`(?m)^(\d+\. id=\S+ title=")([^"]*)(")`)

// shiftTextTitles gives each hit line of a search text the next hit's
// title, the last the first's.
func shiftTextTitles(text string) string { return rotateGroup(hitTitleRe, text, 2) }
