package fakers

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Facts of the default fixture that checks rely on.
const (
	LongBodyRecordID  = "m007" // gmail cin_work messages: body of 60,000+ characters
	LongBodyPhrase    = "quarterly budget review"
	ShortBodyRecordID = "m001"     // gmail cin_work messages: body of at most 200 characters
	NoSubjectRecordID = "m013"     // gmail cin_work messages: no subject, has sent_at
	SharedRecordID    = "m-shared" // in both gmail connections
	FanInTerm         = "budget"   // matches messages in every messages connection
	MetadataTerm      = "receipts" // matches only the label metadata field
	BlobRecordID      = "a001"     // gmail cin_work attachments: blob_ref plus base64 payload
	LongBodyMinChars  = 60000
)

var labels = []string{"inbox", "work", "travel", "receipts"}

func gmailMessages(conns []Connection, rng *rand.Rand) *Stream {
	s := &Stream{
		Connector: "gmail", Name: "messages", PrimaryKey: "id", CursorField: "sent_at",
		Fields: []Field{
			{Name: "id", Type: "string"},
			{Name: "subject", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "body", Type: "string", Role: "primary-text", Lexical: true, Semantic: true},
			// Traps for name-guessing presentation: "name" reads like a title and
			// "content" like the text, but neither declares a role (seed 002).
			{Name: "name", Type: "string"},
			{Name: "content", Type: "string"},
			{Name: "from_email", Type: "string", Aggregate: []string{"count_distinct", "group_by"}},
			// label is short metadata: a match on it proves no body text.
			{Name: "label", Type: "string", Role: "metadata", Lexical: true, Aggregate: []string{"group_by"}},
			{Name: "sent_at", Type: "string", Format: "date-time", Range: []string{"gte", "gt", "lte", "lt"}, Aggregate: []string{"group_by_time", "max", "min"}},
			{Name: "size_bytes", Type: "integer", Range: []string{"gte", "lte"}, Aggregate: []string{"max", "min", "sum"}},
			{Name: "headers", Type: "object"},
			{Name: "image", Type: "string"}, // named like binary, holds plain text
		},
		Relationships: []Relationship{{Name: "attachments", Stream: "attachments", ForeignKey: "message_id", Cardinality: "has_many", DefaultLimit: 10, MaxLimit: 50}},
	}
	for ci, c := range conns {
		s.Connections = append(s.Connections, c.ID)
		for i := 1; i <= 40; i++ {
			id := fmt.Sprintf("m%03d", i+ci*100)
			data := map[string]any{
				"id":         id,
				"subject":    fmt.Sprintf("%s update %d", []string{"Project", "Team", "Family", "Trip"}[(i+ci)%4], i),
				"body":       fmt.Sprintf("Message %d for %s. Notes about the week, plans and follow-ups.", i, c.DisplayName),
				"from_email": fmt.Sprintf("sender%d@example.com", rng.IntN(6)),
				"label":      labels[(i+ci)%len(labels)],
				"sent_at":    fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00Z", 1+i%6, 1+(i*7+ci*3)%28, 8+i%10, (i*13)%60),
				"size_bytes": 1000 + i*37 + ci*11,
				"headers":    map[string]any{"message-id": fmt.Sprintf("<%s@mail.example>", id), "x-priority": i % 3},
				"image":      "sunset over the bay",
				"name":       []string{"Alex Doe", "Sam Lee", "Kim Park"}[i%3],
				"content":    "multipart/alternative",
			}
			if i%5 == 0 {
				data["body"] = fmt.Sprintf("The %s numbers for %s are ready; the budget draft is attached for review before Friday.", []string{"team", "household"}[ci%2], c.DisplayName)
			}
			if id == LongBodyRecordID {
				// The newest message, so every first page shows the long body.
				data["body"], data["sent_at"] = longBody(), "2026-06-30T09:00:00Z"
			}
			if id == NoSubjectRecordID {
				delete(data, "subject")
			}
			s.Records = append(s.Records, Record{ID: id, ConnectionID: c.ID, Data: data, EmittedAt: fmt.Sprintf("2026-07-01T00:%02d:%02dZ", ci, i)})
		}
		s.Records = append(s.Records, Record{ID: SharedRecordID, ConnectionID: c.ID, EmittedAt: "2026-07-02T00:00:00Z",
			Data: map[string]any{"id": SharedRecordID, "subject": "Welcome to " + c.DisplayName, "body": "This message exists in every connection.",
				"from_email": "welcome@example.com", "label": "inbox", "sent_at": "2026-01-01T09:00:00Z", "size_bytes": 512}})
	}
	return s
}

