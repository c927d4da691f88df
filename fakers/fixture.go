// Package fakers is the fixture PDPP resource server: one http.Handler that
// fakes the RS read contract (docs/RS-CONTRACT.md) over
// deterministic data, reachable in-process through an httpmock transport or
// as a real loopback server, with a request log, live mutation and fault
// injection that tests can drive.
//
// Where the contract records that the implementation differs from the spec,
// the fixture does what the implementation does (docs/RS-CONTRACT.md §15):
//   - a client token outside its streams or connections gets 401 context.* at
//     the gate, not 403;
//   - a client's schema is grant-projected (no capability flags), and client
//     filter/expand are 400 — unless Fixture.SpecClientReads asks for the
//     spec's behaviour, which the seed scenarios presuppose;
//   - fields projects to exactly the requested fields;
//   - next_changes_since rides on every changes page, and links.next of a
//     changes page sets both cursor and changes_since;
//   - expand_limit over max_limit is 400, not clamped;
//   - unknown parameters are 400 only on records, aggregate and search;
//   - aggregations on a stream that declares none are 400, and fan-in
//     grouped aggregates omit other_count;
//   - ambiguous_connection carries retry_with as a string;
//   - search meta.count is a number, limits over 100 are clamped with a
//     warning, and Request-Id (also X-Request-Id) names the request;
//   - record lists carry no freshness (#5), and expanded has_many lists
//     carry no url (#7);
//   - blobs are direct bytes, never a 302 or a range answer (#15);
//   - only the stream's cursor field is sortable (#19).
//
// Two things go beyond one real RS on purpose. The client grant may span
// several connectors, as a hosted MCP package does, so one fixture covers a
// stream name shared across connectors (Fixture.RealRS binds it to one, as
// the reference RS does; realrs.go holds what that profile adds). And /v1/search/semantic and /hybrid
// are a deterministic token-overlap approximation that says so in every
// answer (meta.approximation), mounted only when a stream declares a
// semantic field.
package fakers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// DefaultFixture is the data set used when none is named.
const DefaultFixture = "default"

// A Fixture is a named, deterministic data set: connectors with their
// connections, stream manifests with records, and the client grant.
type Fixture struct {
	Name       string
	Connectors []Connector
	Streams    []*Stream
	Grant      Grant
	// SpecClientReads makes client tokens read as the spec says rather than
	// as the implementation does: live (not grant-projected) field
	// capabilities in the schema, and filter/expand accepted on reads. The
	// zero value follows the implementation (docs/RS-CONTRACT.md §4.3, §2.4).
	SpecClientReads bool
	// RealRS makes client tokens read as the reference RS (PDP-Connect/pdpp
	// fceb768, ../shared/realrs) answers them (docs/RS-CONTRACT.md §17):
	// each client token covers one connector (ClientToken the first), the
	// schema has exactly the reference RS's keys, record detail names the
	// connector by its manifest URI, unknown_field and field_not_text carry
	// no param, and error texts are the reference RS's. It overrides
	// SpecClientReads. docs/RS-CONTRACT.md lists the differences (M1–M10).
	RealRS bool `json:",omitempty"`
	// ProjectionAddsFields are fields a record read returns even when a
	// fields projection leaves them out, as a spec-conformant RS may add
	// schema-required fields; adapters must not pass them on.
	ProjectionAddsFields []string
}

// A Connector is a source kind with its connections (accounts).
type Connector struct {
	Key         string // connector_key, also connector_id
	DisplayName string
	Connections []Connection
}

// A Connection is one account of a connector.
type Connection struct {
	ID          string
	DisplayName string
}

// A Stream is one connector's stream manifest plus the records of its
// connections. Two connectors may declare streams of the same name.
type Stream struct {
	Connector     string
	Name          string
	Fields        []Field
	PrimaryKey    string
	CursorField   string
	Connections   []string
	Relationships []Relationship
	Records       []Record
	// NoAggregations makes the stream declare no query.aggregations.
	NoAggregations bool
}

// A Field is one top-level property with its declared capabilities.
type Field struct {
	Name      string
	Type      string // JSON Schema type: string, integer, number, boolean, object
	Format    string // date-time
	Role      string // x_pdpp_role, when declared
	Range     []string
	Lexical   bool
	Semantic  bool
	Aggregate []string // count_distinct, group_by, group_by_time, max, min, sum
	// Description is the property's JSON Schema description, served in full
	// views only.
	Description string
}

