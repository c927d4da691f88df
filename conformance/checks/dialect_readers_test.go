package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// dialectText is a recorded answer of one dialect (conformance/probe's
// testdata/dialects): the reference adapter's and three whole-dialect variants'.
func dialectText(t *testing.T, dialect, answer string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "probe", "testdata", "dialects", dialect+"."+answer+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var recordedDialects = []string{"reference", "ts-sdk", "python", "terse"}

// plainOf reads a preview as plain words.
func TestPlainOf(t *testing.T) {
	if got := plainOf("The <hl>Budget</hl>  review"); got != "the budget review" {
		t.Errorf("plainOf = %q", got)
	}
}

// Every dialect's scoped schema text yields filters, sorts and
// aggregations, and explains every abbreviation its fields use.
func TestSchemaTextInEveryDialect(t *testing.T) {
	fields := []string{"body", "content", "from_email", "headers", "id", "image", "label", "name", "sent_at", "size_bytes", "subject"}
	for _, d := range recordedDialects {
		text := dialectText(t, d, "schema-scoped")
		a := deriveArgs(text, fields)
		if len(a.filters) == 0 || len(a.sorts) == 0 || len(a.aggs) == 0 {
			t.Errorf("%s: filters %v, sorts %v, aggregations %v from:\n%s", d, a.filters, a.sorts, a.aggs, clipText(text, 600))
		}
		fns := fieldNotes(text, fields)
		if missing := unexplained(fns, legendText(text, fns), fields); len(missing) > 0 {
			t.Errorf("%s: unexplained %v", d, missing)
		}
	}
}

// Each dialect's scoped row states projection, sort, count and search
// support in words a reader finds.
func TestCapabilityStatements(t *testing.T) {
	for _, d := range recordedDialects {
		text := withoutLegend(dialectText(t, d, "schema-scoped"))
		for _, s := range probe.ScopeSupport {
			if !s.Re.MatchString(text) {
				t.Errorf("%s: %s support not read", d, s.What)
			}
		}
	}
}

// S026 judges the balance of whichever tag a target highlights with.
func TestTagProblemAnyTag(t *testing.T) {
	for s, bad := range map[string]bool{
		"the <em>budget</em> review": false, "the <hl>budget</hl> and <hl>plan</hl>": false, "the <mark>budget</mark>": false,
		"the <em>budget review": true, "the budget</em> review": true, "the <mark>budget review": true, "plain prose": false,
	} {
		if got := tagProblem(s); (got != "") != bad {
			t.Errorf("tagProblem(%q) = %q", s, got)
		}
	}
	for _, d := range recordedDialects {
		for _, l := range strings.Split(dialectText(t, d, "search"), "\n") {
			if p := tagProblem(l); p != "" {
				t.Errorf("%s: %q: %s", d, l, p)
			}
		}
	}
}