func gmailAttachments(conn Connection) *Stream {
	s := &Stream{Connector: "gmail", Name: "attachments", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "message_id", Type: "string"}, {Name: "filename", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "mime_type", Type: "string", Aggregate: []string{"group_by"}}, {Name: "blob_ref", Type: "object"}, {Name: "payload", Type: "string"}}}
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("a%03d", i)
		raw := []byte(strings.Repeat(fmt.Sprintf("PNG-%d-", i), 60))
		s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-03T00:00:00Z", Data: map[string]any{
			"id": id, "message_id": fmt.Sprintf("m%03d", i*5), "filename": fmt.Sprintf("budget-%d.png", i), "mime_type": "image/png",
			"blob_ref": map[string]any{"blob_id": "blob_" + id, "mime_type": "image/png", "size_bytes": len(raw), "sha256": fmt.Sprintf("%064x", i)},
			"payload":  base64.StdEncoding.EncodeToString(raw), // a base64 blob under a neutral name
		}})
	}
	return s
}

func slackStreams(conn Connection) []*Stream {
	msgs := &Stream{Connector: "slack", Name: "messages", PrimaryKey: "id", CursorField: "sent_at", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "text", Type: "string", Role: "primary-text", Lexical: true, Semantic: true}, {Name: "channel", Type: "string", Aggregate: []string{"group_by"}},
			{Name: "author", Type: "string", Role: "author"}, {Name: "sent_at", Type: "string", Format: "date-time", Range: []string{"gte", "lt"}, Aggregate: []string{"group_by_time"}}}}
	for i := 1; i <= 20; i++ {
		text := fmt.Sprintf("Standup note %d: shipped the release checklist.", i)
		if i%4 == 0 {
			text = fmt.Sprintf("Reminder %d: the budget sync moved to Tuesday; bring the numbers.", i)
		}
		msgs.Records = append(msgs.Records, Record{ID: fmt.Sprintf("s%03d", i), ConnectionID: conn.ID, EmittedAt: "2026-07-06T00:00:00Z",
			Data: map[string]any{"id": fmt.Sprintf("s%03d", i), "text": text, "channel": []string{"#general", "#eng", "#finance"}[i%3], "author": fmt.Sprintf("user%d", i%5),
				"sent_at": fmt.Sprintf("2026-04-%02dT14:%02d:13Z", 1+i%28, i)}})
	}
	chans := &Stream{Connector: "slack", Name: "channels", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID}, NoAggregations: true,
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "name", Type: "string", Role: "primary-title"}, {Name: "topic", Type: "string"}}}
	for i, n := range []string{"#general", "#eng", "#finance"} {
		chans.Records = append(chans.Records, Record{ID: fmt.Sprintf("ch%d", i+1), ConnectionID: conn.ID, EmittedAt: "2026-07-06T00:00:00Z",
			Data: map[string]any{"id": fmt.Sprintf("ch%d", i+1), "name": n, "topic": "Topic of " + n}})
	}
	return []*Stream{msgs, chans}
}

