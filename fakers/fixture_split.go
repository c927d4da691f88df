package fakers

import "fmt"

// SplitConnectionsFixture names a grant whose streams sit on different
// sets of one connector's connections, so a schema index must list each
// stream's own connections (S017), not its connector's.
const SplitConnectionsFixture = "split-connections"

// buildSplit is a mail connector with three connections: messages on all
// three, threads on two, drafts and folders on one each, and contacts on
// all three of which the grant allows two. A chat connector shares the
// messages name.
func buildSplit(uint64) *Fixture {
	personal, work, archive := Connection{"cin_personal", "Personal"}, Connection{"cin_work", "Work"}, Connection{"cin_archive", "Archive"}
	team := Connection{"cin_team", "Team Chat"}
	f := &Fixture{Name: SplitConnectionsFixture, Connectors: []Connector{
		{Key: "mail", DisplayName: "Mail", Connections: []Connection{personal, work, archive}},
		{Key: "chat", DisplayName: "Chat", Connections: []Connection{team}},
	}}
	f.Streams = []*Stream{
		splitStream("mail", "messages", personal, work, archive),
		splitStream("mail", "threads", personal, work),
		splitStream("mail", "drafts", work),
		splitStream("mail", "folders", archive),
		splitStream("mail", "contacts", personal, work, archive),
		splitStream("chat", "messages", team),
	}
	f.grantAll()
	for i := range f.Grant.Streams {
		if gs := &f.Grant.Streams[i]; gs.Name == "contacts" {
			gs.InstanceIDs = []string{personal.ID, archive.ID}
		}
	}
	return f
}

func splitStream(connector, name string, conns ...Connection) *Stream {
	s := &Stream{Connector: connector, Name: name, PrimaryKey: "id", CursorField: "updated_at",
		Fields: []Field{
			{Name: "id", Type: "string"},
			{Name: "title", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "folder", Type: "string", Aggregate: []string{"group_by"}},
			{Name: "updated_at", Type: "string", Format: "date-time", Range: []string{"gte", "lt"}, Aggregate: []string{"group_by_time", "max"}},
		}}
	for ci, c := range conns {
		s.Connections = append(s.Connections, c.ID)
		for i := 1; i <= 3; i++ {
			id := fmt.Sprintf("%s-%d-%d", name, ci, i)
			s.Records = append(s.Records, Record{ID: id, ConnectionID: c.ID, EmittedAt: "2026-07-09T00:00:00Z", Data: map[string]any{
				"id": id, "title": fmt.Sprintf("%s %d on %s", name, i, c.DisplayName), "folder": []string{"inbox", "archive"}[i%2],
				"updated_at": fmt.Sprintf("2026-05-%02dT12:00:00Z", i+ci*3)}})
		}
	}
	return s
}
