// Package fakers is the fixture PDPP resource server: one http.Handler that
// fakes the RS read contract (../shared/reference/rs-read-contract.md) over
// deterministic data, reachable in-process through an httpmock transport or
// as a real loopback server, with a request log that tests can inspect.
package fakers

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultFixture is the data set used when none is named.
const DefaultFixture = "two-connections"

// A Fixture is a named, deterministic data set: one connector, its
// connections, stream manifests and records, and the client grant.
type Fixture struct {
	Name        string
	Connector   Connector
	Connections []Connection
	Streams     []*Stream
	Grant       Grant
}

// Connector is the grant's source.
type Connector struct {
	Key         string // connector_key, also connector_id
	DisplayName string
}

// A Connection is one account of the connector.
type Connection struct {
	ID          string
	DisplayName string
}

// A Stream is a manifest plus the records of every connection that has it.
type Stream struct {
	Name          string
	Fields        []Field
	PrimaryKey    string
	CursorField   string
	Connections   []string // connection ids holding this stream
	Relationships []Relationship
	Records       []Record
}

// A Field is one top-level property with its declared capabilities.
type Field struct {
	Name      string
	Type      string // JSON Schema type: string, integer, number, boolean, object
	Format    string // e.g. date-time
	Role      string // x_pdpp_role
	Range     []string
	Lexical   bool
	Semantic  bool
	Aggregate []string // count_distinct, group_by, group_by_time, max, min, sum
}

// A Relationship is an expandable relation of a stream.
type Relationship struct {
	Name, Stream, ForeignKey, Cardinality string
	DefaultLimit, MaxLimit                int
}

// A Record belongs to one connection.
type Record struct {
	ID           string
	ConnectionID string
	EmittedAt    string
	Data         map[string]any
}

// Grant is the client token's grant: streams with their granted fields and
// connections.
type Grant struct {
	ID       string
	ClientID string
	Streams  []GrantStream
}

// GrantStream is one stream of a grant.
type GrantStream struct {
	Name        string
	Fields      []string
	InstanceIDs []string
}

var fixtures = map[string]func() *Fixture{
	"two-connections": func() *Fixture {
		return build("two-connections", []Connection{{"cin_work", "Work Mail"}, {"cin_home", "Home Mail"}})
	},
	"single-connection": func() *Fixture { return build("single-connection", []Connection{{"cin_work", "Work Mail"}}) },
}