// githubIssues is a time series spread over years, quarters, weeks, days,
// hours and minutes, so every aggregate granularity has several buckets.
func githubIssues(conn Connection) *Stream {
	s := &Stream{Connector: "github", Name: "issues", PrimaryKey: "id", CursorField: "created_at", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "title", Type: "string", Role: "primary-title", Lexical: true}, {Name: "state", Type: "string", Aggregate: []string{"group_by"}},
			{Name: "comments", Type: "integer", Aggregate: []string{"max", "min", "sum"}},
			{Name: "created_at", Type: "string", Format: "date-time", Range: []string{"gte", "gt", "lte", "lt"}, Aggregate: []string{"group_by_time", "max", "min"}}}}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	step := 11*24*time.Hour + 7*time.Hour + 13*time.Minute
	for i := 0; i < 80; i++ {
		id := fmt.Sprintf("i%03d", i+1)
		s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-07T00:00:00Z", Data: map[string]any{
			"id": id, "title": fmt.Sprintf("Issue %d: %s", i+1, []string{"crash on start", "budget report export", "docs typo", "flaky test"}[i%4]),
			"state": []string{"open", "closed"}[i%2], "comments": i % 7, "created_at": base.Add(time.Duration(i) * step).Format(time.RFC3339),
		}})
	}
	return s
}

func buildDefault(seed uint64) *Fixture {
	rng := rand.New(rand.NewPCG(seed, 2))
	gmail := []Connection{{"cin_work", "Work Mail"}, {"cin_home", "Home Mail"}}
	slack := Connection{ID: "cin_slack", DisplayName: "Acme Slack"}
	github := Connection{ID: "cin_github", DisplayName: "octocat"}
	f := &Fixture{Name: "default", Connectors: []Connector{
		{Key: "gmail", DisplayName: "Gmail", Connections: gmail},
		{Key: "slack", DisplayName: "Slack", Connections: []Connection{slack}},
		{Key: "github", DisplayName: "GitHub", Connections: []Connection{github}},
	}}
	f.Streams = append(f.Streams, gmailMessages(gmail, rng), gmailAttachments(gmail[0]))
	f.Streams = append(f.Streams, slackStreams(slack)...)
	f.Streams = append(f.Streams, githubIssues(github))
	f.grantAll()
	return f
}

func buildSingle(seed uint64) *Fixture {
	conn := Connection{ID: "cin_work", DisplayName: "Work Mail"}
	f := &Fixture{Name: "single-connection", Connectors: []Connector{{Key: "gmail", DisplayName: "Gmail", Connections: []Connection{conn}}}}
	f.Streams = []*Stream{gmailMessages([]Connection{conn}, rand.New(rand.NewPCG(seed, 2))), gmailAttachments(conn)}
	f.grantAll()
	return f
}

// buildWide is one connector with 25 connections sharing a messages
// stream: a grant too wide to list in one ambiguity error.
func buildWide(seed uint64) *Fixture {
	const n = 25
	rng := rand.New(rand.NewPCG(seed, 3))
	f := &Fixture{Name: "wide-25"}
	imap := Connector{Key: "imap", DisplayName: "IMAP"}
	s := &Stream{Connector: "imap", Name: "messages", PrimaryKey: "id", CursorField: "sent_at",
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "subject", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "sent_at", Type: "string", Format: "date-time", Range: []string{"gte", "lt"}, Aggregate: []string{"group_by_time"}}}}
	for i := 1; i <= n; i++ {
		c := Connection{ID: fmt.Sprintf("cin_%02d", i), DisplayName: fmt.Sprintf("Mailbox %02d", i)}
		imap.Connections = append(imap.Connections, c)
		s.Connections = append(s.Connections, c.ID)
		for j := 1; j <= 3; j++ {
			id := fmt.Sprintf("w%02d-%d", i, j)
			s.Records = append(s.Records, Record{ID: id, ConnectionID: c.ID, EmittedAt: "2026-07-08T00:00:00Z", Data: map[string]any{
				"id": id, "subject": fmt.Sprintf("Mailbox %02d note %d (%d)", i, j, rng.IntN(100)), "sent_at": fmt.Sprintf("2026-03-%02dT10:00:00Z", j)}})
		}
	}
	f.Connectors = []Connector{imap}
	f.Streams = []*Stream{s}
	f.grantAll()
	return f
}

