package fakers

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// A page is the slice of ranked candidates one search request serves.
type page struct {
	hits []any
	more bool
	next string // the cursor of the next page, when more
}

// pageOf applies the request's cursor (route prefix and snapshot kind must
// match) and limit to the merged candidates.
func pageOf(r *request, sq *searchQuery, merged []cand, kind, prefix string) (page, *apiError) {
	offset := 0
	snap := snapshotOf(kind, sq)
	if c := r.q.Get("cursor"); c != "" {
		var ok bool
		if offset, ok = decodeSearchCursor(c, prefix, snap); !ok {
			return page{}, errf("invalid_cursor", "", "Malformed, expired or mismatched search cursor").asReference("", "Cursor is malformed")
		}
	}
	end := min(offset+sq.limit, len(merged))
	pg := page{hits: hitsOf(merged[min(offset, len(merged)):end]), more: end < len(merged)}
	if pg.more {
		pg.next = encodeSearchCursor(prefix, end, snap)
	}
	return pg, nil
}

func snapshotOf(kind string, sq *searchQuery) string {
	return "snap_" + base64.RawURLEncoding.EncodeToString([]byte(kind+"\x00"+sq.q+"\x00"+sq.conn+"\x00"+strings.Join(sq.streams, ",")))
}

type searchCursor struct {
	Off  int    `json:"off"`
	Snap string `json:"snap"`
}

func encodeSearchCursor(prefix string, off int, snap string) string {
	b, _ := json.Marshal(searchCursor{Off: off, Snap: snap})
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeSearchCursor accepts only a cursor of the same route (prefix) and
// the same query and scope (snap).
func decodeSearchCursor(c, prefix, snap string) (int, bool) {
	body, ok := strings.CutPrefix(c, prefix)
	if !ok || (prefix == "" && strings.HasPrefix(c, "sem1.")) {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var cur searchCursor
	if err != nil || json.Unmarshal(raw, &cur) != nil || cur.Snap != snap || cur.Off < 0 {
		return 0, false
	}
	return cur.Off, true
}
