package dialect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func loadTools(t *testing.T, name string, o *Overrides) *Dialect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	return FromToolsList(list.Tools, o)
}

func TestInferRolesFromInputSchemas(t *testing.T) {
	cases := []struct {
		dialect, tool string
		want          map[Role]string
	}{
		{"reference", "read_record_field", map[Role]string{RecordID: "id", Field: "field_path", Offset: "offset_chars", Length: "limit_chars",
			Cursor: "cursor", Query: "q", Before: "before_chars", After: "after_chars", Connection: "connection_id"}},
		{"reference", "search", map[Role]string{Query: "q", Limit: "limit", Cursor: "cursor", Streams: "streams", Connection: "connection_id"}},
		{"reference", "query_records", map[Role]string{Stream: "stream", Connection: "connection_id", Fields: "fields", Filter: "filter", Limit: "limit",
			Cursor: "cursor", Order: "order", Sort: "sort", Count: "count", ChangesSince: "changes_since", Expand: "expand", ExpandLimit: "expand_limit"}},
		{"reference", "aggregate", map[Role]string{Stream: "stream", Metric: "metric", Field: "field", GroupBy: "group_by", GroupByTime: "group_by_time",
			Granularity: "granularity", TimeZone: "time_zone", Limit: "limit", Filter: "filter"}},
		{"reference", "schema", map[Role]string{Stream: "stream", Connection: "connection_id", Detail: "detail"}},
		{"reference", "fetch", map[Role]string{RecordID: "id", Fields: "fields", Expand: "expand"}},
		{"typescript", "read_record_field", map[Role]string{RecordID: "handle", Field: "key", Offset: "skip", Length: "take", Query: "around"}},
		{"typescript", "search", map[Role]string{Query: "text", Limit: "maxResults", Cursor: "pageToken", Connection: "connection_id"}},
		{"python", "read_record_field", map[Role]string{RecordID: "record", Field: "field", Offset: "start", Length: "length",
			Before: "context_before", After: "context_after", Query: "match", Cursor: "next"}},
		{"python", "search", map[Role]string{Query: "query", Limit: "limit", Streams: "streams"}},
	}
	for _, c := range cases {
		d := loadTools(t, c.dialect, nil)
		for r, want := range c.want {
			if got, err := d.Name(c.tool, r); got != want {
				t.Errorf("%s %s: %s = %q (%v), want %q", c.dialect, c.tool, r, got, err, want)
			}
		}
	}
}

func TestUndeclaredRoleIsNotResolved(t *testing.T) {
	d := loadTools(t, "typescript", nil)
	_, err := d.Name("read_record_field", Before)
	if err == nil || err.Error() != "the target declares no argument for the context before on read_record_field" {
		t.Fatalf("Before on a tool without one: %v", err)
	}
	if _, err := d.Resolve("search", Args{Query: "x", Streams: []string{"a"}}); err == nil {
		t.Fatal("resolving a role the tool lacks must fail")
	}
}

func TestTieIsAmbiguousUntilAPrintedCallSettlesIt(t *testing.T) {
	d := loadTools(t, "ambiguous", nil)
	_, err := d.Name("read_record_field", Offset)
	if err == nil || !strings.Contains(err.Error(), "ambiguous between from, start") {
		t.Fatalf("a tie must be ambiguous: %v", err)
	}
	if got := d.Summary()[0].Line(); !strings.Contains(got, "offset = ? (ambiguous: from or start)") {
		t.Errorf("summary: %s", got)
	}
	for _, c := range PrintedCalls(`next: read_record_field(record="r1", field="body", from=200)`, []string{"read_record_field"}) {
		d.Observe(c)
	}
	if got, _ := d.Name("read_record_field", Offset); got != "from" {
		t.Fatalf("after the printed call, offset = %q, want from", got)
	}
	if got := d.Summary()[0].Line(); !strings.Contains(got, "offset = from (printed call)") {
		t.Errorf("summary: %s", got)
	}
}

