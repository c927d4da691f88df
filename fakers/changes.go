package fakers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"time"
)

// A recordKey names one record of one connection of one connector's stream.
type recordKey struct{ connector, stream, conn, id string }

// A change is the version at which a record last changed; tombstone is set
// when that change deleted it.
type change struct {
	version   int
	tombstone map[string]any
}

type fingerprint struct{ sum [32]byte }

func fingerprints(f *Fixture) map[recordKey]fingerprint {
	out := map[recordKey]fingerprint{}
	for _, s := range f.Streams {
		for _, rec := range s.Records {
			b, _ := json.Marshal(rec.Data)
			out[recordKey{s.Connector, s.Name, rec.ConnectionID, rec.ID}] = fingerprint{sha256.Sum256(append(b, rec.EmittedAt...))}
		}
	}
	return out
}

// fixtureClock is the deterministic time of data version v.
func fixtureClock(v int) string {
	return time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC).Add(time.Duration(v) * time.Minute).Format(time.RFC3339)
}

// A changeItem is a live record or a tombstone in the changes feed.
type changeItem struct {
	version   int
	id        string
	rec       Record
	tombstone map[string]any
}

// changedSince lists one connection's records whose version v satisfies
// from < v <= horizon, oldest change first; tombstones only after a token
// (a feed from "beginning" is a full listing of live records).
func (rs *RS) changedSince(x slice, from, horizon int) []changeItem {
	var out []changeItem
	for _, rec := range x.s.Records {
		if rec.ConnectionID != x.conn.ID {
			continue
		}
		v := 1
		if ch, ok := rs.changeLog[recordKey{x.s.Connector, x.s.Name, rec.ConnectionID, rec.ID}]; ok {
			v = ch.version
		}
		if v > from && v <= horizon {
			out = append(out, changeItem{version: v, id: rec.ID, rec: rec})
		}
	}
	if from > 0 {
		for k, ch := range rs.changeLog {
			if ch.tombstone != nil && k.connector == x.s.Connector && k.stream == x.s.Name && k.conn == x.conn.ID && ch.version > from && ch.version <= horizon {
				out = append(out, changeItem{version: ch.version, id: k.id, tombstone: ch.tombstone})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].version != out[j].version {
			return out[i].version < out[j].version
		}
		return out[i].id < out[j].id
	})
	return out
}

// changes serves the changes feed of one connection (docs/RS-CONTRACT.md §6.3):
// "beginning" lists every live record; a next_changes_since token lists the
// records changed or deleted since it was issued, deletions as tombstones.
// Every page carries next_changes_since, the horizon of the first page.
func (rs *RS) changes(r *request, x slice, fields []string, since string, limit int, warnings []any) (int, any) {
	offset, horizon, from := 0, rs.version, 0
	if c := r.q.Get("cursor"); c != "" {
		cur, e := decodeChangesCursor(c)
		if e != nil {
			return 0, e
		}
		offset, horizon, from = cur.Offset, cur.Horizon, cur.Since
	} else if since != "beginning" {
		v, ok := decodeChangesSince(since)
		if !ok {
			return 0, errf("invalid_cursor", "changes_since", "Malformed changes_since cursor; pass `beginning` or a next_changes_since value.")
		}
		from = v
	}
	if from > 0 && from < rs.changesFloor {
		return 0, errf("cursor_expired", "changes_since", "changes_since is older than the retained change history; restart from `beginning`.")
	}
	var items []any
	for _, ch := range rs.changedSince(x, from, horizon) {
		if ch.tombstone != nil {
			items = append(items, projectTop(ch.tombstone, fields))
		} else {
			items = append(items, r.recordJSON(ch.rec, x, fields))
		}
	}
	end := min(offset+limit, len(items))
	body := map[string]any{"object": "list", "url": "/v1/streams/" + r.params[0] + "/records", "has_more": end < len(items),
		"data": nonNil(items[min(offset, len(items)):end]), "next_changes_since": encodeChangesSince(horizon), "meta": map[string]any{"warnings": nonNil(warnings)}}
	if end < len(items) {
		b, _ := json.Marshal(changesCursor{Kind: "page", Session: "changes", Since: from, Offset: end, Horizon: horizon})
		body["next_cursor"] = base64.StdEncoding.EncodeToString(b)
	}
	return http.StatusOK, body
}

type changesCursor struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Since   int    `json:"since_version"`
	Offset  int    `json:"after_offset"`
	Horizon int    `json:"session_max_version"`
}

func isChangesCursor(s string) bool {
	_, err := decodeChangesCursor(s)
	return s != "" && err == nil
}

func decodeChangesCursor(s string) (changesCursor, *apiError) {
	var c changesCursor
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "page" || c.Session != "changes" || c.Offset < 0 {
		return c, errf("invalid_cursor", "", "Malformed cursor")
	}
	return c, nil
}

func encodeChangesSince(version int) string {
	b, _ := json.Marshal(map[string]any{"kind": "changes_since", "version": version})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeChangesSince(s string) (int, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	var c struct {
		Kind    string `json:"kind"`
		Version int    `json:"version"`
	}
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "changes_since" || c.Version < 0 {
		return 0, false
	}
	return c.Version, true
}
