package checks

import (
	"maps"
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Which connections of the grant serve a stream or hold a record: the
// sources a read without connection_id could mean (S032, S022).

// sharedRecordFetches are the fetches of record id of stream without a
// connection: the id qualified by its stream, bare, and bare with the
// stream where fetch takes one.
func sharedRecordFetches(on *T, stream, id string) []dialect.Args {
	out := []dialect.Args{{dialect.RecordID: stream + ":" + id}, {dialect.RecordID: id}}
	if on.HasRole("fetch", dialect.Stream) {
		out = append(out, dialect.Args{dialect.RecordID: id, dialect.Stream: stream})
	}
	return out
}

// withConnection is args naming conn as well.
func withConnection(args dialect.Args, conn string) dialect.Args {
	out := maps.Clone(args)
	out[dialect.Connection] = conn
	return out
}

// plantSharedRecord gives every connection of stream a copy of its first
// record under one id, so a read of that record is ambiguous across the
// whole package.
func plantSharedRecord(fx *fakers.Fixture, stream string) {
	for _, s := range fx.Streams {
		if s.Name != stream || len(s.Records) == 0 {
			continue
		}
		for _, conn := range s.Connections {
			r := s.Records[0]
			data := maps.Clone(r.Data)
			data["id"] = "mcpcheck-shared"
			s.Records = append(s.Records, fakers.Record{ID: "mcpcheck-shared", ConnectionID: conn, EmittedAt: r.EmittedAt, Data: data})
		}
	}
}

// fixtureStreamConnections are the connections the fixture's grant serves
// stream on, or nil where mcpcheck does not hold the fixture.
func fixtureStreamConnections(t *T, stream string) []string {
	if !t.Target.Has(CapControlledRS) {
		return nil
	}
	fx := t.RS().Fixture()
	var out []string
	for _, st := range fx.StreamsNamed(stream) {
		for _, conn := range st.Connections {
			if grantedConnection(fx, stream, conn) && !slices.Contains(out, conn) {
				out = append(out, conn)
			}
		}
	}
	return out
}

// grantedConnection reports whether the fixture's grant covers conn for
// stream: a grant stream naming no instances covers them all.
func grantedConnection(fx *fakers.Fixture, stream, conn string) bool {
	for _, gs := range fx.Grant.Streams {
		if gs.Name == stream && len(gs.InstanceIDs) > 0 {
			return slices.Contains(gs.InstanceIDs, conn)
		}
	}
	return true
}

// streamConnections are the connections the grant serves stream on.
func streamConnections(t *T, stream string) []string {
	var out []string
	for _, r := range probe.RowsNamed(probe.Grant(t), stream) {
		for _, c := range r.Connections {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// recordConnections are the connections holding record id of stream in
// the fixture.
func recordConnections(t *T, stream, id string) []string {
	var out []string
	for _, r := range probe.FixtureRecords(t) {
		if r.Ref.Stream == stream && r.Ref.ID == id && !slices.Contains(out, r.Ref.Conn) {
			out = append(out, r.Ref.Conn)
		}
	}
	return out
}

// sharedRecordID is the id of a record of stream that several connections
// hold (the fixture's), or "".
func sharedRecordID(t *T, stream string) string {
	conns := map[string]map[string]bool{}
	for _, r := range probe.FixtureRecords(t) {
		if r.Ref.Stream == stream {
			if conns[r.Ref.ID] == nil {
				conns[r.Ref.ID] = map[string]bool{}
			}
			conns[r.Ref.ID][r.Ref.Conn] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(conns)) {
		if len(conns[id]) > 1 {
			return id
		}
	}
	return ""
}
