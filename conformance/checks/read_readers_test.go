package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		if !numberInText(text, want) {
			t.Errorf("%q: %d not read", text, want)
		}
	}
	for text, not := range map[string]int{"60k chars": 60000, "1,2345": 12345} {
		if numberInText(text, not) {
			t.Errorf("%q read as %d", text, not)
		}
	}
	for _, d := range recordedDialects {
		w := dialectText(t, d, "field-window")
		if !numberInText(w, 60450) || !numberInText(w, 200) {
			t.Errorf("%s: the window's total 60450 and end 200 are not read:\n%s", d, clipText(w, 200))
		}
		if !showsSize(dialectText(t, d, "records-page"), 60450) {
			t.Errorf("%s: the record preview's size 60450 is not read", d)
		}
	}
}

// Every dialect's partial window says so in its header, and its complete
// small read states completion.
func TestCutAndCompletionWording(t *testing.T) {
	for _, d := range recordedDialects {
		header, _, _ := strings.Cut(dialectText(t, d, "field-window"), "\nParagraph 0")
		if !cutLabelRe.MatchString(header) {
			t.Errorf("%s: the partial window's header is not read as cut:\n%s", d, header)
		}
		if !completionRe.MatchString(dialectText(t, d, "field-small")) {
			t.Errorf("%s: the small read states no completion that is read", d)
		}
	}
	for _, s := range []string{`{"body":"Paragraph 0 covers routine operations"}`, "sent_at: 2026", "more records exist? no"} {
		if cutLabelRe.MatchString(s) {
			t.Errorf("%q read as cut", s)
		}
	}
}

// Highlighted terms in any of the dialects' tags.
func TestHighlighted(t *testing.T) {
	for _, d := range recordedDialects {
		if got := highlighted(dialectText(t, d, "search")); got != "budget" {
			t.Errorf("%s: highlighted term %q, want budget", d, got)
		}
	}
	if got := highlighted("a <em>b</b> c"); got != "" {
		t.Errorf("mismatched tags read as a highlight: %q", got)
	}
	if got := plainOf("The <hl>Budget</hl>  review"); got != "the budget review" {
		t.Errorf("plainOf = %q", got)
	}
}

// A hit's id, preview and read call form one block in every layout.
func TestTextBlocks(t *testing.T) {
	for _, d := range recordedDialects {
		var found bool
		for _, b := range textBlocks(dialectText(t, d, "search")) {
			if strings.Contains(b, "budget") && strings.Contains(b, "body") && strings.Contains(b, "m007") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no block holds hit m007's id, field and preview", d)
		}
	}
	if got := textBlocks("a\n  b\nc\n\nd"); len(got) != 3 || got[0] != "a\n  b" {
		t.Errorf("textBlocks = %q", got)
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
		for _, s := range scopeSupport {
			if !s.re.MatchString(text) {
				t.Errorf("%s: %s support not read", d, s.what)
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
