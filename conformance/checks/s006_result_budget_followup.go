package checks

import (
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S006 is a governance clause; its executable proxy holds the bounded
// summaries that clause relies on: query_records and search text stay
// within textBudgetBytes on fat records, and no read tool grows an ad-hoc
// result-detail argument before a follow-on spec defines one.
const textBudgetBytes = 1800

// fatGrant is 120 records of 30 fields of about 500 characters each.
var fatGrant = fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: 30, Records: 120, ValueChars: 500}

var s006 = &Check{ID: "S006", Slug: "result-budget-followup", Mode: ModeBB, Run: func(t *T) {
	for i, tool := range t.Target.Tools {
		if tool.Name == "schema" {
			continue
		}
		props, _ := inputProperties(t.Target.ToolsRaw[i])
		for _, k := range []string{"detail", "result_detail", "verbosity", "response_format"} {
			t.Expect(props).NotTo(HaveKey(k), "%s advertises %q: result-detail controls wait for the follow-on spec seed 000 calls for", tool.Name, k)
		}
	}
	on := t
	if t.Target.Has(CapFixture) {
		fx, err := fakers.Scale(fatGrant)
		t.Expect(err).NotTo(HaveOccurred())
		fx.SpecClientReads = true
		on = t.On(t.Fork(fx))
	}
	_, index := schemaIndex(on)
	measured := false
	for i, s := range sources(index) {
		if i == maxStreamProbes {
			break
		}
		c := on.Call("query_records", s.args(map[string]any{"limit": 100}))
		if c.IsError() {
			continue
		}
		measured = true
		on.Record("query_records text bytes", len(c.Text()))
		t.Expect(len(c.Text())).To(BeNumerically("<=", textBudgetBytes), "query_records text for a page of %s must stay within %d bytes", s.stream, textBudgetBytes)
		if word := searchableWord(records(c)); word != "" {
			sr := on.Call("search", map[string]any{"q": word, "limit": 100})
			if !sr.IsError() {
				on.Record("search text bytes", len(sr.Text()))
				t.Expect(len(sr.Text())).To(BeNumerically("<=", textBudgetBytes), "search text for %q must stay within %d bytes", word, textBudgetBytes)
			}
		}
		break
	}
	if !measured {
		// The argument checks alone must not read as a held text budget.
		t.Skipf("no query_records page to measure: the target's schema lists no stream, or query_records failed for the first %d", maxStreamProbes)
	}
}}
