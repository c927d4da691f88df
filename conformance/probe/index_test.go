package probe

import (
	"slices"
	"testing"
)

// A field a legend line names as an example is not that field's
// annotation when the field shows elsewhere in the text.
func TestFieldNotesPreferTheRowToALegendExample(t *testing.T) {
	text := "field_capability_legend: filter=gte,gt,lte,lt: filter {name: {op: value}}\n" +
		"stream channels fields: id(string; filter=eq) | name(string; role=primary-title)"
	notes := FieldNotes(text, []string{"id", "name"})
	if got := notes["name"].Ctx; got != "(string; role=primary-title)" {
		t.Errorf("name's annotation = %q, want the row's", got)
	}
	if missing := Unexplained(notes, LegendText(text, notes), []string{"id", "name"}); len(missing) != 0 {
		t.Errorf("Unexplained = %v, want none", missing)
	}
}

func TestSearchFlagsExplainedByTheLegend(t *testing.T) {
	fields := []string{"body", "id"}
	with := "field_capability_legend t=declared_type lex=lexical_search\nstream name=m fields=body[t=string,lex];id[t=string]"
	if !SearchFlagsExplained(with, fields) {
		t.Errorf("lex explained as lexical_search and used on body: want search modes stated")
	}
	without := "field_capability_legend t=declared_type\nstream name=m fields=body[t=string];id[t=string]"
	if SearchFlagsExplained(without, fields) {
		t.Errorf("no search flag: want none stated")
	}
}

// A stream name belongs to the connector its line (or, failing that, the
// heading above it) names, in any of several layouts.
func TestConnectorReadings(t *testing.T) {
	layouts := map[string]string{
		"rows":     "stream name=threads connector_key=gmail\nstream name=channels connector_key=slack",
		"index":    "stream_index connector_key=gmail streams=threads|messages\nstream_index connector_key=slack streams=channels",
		"headings": "gmail:\n  threads\n  messages\nslack:\n  channels",
		"one line": "gmail: threads, messages; slack: channels",
	}
	for name, text := range layouts {
		var keys []keyAt
		for _, k := range []string{"gmail", "slack"} {
			for _, p := range tokenPositions(text, k) {
				keys = append(keys, keyAt{k, p, p + len(k)})
			}
		}
		slices.SortFunc(keys, func(a, b keyAt) int { return a.pos - b.pos })
		for stream, want := range map[string]string{"threads": "gmail", "channels": "slack"} {
			p := tokenPositions(text, stream)[0]
			if got := connectorReadings(text, keys, p, p+len(stream)); !slices.Contains(got, want) {
				t.Errorf("%s: %s read under %v, want %s", name, stream, got, want)
			}
		}
	}
	// The misgrouped row reads only under the other connector.
	text := "stream name=threads connector_key=slack\nstream name=channels connector_key=slack"
	keys := []keyAt{{"slack", 35, 40}, {"slack", 75, 80}}
	if got := connectorReadings(text, keys, 12, 19); slices.Contains(got, "gmail") {
		t.Errorf("misgrouped threads read under %v", got)
	}
}

// A legend may write a flag with its own colon: "cmp: = range filter ops".
func TestUnexplainedReadsAFlagWithItsColon(t *testing.T) {
	text := "legend: cmp: = range filter ops, vec:<x> = semantic search, t = type\nf: sent_at{timestamp,cmp:gte+lt} id{string,vec}"
	notes := FieldNotes(text, []string{"sent_at", "id"})
	if missing := Unexplained(notes, LegendText(text, notes), []string{"sent_at", "id"}); len(missing) != 0 {
		t.Errorf("Unexplained = %v, want none", missing)
	}
}
