package variation

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// A record token reads back as its record, alone or as a pdpp://record/
// handle; path ids still read; a token hiding traversal, a foreign token
// and a contradicting connection_id are refused.
func TestTokenIDs(t *testing.T) {
	ref := adapter.RecordRef{ConnectionID: "cin_work", Stream: "messages", RecordID: "m:1"}
	tok := tokenIDs{}.Format(ref)
	if !strings.HasPrefix(tok, recordTokenPrefix) || strings.ContainsAny(tok, ":/") {
		t.Fatalf("token %q is not opaque", tok)
	}
	for _, id := range []string{tok, adapter.RecordURIPrefix + tok, "cin_work/messages:m:1"} {
		if got, err := (tokenIDs{}).Parse(id, ""); err != nil || got != ref {
			t.Errorf("Parse(%q) = %v, %v; want %v", id, got, err, ref)
		}
	}
	if got := (tokenIDs{}).Format(adapter.RecordRef{Stream: "messages", RecordID: "m1"}); got != "messages:m1" {
		t.Errorf("a record of no known connection keeps the path id, got %q", got)
	}
	forge := func(parts string) string {
		return recordTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(parts))
	}
	for _, bad := range []string{
		forge(`["cin_work","messages","../secret"]`),
		forge(`["cin/x","messages","m1"]`),
		forge(`["cin_work","messages"]`),
		recordTokenPrefix + "%%%",
	} {
		if _, err := (tokenIDs{}).Parse(bad, ""); err == nil {
			t.Errorf("Parse(%q) accepted a token it did not write", bad)
		}
	}
	if _, err := (tokenIDs{}).Parse(tok, "cin_home"); err == nil {
		t.Error("a connection_id that contradicts the token must be refused")
	}
}

// parenGrammar says what the default grammar's flags say, in words.
func TestParenField(t *testing.T) {
	for in, want := range map[string]string{
		"sent_at[t=timestamp,eq,r=gte|lt,a=group_by_time|max]": "sent_at(timestamp; filter=eq,gte,lt; agg=group_by_time,max)",
		"body[t=string,role=primary-text,eq,lex,sem]":          "body(string; filter=eq; search=lexical,semantic; role=primary-text)",
		"secret[t=string,g=false]":                             "secret(string; not granted)",
		"notes[declared]":                                      "notes(untyped)",
		"more:4":                                               "more:4",
	} {
		if got := parenField(in); got != want {
			t.Errorf("parenField(%q) = %q, want %q", in, got, want)
		}
	}
}

// The reordered mirror is the same JSON value with reversed keys.
func TestReversedJSON(t *testing.T) {
	var v any
	if err := decodeJSON([]byte(`{"a":1,"b":{"x":"<m>","y":[true,null,2.50]}}`), &v); err != nil {
		t.Fatal(err)
	}
	if got, want := reversedJSON(v), `{"b":{"y":[true,null,2.50],"x":"<m>"},"a":1}`; got != want {
		t.Errorf("reversedJSON = %s, want %s", got, want)
	}
}

// Each source mix form reads as the same counts in a sentence.
func TestSourceMixSentence(t *testing.T) {
	s := &Seams{Command: &adapter.Command{}}
	sourceMixSentence()(s)
	for in, want := range map[string]string{
		"search: 3 hit(s). first_fetch_id=a/s:1 source_mix={connection_id:a,connector_key:gmail,count:2}|{connection_id:b,connector_key:slack,count:1}.\nrest": "search: 3 hit(s). first_fetch_id=a/s:1 Source mix: 2 hits from a (gmail), 1 hit from b (slack).\nrest",
		"search: 9 hit(s). first_fetch_id=a/s:1 source_mix={a:5}|{b:4}|more:7.":                                                                                "search: 9 hit(s). first_fetch_id=a/s:1 Source mix: 5 hits from a, 4 hits from b, and 7 more connections.",
	} {
		if got := firstLine(in, func(l string) string { return sourceMixRe.ReplaceAllStringFunc(l, mixSentence) }); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// The SDK-style validation names the argument that breaks the schema.
func TestInputSchemaNamesTheArgument(t *testing.T) {
	s := inputSchemas()["query_records"]
	for args, want := range map[string][2]string{
		`{"stream":"m","limit":101}`:  {"limit", "maximum: 101 is greater than 100"},
		`{"stream":"m","filter":"x"}`: {"filter", `type: x has type "string", want "object"`},
		`{"limit":1}`:                 {"stream", "Required"},
		`{"stream":"m","bogus":1}`:    {"", `Unrecognized key: "bogus"`},
		`[1]`:                         {"", "Expected object, received array"},
		`{"stream":"m"}`:              {"", ""},
	} {
		if param, why := s.invalid([]byte(args)); param != want[0] || why != want[1] {
			t.Errorf("%s: (%q, %q), want (%q, %q)", args, param, why, want[0], want[1])
		}
	}
}

// resources/read of a record URI is fetch's document for that record, read
// with the caller's bearer; the template names the URI form.
func TestRecordResources(t *testing.T) {
	obs := observe(t, MustLookup("record-resources"))
	if !strings.Contains(obs["resources/read"], `"mimeType":"application/json"`) || !strings.Contains(obs["resources/read"], `\"title\":\"Team update 1\"`) {
		t.Errorf("resources/read must answer fetch's document: %s", obs["resources/read"])
	}
	if !strings.Contains(obs["resources/templates/list"], `"uriTemplate":"pdpp://record/{id}"`) {
		t.Errorf("the record template is not listed: %s", obs["resources/templates/list"])
	}
	if !strings.Contains(obs["initialize"], `"resources":{}`) {
		t.Errorf("initialize must advertise resources: %s", obs["initialize"])
	}
}
