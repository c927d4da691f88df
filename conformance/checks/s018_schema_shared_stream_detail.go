package checks

import (
	"regexp"
	"sort"
	"strings"

	. "github.com/onsi/gomega"
)

var aggregationRe = regexp.MustCompile(`(?i)aggregat`)

var s018 = &Check{ID: "S018", Slug: "schema-shared-stream-detail", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	name, ok := sharedStream(index)
	if !ok {
		t.Skipf("%s", noSharedStream)
	}
	c, rows := scopedSchema(t, map[string]any{"stream": name})
	t.Expect(rows).NotTo(BeEmpty(), "schema(stream: %q) must return its rows", name)
	for _, seg := range rowSegments(t, c.Text(), rows) {
		fields := fieldNames(seg.row)
		if len(fields) == 0 {
			t.Skipf("the %q rows carry no field_capabilities in structuredContent, so mcpcheck cannot tell which field summaries to expect", name)
		}
		expectFieldSummaries(t, seg.text, fields, "stream %q of %s", name, seg.ident)
		if rowAggregates(seg.row) {
			t.Expect(aggregationRe.MatchString(seg.text)).To(BeTrue(), "the text for stream %q of %s must summarise its aggregations:\n%s", name, seg.ident, clipText(seg.text, 600))
		}
	}
}}

// A rowSegment is the part of a schema text that describes one row.
type rowSegment struct {
	row   schemaRow
	ident string
	text  string
}

// rowSegments cuts text into one segment per row, at each row's identity:
// its connector_key when the rows' keys differ, else its first connection.
func rowSegments(t *T, text string, rows []schemaRow) []rowSegment {
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.ConnectorKey] = true
	}
	byKey := len(keys) == len(rows)
	type at struct {
		pos int
		seg rowSegment
	}
	var found []at
	for _, r := range rows {
		ident := r.ConnectorKey
		if !byKey && len(r.Connections) > 0 {
			ident = r.Connections[0]
		}
		pos := tokenIndex(text, ident)
		t.Expect(pos).To(BeNumerically(">=", 0), "the text must identify the %q row of %s:\n%s", r.Name, ident, clipText(text, 600))
		found = append(found, at{pos, rowSegment{row: r, ident: ident}})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	out := make([]rowSegment, len(found))
	for i, f := range found {
		end := len(text)
		if i+1 < len(found) {
			end = found[i+1].pos
		}
		f.seg.text = text[f.pos:end]
		out[i] = f.seg
	}
	return out
}

func tokenIndex(s, tok string) int {
	loc := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(tok) + `([^A-Za-z0-9_]|$)`).FindStringIndex(s)
	if loc == nil {
		return -1
	}
	return loc[0]
}

func fieldNames(r schemaRow) []string {
	out := make([]string, 0, len(r.FieldCaps))
	for f := range r.FieldCaps {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// expectFieldSummaries wants the field names in text: all of them, or at
// least eight when a row is long enough for an adapter to cap it.
func expectFieldSummaries(t *T, text string, fields []string, what string, args ...any) {
	var shown, missing []string
	for _, f := range fields {
		if containsToken(text, f) {
			shown = append(shown, f)
		} else {
			missing = append(missing, f)
		}
	}
	want := min(len(fields), 8)
	t.Expect(len(shown)).To(BeNumerically(">=", want), append([]any{"the text must summarise the fields of " + what + "; missing %v"}, append(args, missing)...)...)
}

// rowAggregates reports whether a row declares any usable aggregation.
func rowAggregates(r schemaRow) bool {
	for _, v := range r.FieldCaps {
		for _, tok := range flagTokens(v) {
			if strings.HasPrefix(tok, "a=") {
				return true
			}
		}
		if m, ok := v.(map[string]any); ok {
			agg, _ := m["aggregation"].(map[string]any)
			for _, a := range agg {
				if am, _ := a.(map[string]any); am["usable"] == true {
					return true
				}
			}
		}
	}
	return false
}
