package probe

import (
	"reflect"
	"slices"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Three grammars for one row: the reference's, a per-line grammar in
// words, and single-letter flags with their own legend. A content-only
// client reading any of them builds the same kinds of arguments.
var grammarTexts = map[string]string{
	"reference": "PDPP schema: connectors=1 streams=1\n" +
		"field_capability_legend t=declared_type role=display_role eq=exact_filter r=range_filter_ops lex=lexical_search sem=semantic_search a=aggregation_caps g=false=not_granted; " +
		"filter={field:value} if eq, {field:{op:value}} for r ops; sort=cursor_field or -cursor_field; fields=[names]; aggregate metric/field/group_by from a\n" +
		`stream name="messages" connector_key="gmail" connections={connection_id:cin_work,display_name:Work_Mail} ` +
		"fields=body[t=string,role=primary-text,eq,lex,sem];headers[t=object];label[t=string,role=metadata,eq,lex,a=group_by];" +
		"sent_at[t=timestamp,eq,r=gte|gt|lte|lt,a=group_by_time|max|min];size_bytes[t=integer,eq,r=gte|lte,a=max|min|sum] " +
		"aggregations=count;group_by=label;group_by_time=sent_at;max=sent_at|size_bytes;min=sent_at|size_bytes;sum=size_bytes " +
		"primary_key=id sort=sent_at|-sent_at projection=fields count=none|estimated|exact expand=attachments search=lexical|semantic",
	"words": "schema of stream messages on connection cin_work (Work Mail)\n" +
		"  field sent_at: type timestamp, filter exact or range gte|lt, aggregate max|min, sortable\n" +
		"  field label: type string, filter exact, aggregate group_by\n" +
		"  field headers: type object\n" +
		"  field body: type string, search lexical\n" +
		"  field size_bytes: type integer, filter range gte|lte, aggregate sum\n" +
		"count: exact or estimated; project with fields=[...]",
	"letters": "Key: T=type X=exact-match R=range-ops A=aggregations S=sortable\n" +
		"messages@gmail cin_work: sent_at(T:timestamp X R:gte/lt A:max/min S) label(T:string X A:group_by) headers(T:object) " +
		"body(T:string) size_bytes(T:integer R:gte/lte A:sum)",
}

var grammarFields = []string{"body", "headers", "label", "sent_at", "size_bytes"}

// grammarRow is a row of those fields, without declared capabilities: the
// legend's words alone must be read.
var grammarRow = SchemaRow{FieldCaps: map[string]any{"body": nil, "headers": nil, "label": nil, "sent_at": nil, "size_bytes": nil}}

func TestDeriveArgsReadsEachGrammarByMeaning(t *testing.T) {
	for name, text := range grammarTexts {
		a := DeriveArgs(text, grammarRow)
		if len(a.Fields) == 0 {
			t.Errorf("%s: no projection fields", name)
		}
		if !slices.ContainsFunc(a.Filters, func(f map[string]any) bool { return reflect.DeepEqual(f, map[string]any{"label": "mcpcheck"}) }) {
			t.Errorf("%s: filters %v lack the exact filter on label", name, a.Filters)
		}
		sizeFilter := map[string]any{"size_bytes": map[string]any{"gte": 1}}
		if name == "reference" { // exact and range: exact first
			sizeFilter = map[string]any{"size_bytes": 1}
		}
		if !slices.ContainsFunc(a.Filters, func(f map[string]any) bool { return reflect.DeepEqual(f, sizeFilter) }) {
			t.Errorf("%s: filters %v lack the typed filter %v", name, a.Filters, sizeFilter)
		}
		for _, f := range a.Filters {
			if _, bad := f["headers"]; bad {
				t.Errorf("%s: headers declares no filter, yet %v", name, f)
			}
		}
		if len(a.Sorts) == 0 || a.Sorts[0] != "sent_at" {
			t.Errorf("%s: sorts %v, want sent_at first", name, a.Sorts)
		}
		if !slices.ContainsFunc(a.Aggs, func(g dialect.Args) bool {
			return reflect.DeepEqual(g, dialect.Args{dialect.Metric: "max", dialect.Field: "sent_at"})
		}) || !slices.ContainsFunc(a.Aggs, func(g dialect.Args) bool {
			return reflect.DeepEqual(g, dialect.Args{dialect.Metric: "count", dialect.GroupBy: "label"})
		}) {
			t.Errorf("%s: aggregates %v lack max(sent_at) or count by label", name, a.Aggs)
		}
	}
}

func TestUnexplainedNamesAbbreviationsWithoutALegend(t *testing.T) {
	for name, text := range grammarTexts {
		notes := FieldNotes(text, grammarFields)
		if got := Unexplained(notes, LegendText(text, notes), grammarFields); len(got) > 0 {
			t.Errorf("%s: Unexplained %v, want none", name, got)
		}
	}
	for name, want := range map[string][]string{"reference": {"a", "eq", "lex", "r", "sem", "t"}, "letters": {"A", "R", "S", "T", "X"}} {
		text := WithoutLegend(grammarTexts[name])
		if name == "letters" {
			text = text[len("Key: T=type X=exact-match R=range-ops A=aggregations S=sortable\n"):]
		}
		notes := FieldNotes(text, grammarFields)
		if got := Unexplained(notes, LegendText(text, notes), grammarFields); !reflect.DeepEqual(got, want) {
			t.Errorf("%s without its legend: Unexplained %v, want %v", name, got, want)
		}
	}
}

func TestLegendMeaningsReadsAKeyAfterAHeading(t *testing.T) {
	got := legendMeanings("Key: T=type X=exact-match g=false=not_granted")
	want := map[string]string{"Key": "t", "T": "type", "X": "exact-match", "g=false": "not_granted"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("legendMeanings = %v, want %v", got, want)
	}
}
