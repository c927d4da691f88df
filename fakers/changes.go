package fakers

import (
	"crypto/sha256"
	"encoding/json"
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