func TestDialectFileCorrectsAWrongInference(t *testing.T) {
	// "take" reads as the window length; this adapter means it as the offset.
	wrong := loadTools(t, "typescript", nil)
	if got, _ := wrong.Name("read_record_field", Offset); got != "skip" {
		t.Fatalf("inferred offset = %q", got)
	}
	o, err := ParseOverrides([]byte("arguments:\n  read_record_field:\n    offset: take\n    record_id: key\n    field: handle\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := loadTools(t, "typescript", o)
	for r, want := range map[Role]string{Offset: "take", RecordID: "key", Field: "handle"} {
		if got, _ := d.Name("read_record_field", r); got != want {
			t.Errorf("%s = %q, want %q", r, got, want)
		}
	}
	if d.Has("read_record_field", Length) {
		t.Errorf("take plays one role: length must be unbound once take is the offset")
	}
	if got := summaryOf(d, "read_record_field"); !strings.Contains(got, "offset = take (--dialect)") {
		t.Errorf("summary: %s", got)
	}
}

func TestDialectFileErrors(t *testing.T) {
	for in, want := range map[string]string{
		"arguments:\n  search:\n    querry: text\n": `unknown role "querry"`,
		"argumets: {}\n":                         "not a dialect file",
		"arguments:\n  search:\n    query: ''\n": "names no argument",
	} {
		if _, err := ParseOverrides([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	o, _ := ParseOverrides([]byte("arguments:\n  search:\n    query: txt\n  nosuch:\n    query: q\n"))
	d := loadTools(t, "typescript", o)
	var lines []string
	for _, s := range d.Summary() {
		lines = append(lines, s.Line())
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{`search declares no argument "txt"`, "names tool nosuch, which the target does not serve"} {
		if !strings.Contains(all, want) {
			t.Errorf("summary lacks %q:\n%s", want, all)
		}
	}
	if got, _ := d.Name("search", Query); got != "text" {
		t.Errorf("an override naming an undeclared argument must not apply: query = %q", got)
	}
}

func TestReferenceSummary(t *testing.T) {
	d := loadTools(t, "reference", nil)
	var lines []string
	for _, s := range d.Summary() {
		lines = append(lines, s.Line())
	}
	want := []string{
		"query_records: cursor = cursor (inputSchema)",
		"aggregate: field = field (inputSchema)",
		"search: query = q, cursor = cursor (inputSchema)",
		"read_record_field: record id = id, field = field_path, offset = offset_chars, length = limit_chars, cursor = cursor, query = q, context before = before_chars, context after = after_chars (inputSchema)",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestPrintedCallsInEveryNotation(t *testing.T) {
	b, err := os.ReadFile("testdata/printed.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := PrintedCalls(string(b), []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"})
	want := []PrintedCall{
		{Tool: "read_record_field", Args: map[string]any{"handle": "cin_x~m007", "key": "body", "skip": "200", "take": "200"}, Loose: true},
		{Tool: "read_record_field", Args: map[string]any{"handle": "cin_x~m007", "key": "body", "skip": "400"}, Loose: true},
		{Tool: "read_record_field", Args: map[string]any{"id": "work/messages:m007", "field_path": "body", "offset_chars": 600.0}},
		{Tool: "fetch", Args: map[string]any{"id": "a:b"}},
		{Tool: "search", Args: map[string]any{"text": "alpha", "pageToken": "p2"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Tool != want[i].Tool || !reflect.DeepEqual(got[i].Args, want[i].Args) || got[i].Loose != want[i].Loose {
			t.Errorf("call %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	d := loadTools(t, "typescript", nil)
	typed := d.Typed(got[0])
	if typed.Args["skip"] != 200.0 || typed.Args["handle"] != "cin_x~m007" {
		t.Errorf("typed: %+v", typed.Args)
	}
}

func summaryOf(d *Dialect, tool string) string {
	for _, s := range d.Summary() {
		if s.Tool == tool {
			return s.Line()
		}
	}
	return ""
}

func TestPrintedCallTeachesAnUnresolvedRoleByValue(t *testing.T) {
	d := FromToolsList([]json.RawMessage{json.RawMessage(`{"name":"read_record_field","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"integer"}}}}`)}, nil)
	if d.Has("read_record_field", Field) || d.Has("read_record_field", RecordID) {
		t.Fatal("names that say nothing must not resolve")
	}
	c := PrintedCalls(`next: read_record_field {"a": "rec-1", "b": "body", "c": 200}`, []string{"read_record_field"})[0]
	d.Learn(c, Args{RecordID: "rec-1", Field: "body", Offset: "nope"})
	for r, want := range map[Role]string{RecordID: "a", Field: "b"} {
		if got, _ := d.Name("read_record_field", r); got != want {
			t.Errorf("%s = %q, want %q", r, got, want)
		}
	}
	if d.Has("read_record_field", Offset) {
		t.Error("a value the call does not hold teaches nothing")
	}
	if got := summaryOf(d, "read_record_field"); !strings.Contains(got, "record id = a, field = b (printed call)") {
		t.Errorf("summary: %s", got)
	}
}

// A tie the seed's own name for the role settles is no tie: fetch takes
// "an id returned by search" (Y's fetch declares both id and record_id).
func TestSeedNameSettlesATie(t *testing.T) {
	d := loadTools(t, "seednamed", nil)
	for _, tool := range []string{"fetch", "read_record_field"} {
		if got, err := d.Name(tool, RecordID); err != nil || got != "id" {
			t.Errorf("%s record id = %q (%v), want id", tool, got, err)
		}
	}
}

// One argument that sizes the context on both sides of a match plays the
// context role, not the window's length beside it.
func TestSymmetricContextIsItsOwnRole(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"id":{"type":"string"},"field":{"type":"string"},"query":{"type":"string"},
		"max_chars":{"type":"integer","description":"Window size in characters."},
		"context_chars":{"type":"integer","description":"With query: characters of context before and after the match."}}}`)
	bound, _ := inferTool("read_record_field", properties(schema))
	if bound[Context].Name != "context_chars" || bound[Length].Name != "max_chars" {
		t.Errorf("context = %q, length = %q; want context_chars, max_chars", bound[Context].Name, bound[Length].Name)
	}
}
