package matrix

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
)

// transcriptDialects are the recorded dialects: the reference adapter's
// and the three whole-dialect variants', with each one's record ids (its
// own format, which these variants document).
var transcriptDialects = []struct {
	name, variant string
	id            func(conn, stream, rec string) string
}{
	{"reference", "", func(c, s, r string) string { return c + "/" + s + ":" + r }},
	{"ts-sdk", "dialect-ts-sdk", func(c, s, r string) string { return c + "::" + s + "::" + r }},
	{"python", "dialect-python", func(c, s, r string) string { return c + "." + s + "." + r }},
	{"terse", "dialect-terse", func(c, s, r string) string { return "rec:" + c + "/" + s + "/" + r }},
}

// The recorded answers the readers are unit-tested on are what the
// adapters answer today: go test compares them, -update (goldie's flag)
// rewrites them.
func TestDialectTranscriptsAreCurrent(t *testing.T) {
	dir := filepath.Join("..", "probe", "testdata", "dialects")
	for _, d := range transcriptDialects {
		t.Run(d.name, func(t *testing.T) {
			spec, err := reference.Spec(d.variant)
			if err != nil {
				t.Fatal(err)
			}
			tgt, err := conformance.Open(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.Close()
			for _, c := range []struct {
				answer, tool string
				args         dialect.Args
			}{
				{"aggregate", "aggregate", dialect.Args{dialect.Stream: "messages", dialect.Connection: "cin_work", dialect.Metric: "count", dialect.GroupBy: "label"}},
				{"records-page", "query_records", dialect.Args{dialect.Stream: "messages", dialect.Connection: "cin_work", dialect.Limit: 2, dialect.Count: "exact"}},
				{"schema-scoped", "schema", dialect.Args{dialect.Stream: "messages", dialect.Connection: "cin_work"}},
				{"search", "search", dialect.Args{dialect.Query: "budget", dialect.Limit: 5}},
				{"field-small", "read_record_field", dialect.Args{dialect.RecordID: d.id("cin_work", "messages", "m001"), dialect.Field: "body"}},
				{"field-window", "read_record_field", dialect.Args{dialect.RecordID: d.id("cin_work", "messages", "m007"), dialect.Field: "body", dialect.Length: 200}},
			} {
				args, err := tgt.Dialect().Resolve(c.tool, c.args)
				if err != nil {
					t.Fatalf("%s: %v", c.answer, err)
				}
				res, _, err := tgt.CallRaw(context.Background(), c.tool, args)
				if err != nil {
					t.Fatalf("%s: %v", c.answer, err)
				}
				got := (&conformance.Call{Tool: c.tool, Result: res}).Text()
				g := goldie.New(t, goldie.WithFixtureDir(dir), goldie.WithNameSuffix(".txt"))
				g.Assert(t, d.name+"."+c.answer, []byte(got))
			}
		})
	}
}