func (f *Field) scalar() bool {
	return f.Type == "string" || f.Type == "integer" || f.Type == "number" || f.Type == "boolean"
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

// Grant is what the client token may read. The fixture grant may span
// several connectors, as a hosted MCP package does; the RS contract's
// single-source client grant is the one-connector case.
type Grant struct {
	ID       string
	ClientID string
	Streams  []GrantStream
}

// GrantStream grants one stream name on some connections.
type GrantStream struct {
	Name        string
	Fields      []string
	InstanceIDs []string
}

var fixtures = map[string]func(seed uint64) *Fixture{
	"default":               buildDefault,
	"single-connection":     buildSingle,
	"wide-25":               buildWide,
	EvidenceFixture:         buildEvidence,
	HighlightFixture:        buildHighlights,
	SplitConnectionsFixture: buildSplit,
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

// FixtureBuilder returns the function that builds the named fixture
// ([Scale] for "scale:…"), so a map of the data each check reads can point
// at the code that makes it.
func FixtureBuilder(name string) (builder any, ok bool) {
	if strings.HasPrefix(name, "scale:") {
		return Scale, true
	}
	f, ok := fixtures[name]
	return f, ok
}

// LoadFixture builds a fixture by name with seed 1. "scale:C,S,F,R" builds
// a scale fixture (see [Scale]).
func LoadFixture(name string) (*Fixture, error) { return LoadFixtureSeed(name, 1) }

// LoadFixtureSeed builds a fixture whose generated values follow seed; the
// same name and seed always give the same data.
func LoadFixtureSeed(name string, seed uint64) (*Fixture, error) {
	if spec, ok := strings.CutPrefix(name, "scale:"); ok {
		var c, s, f, r int
		if n, err := fmt.Sscanf(spec, "%d,%d,%d,%d", &c, &s, &f, &r); n != 4 || err != nil {
			return nil, fmt.Errorf("fixture %q: want scale:CONNECTORS,STREAMS,FIELDS,RECORDS", name)
		}
		return Scale(ScaleSpec{Connectors: c, Streams: s, Fields: f, Records: r, Seed: seed})
	}
	f, ok := fixtures[name]
	if !ok {
		return nil, fmt.Errorf("unknown fixture %q (known: %s, scale:C,S,F,R)", name, strings.Join(Fixtures(), ", "))
	}
	return f(seed), nil
}

// StreamsNamed returns every connector's stream with that name.
func (f *Fixture) StreamsNamed(name string) []*Stream {
	var out []*Stream
	for _, s := range f.Streams {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Connector returns the connector with the given key.
func (f *Fixture) Connector(key string) *Connector {
	for i := range f.Connectors {
		if f.Connectors[i].Key == key {
			return &f.Connectors[i]
		}
	}
	return nil
}

// Connection returns a connection and its connector key.
func (f *Fixture) Connection(id string) (Connection, string, bool) {
	for _, c := range f.Connectors {
		for _, cn := range c.Connections {
			if cn.ID == id {
				return cn, c.Key, true
			}
		}
	}
	return Connection{}, "", false
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

// grantAll grants every stream with all its fields on all its connections.
func (f *Fixture) grantAll() {
	byName := map[string]*GrantStream{}
	var order []string
	for _, s := range f.Streams {
		gs, ok := byName[s.Name]
		if !ok {
			gs = &GrantStream{Name: s.Name}
			byName[s.Name] = gs
			order = append(order, s.Name)
		}
		for _, fd := range s.Fields {
			if !slices.Contains(gs.Fields, fd.Name) {
				gs.Fields = append(gs.Fields, fd.Name)
			}
		}
		for _, c := range s.Connections {
			if !slices.Contains(gs.InstanceIDs, c) {
				gs.InstanceIDs = append(gs.InstanceIDs, c)
			}
		}
	}
	f.Grant = Grant{ID: "grt_" + strings.NewReplacer("-", "_", ":", "_", ",", "_").Replace(f.Name), ClientID: "mcpcheck"}
	for _, n := range order {
		f.Grant.Streams = append(f.Grant.Streams, *byName[n])
	}
}
