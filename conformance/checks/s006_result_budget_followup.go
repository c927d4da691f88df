package checks

import (
	"fmt"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S006 is governance: a follow-on spec defines result-detail controls, and
// this change does not count as solving the result budget. No adapter
// behaviour can break it outright, so its executable proxies (catalog
// S006) are recommended: no read tool grows an ad-hoc result-detail
// argument before that spec (S006.1), and the bounded summaries this
// change relies on stay within mcpcheck's own budget on fat records
// (S006.2): textBaseBytes for the page plus textPerItemBytes for each
// record or hit it returns, so a bigger page may say more, but never
// whole fat records.
const (
	textBaseBytes    = 1800
	textPerItemBytes = 200
)

// textBudget is mcpcheck's own bound on the text of a page of n records
// or hits, and the rule in words for the message.
func textBudget(n int) (int, string) {
	b := textBaseBytes + textPerItemBytes*n
	return b, fmt.Sprintf("mcpcheck's own budget, recommended: %d B + %d B per item returned = %d B for %d", textBaseBytes, textPerItemBytes, b, n)
}

// fatGrant is 120 records of 30 fields of about 500 characters each.
var fatGrant = fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: 30, Records: 120, ValueChars: 500}

// resultDetailArgs are the names an ad-hoc result-detail control goes by.
var resultDetailArgs = []string{"detail", "result_detail", "verbosity", "response_format"}

var s006 = &Check{ID: "S006", Slug: "result-budget-followup", Mode: ModeBB, Run: func(t *T) {
	t.Clause(1, func() {
		for i, tool := range t.Target.Tools {
			if tool.Name == "schema" { // schema's detail is seed 001's own
				continue
			}
			props, _ := probe.InputProperties(t.Target.ToolsRaw[i])
			for _, k := range resultDetailArgs {
				t.Threshold().Expect(props).NotTo(HaveKey(k), "%s advertises %q: result-detail controls wait for the follow-on spec seed 000 calls for", tool.Name, k)
			}
		}
	})
	on := t
	if t.Target.Has(CapFixture) {
		fx, err := fakers.Scale(fatGrant)
		if err != nil {
			t.Skipf("build the fat fixture: %v", err)
		}
		fx.SpecClientReads = true
		on = t.On(t.Fork(fx))
	}
	t.Clause(2, func() {
		if !probe.Serves(on.Target, "query_records") {
			t.BlockedBy("S012", "the target serves no query_records to measure a page of")
		}
		for i, s := range probe.Sources(probe.Grant(on)) {
			if i == probe.MaxStreamProbes {
				t.Skipf("query_records failed for the first %d streams: no page to measure (S031 and S023 judge the reads)", probe.MaxStreamProbes)
			}
			c := on.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 100}))
			if c.IsError() {
				continue
			}
			recs := probe.Records(c)
			on.Record("query_records text bytes", len(c.Text()))
			budget, rule := textBudget(askedOr(len(recs), 100))
			t.Threshold().Expect(len(c.Text())).To(BeNumerically("<=", budget), "query_records text for a page of %s should stay bounded (%s records)", s.Stream, rule)
			if word := probe.SearchableWord(recs); word != "" && probe.Serves(on.Target, "search") {
				if sr := on.CallRoles("search", dialect.Args{dialect.Query: word, dialect.Limit: 100}); !sr.IsError() {
					on.Record("search text bytes", len(sr.Text()))
					budget, rule := textBudget(askedOr(len(probe.Hits(on, sr)), 100))
					t.Threshold().Expect(len(sr.Text())).To(BeNumerically("<=", budget), "search text for %q should stay bounded (%s hits)", word, rule)
				}
			}
			return
		}
		t.Skipf("the target's schema lists no stream: no page to measure")
	})
}}

// askedOr is the number of items a page returned, or what was asked when
// the target's answer could not be read item by item.
func askedOr(returned, asked int) int {
	if returned > 0 {
		return returned
	}
	return asked
}