// longBody is a body of LongBodyMinChars+ characters with LongBodyPhrase
// near the middle.
func longBody() string {
	var b strings.Builder
	for i := 0; b.Len() < LongBodyMinChars/2; i++ {
		fmt.Fprintf(&b, "Paragraph %d covers routine operations, staffing notes and the calendar for the coming weeks. ", i)
	}
	b.WriteString("The " + LongBodyPhrase + " moved to Thursday afternoon. ")
	for i := 0; b.Len() < LongBodyMinChars+400; i++ {
		fmt.Fprintf(&b, "Appendix %d lists vendors, invoices and open questions for the finance team. ", i)
	}
	return b.String()
}

// A ScaleSpec sizes a generated fixture: Connectors connectors with one
// connection each, Streams streams per connector, Fields fields per stream
// and Records records per stream. Seed varies the generated text.
type ScaleSpec struct {
	Connectors, Streams, Fields, Records int
	Seed                                 uint64
	// DescriptionChars gives every field a JSON Schema description of this
	// length, as verbose real manifests have.
	DescriptionChars int
	// ValueChars makes every generated value about this long: fat records.
	ValueChars int
}

// Scale generates a large grant for footprint and performance work.
func Scale(sp ScaleSpec) (*Fixture, error) {
	switch {
	case sp.Connectors < 1 || sp.Streams < 1 || sp.Fields < 2 || sp.Records < 0:
		return nil, fmt.Errorf("scale: want connectors>=1, streams>=1, fields>=2, records>=0")
	case sp.Connectors*sp.Streams*sp.Records > 2_000_000 || sp.Connectors*sp.Streams*sp.Fields > 200_000:
		return nil, fmt.Errorf("scale: %d×%d×%d×%d is larger than the fixture allows", sp.Connectors, sp.Streams, sp.Fields, sp.Records)
	}
	rng := rand.New(rand.NewPCG(sp.Seed, 7))
	f := &Fixture{Name: fmt.Sprintf("scale:%d,%d,%d,%d", sp.Connectors, sp.Streams, sp.Fields, sp.Records)}
	words := []string{"alpha", "budget", "delta", "review", "sprint", "invoice", "travel", "family", "launch", "notes"}
	for c := 0; c < sp.Connectors; c++ {
		key := fmt.Sprintf("connector-%d", c)
		conn := Connection{ID: fmt.Sprintf("cin_%d", c), DisplayName: fmt.Sprintf("Account %d", c)}
		f.Connectors = append(f.Connectors, Connector{Key: key, DisplayName: fmt.Sprintf("Connector %d", c), Connections: []Connection{conn}})
		for si := 0; si < sp.Streams; si++ {
			s := &Stream{Connector: key, Name: fmt.Sprintf("stream_%d_%d", c, si), PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID}}
			s.Fields = append(s.Fields, Field{Name: "id", Type: "string"})
			for fi := 1; fi < sp.Fields; fi++ {
				fd := Field{Name: fmt.Sprintf("field_%d", fi), Type: "string", Description: describe(fi, sp.DescriptionChars)}
				if fi == 1 {
					fd.Role, fd.Lexical, fd.Aggregate = "primary-title", true, []string{"count_distinct"}
				}
				if fi%5 == 0 {
					fd.Aggregate = []string{"group_by"}
				}
				s.Fields = append(s.Fields, fd)
			}
			for r := 0; r < sp.Records; r++ {
				data := map[string]any{"id": fmt.Sprintf("r%d", r)}
				for _, fd := range s.Fields[1:] {
					v := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
					for len(v) < sp.ValueChars {
						v += " " + words[rng.IntN(len(words))]
					}
					data[fd.Name] = v
				}
				s.Records = append(s.Records, Record{ID: fmt.Sprintf("r%d", r), ConnectionID: conn.ID, EmittedAt: "2026-07-01T00:00:00Z", Data: data})
			}
			f.Streams = append(f.Streams, s)
		}
	}
	f.grantAll()
	return f, nil
}

// describe is a field description of n characters.
func describe(field, n int) string {
	if n <= 0 {
		return ""
	}
	s := strings.Repeat(fmt.Sprintf("Field %d holds free text captured from the source; ", field), n/40+1)
	return s[:n]
}