// Fixtures lists the fixture names.
func Fixtures() []string {
	names := make([]string, 0, len(fixtures))
	for n := range fixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LoadFixture builds a fixture by name.
func LoadFixture(name string) (*Fixture, error) {
	f, ok := fixtures[name]
	if !ok {
		return nil, fmt.Errorf("unknown fixture %q (known: %s)", name, strings.Join(Fixtures(), ", "))
	}
	return f(), nil
}

// Stream returns the stream with the given name.
func (f *Fixture) Stream(name string) *Stream {
	for _, s := range f.Streams {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Field returns the named field.
func (s *Stream) Field(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

// Facts that checks rely on.
const (
	LongBodyRecordID = "m007" // in cin_work: body of 6,000+ characters
	LongBodyPhrase   = "quarterly budget review"
	NoSubjectRecord  = "m013"     // in cin_work: no subject, has sent_at
	SharedRecordID   = "m-shared" // present in every connection
	FanInTerm        = "budget"   // matches messages in every connection
)

var labels = []string{"inbox", "work", "travel", "receipts"}

func build(name string, conns []Connection) *Fixture {
	f := &Fixture{Name: name, Connector: Connector{Key: "gmail", DisplayName: "Gmail"}, Connections: conns}
	connIDs := make([]string, len(conns))
	for i, c := range conns {
		connIDs[i] = c.ID
	}
	messages := &Stream{
		Name: "messages", PrimaryKey: "id", CursorField: "sent_at", Connections: connIDs,
		Fields: []Field{
			{Name: "id", Type: "string"},
			{Name: "subject", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "body", Type: "string", Role: "body", Lexical: true},
			{Name: "from_email", Type: "string", Aggregate: []string{"count_distinct", "group_by"}},
			{Name: "label", Type: "string", Aggregate: []string{"group_by"}},
			{Name: "sent_at", Type: "string", Format: "date-time", Range: []string{"gte", "gt", "lte", "lt"}, Aggregate: []string{"group_by_time", "max", "min"}},
			{Name: "size_bytes", Type: "integer", Range: []string{"gte", "lte"}, Aggregate: []string{"max", "min", "sum"}},
		},
	}
	if len(conns) > 0 {
		messages.Relationships = []Relationship{{Name: "attachments", Stream: "attachments", ForeignKey: "message_id", Cardinality: "has_many", DefaultLimit: 10, MaxLimit: 50}}
	}
	for ci, c := range conns {
		for i := 1; i <= 40; i++ {
			id := fmt.Sprintf("m%03d", i+ci*100)
			day := 1 + (i*7+ci*3)%28
			data := map[string]any{
				"id":         id,
				"subject":    fmt.Sprintf("%s update %d", []string{"Project", "Team", "Family", "Trip"}[(i+ci)%4], i),
				"body":       fmt.Sprintf("Message %d for %s. Notes about the week, plans and follow-ups.", i, c.DisplayName),
				"from_email": fmt.Sprintf("sender%d@example.com", i%6),
				"label":      labels[(i+ci)%len(labels)],
				"sent_at":    fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00Z", 1+i%6, day, 8+i%10, (i*13)%60),
				"size_bytes": 1000 + i*37 + ci*11,
			}
			if i%5 == 0 {
				data["body"] = fmt.Sprintf("The %s numbers for %s are ready; the budget draft is attached for review before Friday.", []string{"team", "household"}[ci%2], c.DisplayName)
			}
			if id == LongBodyRecordID {
				data["body"] = longBody()
			}
			if id == NoSubjectRecord {
				delete(data, "subject")
			}
			messages.Records = append(messages.Records, Record{ID: id, ConnectionID: c.ID, Data: data, EmittedAt: fmt.Sprintf("2026-07-01T00:%02d:%02dZ", ci, i)})
		}
		messages.Records = append(messages.Records, Record{ID: SharedRecordID, ConnectionID: c.ID, EmittedAt: "2026-07-02T00:00:00Z",
			Data: map[string]any{"id": SharedRecordID, "subject": "Welcome to " + c.DisplayName, "body": "This message exists in every connection.",
				"from_email": "welcome@example.com", "label": "inbox", "sent_at": "2026-01-01T09:00:00Z", "size_bytes": 512}})
	}
	attachments := &Stream{
		Name: "attachments", PrimaryKey: "id", CursorField: "id", Connections: connIDs[:1],
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "message_id", Type: "string"}, {Name: "filename", Type: "string", Lexical: true},
			{Name: "mime_type", Type: "string", Aggregate: []string{"group_by"}}, {Name: "blob_ref", Type: "object"}},
	}
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("a%03d", i)
		attachments.Records = append(attachments.Records, Record{ID: id, ConnectionID: connIDs[0], EmittedAt: "2026-07-03T00:00:00Z", Data: map[string]any{
			"id": id, "message_id": fmt.Sprintf("m%03d", i*5), "filename": fmt.Sprintf("budget-%d.png", i), "mime_type": "image/png",
			"blob_ref": map[string]any{"blob_id": "blob_" + id, "mime_type": "image/png", "size_bytes": 2048 * i, "sha256": fmt.Sprintf("%064x", i)},
		}})
	}
	f.Streams = []*Stream{messages, attachments}
	grantStreams := []GrantStream{{Name: "messages", Fields: fieldNames(messages), InstanceIDs: connIDs}, {Name: "attachments", Fields: fieldNames(attachments), InstanceIDs: connIDs[:1]}}
	if len(conns) > 1 {
		contacts := &Stream{Name: "contacts", PrimaryKey: "id", CursorField: "id", Connections: connIDs[1:2],
			Fields: []Field{{Name: "id", Type: "string"}, {Name: "name", Type: "string", Role: "primary-title"}, {Name: "email", Type: "string"}}}
		for i := 1; i <= 5; i++ {
			id := fmt.Sprintf("c%03d", i)
			contacts.Records = append(contacts.Records, Record{ID: id, ConnectionID: connIDs[1], EmittedAt: "2026-07-04T00:00:00Z",
				Data: map[string]any{"id": id, "name": fmt.Sprintf("Contact %d", i), "email": fmt.Sprintf("contact%d@example.com", i)}})
		}
		f.Streams = append(f.Streams, contacts)
		grantStreams = append(grantStreams, GrantStream{Name: "contacts", Fields: fieldNames(contacts), InstanceIDs: connIDs[1:2]})
	}
	f.Grant = Grant{ID: "grt_" + strings.ReplaceAll(name, "-", "_"), ClientID: "mcpcheck", Streams: grantStreams}
	return f
}

func fieldNames(s *Stream) []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// longBody is a 6,000+ character body with LongBodyPhrase in the middle.
func longBody() string {
	var b strings.Builder
	for i := 0; b.Len() < 3000; i++ {
		fmt.Fprintf(&b, "Paragraph %d covers routine operations, staffing notes and the calendar for the coming weeks. ", i)
	}
	b.WriteString("The " + LongBodyPhrase + " moved to Thursday afternoon. ")
	for i := 0; b.Len() < 6400; i++ {
		fmt.Fprintf(&b, "Appendix %d lists vendors, invoices and open questions for the finance team. ", i)
	}
	return b.String()
}
