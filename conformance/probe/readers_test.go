package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// dialectText is a recorded answer of one dialect (testdata/dialects):
// the reference adapter's and three whole-dialect variants'.
func dialectText(t *testing.T, dialect, answer string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "dialects", dialect+"."+answer+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var recordedDialects = []string{"reference", "ts-sdk", "python", "terse"}

// Exact numbers read in every notation; an abbreviation alone is not exact.
func TestNumbersIn(t *testing.T) {
	for text, want := range map[string]int{
		"total_chars=60450": 60450, "of 60,450 (partial)": 60450, "of 60 450, truncated": 60450,
		"60k (60,450) more": 60450, "1\u00a0234\u00a0567 bytes": 1234567, "12_345": 12345, "30,088–30,096": 30096,
	} {
		if !read.ShowsNumber(text, want) {
			t.Errorf("%q: %d not read", text, want)
		}
	}
	for text, not := range map[string]int{"60k chars": 60000, "1,2345": 12345} {
		if read.ShowsNumber(text, not) {
			t.Errorf("%q read as %d", text, not)
		}
	}
	for _, d := range recordedDialects {
		w := dialectText(t, d, "field-window")
		if !read.ShowsNumber(w, 60450) || !read.ShowsNumber(w, 200) {
			t.Errorf("%s: the window's total 60450 and end 200 are not read:\n%s", d, conformance.ClipText(w, 200))
		}
		if !read.ShowsSize(dialectText(t, d, "records-page"), 60450) {
			t.Errorf("%s: the record preview's size 60450 is not read", d)
		}
	}
}

// Every dialect's partial window says so in its header, and its complete
// small read states completion.
func TestCutAndCompletionWording(t *testing.T) {
	for _, d := range recordedDialects {
		header, _, _ := strings.Cut(dialectText(t, d, "field-window"), "\nParagraph 0")
		if !CutLabel.MatchString(header) {
			t.Errorf("%s: the partial window's header is not read as cut:\n%s", d, header)
		}
		if !Completion.MatchString(dialectText(t, d, "field-small")) {
			t.Errorf("%s: the small read states no completion that is read", d)
		}
	}
	for _, s := range []string{`{"body":"Paragraph 0 covers routine operations"}`, "sent_at: 2026", "more records exist? no"} {
		if CutLabel.MatchString(s) {
			t.Errorf("%q read as cut", s)
		}
	}
}

// Highlighted terms in any of the dialects' tags.
func TestHighlighted(t *testing.T) {
	for _, d := range recordedDialects {
		if got := Highlighted(dialectText(t, d, "search")); got != "budget" {
			t.Errorf("%s: highlighted term %q, want budget", d, got)
		}
	}
	if got := Highlighted("a <em>b</b> c"); got != "" {
		t.Errorf("mismatched tags read as a highlight: %q", got)
	}
}

// A Hit's id, preview and read call form one block in every layout.
func TestTextBlocks(t *testing.T) {
	for _, d := range recordedDialects {
		var found bool
		for _, b := range Blocks(dialectText(t, d, "search")) {
			if strings.Contains(b, "budget") && strings.Contains(b, "body") && strings.Contains(b, "m007") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no block holds hit m007's id, field and preview", d)
		}
	}
	if got := Blocks("a\n  b\nc\n\nd"); len(got) != 3 || got[0] != "a\n  b" {
		t.Errorf("Blocks = %q", got)
	}
}

// Plain reads a preview as plain words.
func TestPlainOf(t *testing.T) {
	if got := Plain("The <hl>Budget</hl>  review"); got != "the budget review" {
		t.Errorf("Plain = %q", got)
	}
}

// Every dialect's scoped schema text yields filters, sorts and
// aggregations, and explains every abbreviation its fields use.
func TestSchemaTextInEveryDialect(t *testing.T) {
	row := messagesRow(t)
	fields := FieldNames(row)
	for _, d := range recordedDialects {
		text := dialectText(t, d, "schema-scoped")
		a := DeriveArgs(text, row)
		if len(a.Filters) == 0 || len(a.Sorts) == 0 || len(a.Aggs) == 0 {
			t.Errorf("%s: filters %v, sorts %v, aggregations %v from:\n%s", d, a.Filters, a.Sorts, a.Aggs, conformance.ClipText(text, 600))
		}
		fns := FieldNotes(text, fields)
		if missing := Unexplained(fns, LegendText(text, fns), fields); len(missing) > 0 {
			t.Errorf("%s: unexplained %v", d, missing)
		}
	}
}

// Each dialect's scoped row states projection, sort, count and search
// support in words a reader finds.
func TestCapabilityStatements(t *testing.T) {
	for _, d := range recordedDialects {
		text := WithoutLegend(dialectText(t, d, "schema-scoped"))
		for _, s := range ScopeSupport {
			if !s.Re.MatchString(text) {
				t.Errorf("%s: %s support not read", d, s.What)
			}
		}
	}
}

// messagesRow is the default fixture's messages row on cin_work, as the
// fixture RS's compact schema declares it to a client token.
func messagesRow(t *testing.T) SchemaRow {
	t.Helper()
	fx, err := conformance.LoadFixture("default")
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	status, body := rs.Replay(fakers.Request{Method: "GET", Path: "/v1/schema", RawQuery: "view=compact&stream=messages&connection_id=cin_work", Authorization: "Bearer " + rs.ClientToken()})
	var doc map[string]any
	if status != 200 || json.Unmarshal(body, &doc) != nil {
		t.Fatalf("the fixture RS's schema: %d %s", status, body)
	}
	rows := SchemaRows(doc)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	return rows[0]
}

// A sort mention is read by the field names after it, whatever words
// stand between (X writes the argument's name before its values).
func TestSortMentions(t *testing.T) {
	fields := []string{"sent_at", "subject", "body"}
	for text, want := range map[string][]string{
		`sort: sort="sent_at" or "-sent_at" (cursor field), or order=asc|desc`: {"sent_at"},
		"sortable by -sent_at; filter subject":                                 {"-sent_at"},
		"order by subject\nsort: none":                                         {"subject"},
		"sort: see schema":                                                     nil,
	} {
		if got := sortMentions(text, fields); !slices.Equal(got, want) {
			t.Errorf("sortMentions(%q) = %q, want %q", text, got, want)
		}
	}
}

// A record's segment is its line and the lines under it, up to the next
// record's, whatever the layout: a heading with bullets, or a line per
// record; a footer is no part of it.
func TestSegment(t *testing.T) {
	others := []string{"m007", "m011"}
	bullets := "# messages: 2 record(s)\n**1. `m007`** · cin_work\n- blob_ref: image/png\n**2. `m011`** · cin_work\n- body: Lunch\nMedia types on this page: image/png"
	if got := Segment(bullets, "m007", others); got != "**1. `m007`** · cin_work\n- blob_ref: image/png" {
		t.Errorf("bullets: %q", got)
	}
	lines := "Records:\n- id: m007 {\"blob_ref\":\"x\"}\n- id: m011 {\"body\":\"Lunch\"}"
	if got := Segment(lines, "m007", others); got != `- id: m007 {"blob_ref":"x"}` {
		t.Errorf("a line per record: %q", got)
	}
	if got := Segment(bullets, "m011", others); got != "**2. `m011`** · cin_work\n- body: Lunch" {
		t.Errorf("a footer is no part of the last record: %q", got)
	}
	if got := Segment(lines, "m099", others); got != "" {
		t.Errorf("absent: %q", got)
	}
}

func TestLabelBefore(t *testing.T) {
	for text, want := range map[string]string{
		`has_more=true. next_changes_since="abc123"`: "next_changes_since",
		"more pages: yes\nnext_cursor: abc123":       "next_cursor",
		"resume changes later: abc123 (keep it)":     "resume changes later",
		`next: query_records {"cursor":"abc123"}`:    "cursor",
		"abc123 first": "",
	} {
		if got := LabelBefore(text, "abc123"); got != want {
			t.Errorf("LabelBefore(%q) = %q, want %q", text, got, want)
		}
	}
}
