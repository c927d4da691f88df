package probe

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// What a grant offers a stream row, read from the truth rows (the RS's
// own schema when mcpcheck controls it). A seed clause that asks the text
// to let a client choose among filter, sort, aggregate or search arguments
// has nothing to ask of a kind the grant offers none of: the reference RS
// declares no capability to client tokens (../shared/realrs M2), and an
// adapter that truthfully shows none passes that part.
type GrantOffers struct {
	Filter, Sort, Aggregate, Search bool
}

func OffersOf(r SchemaRow) GrantOffers {
	o := GrantOffers{Sort: String(r.Raw["cursor_field"]) != "", Aggregate: len(RowAggKinds(r)) > 0}
	for _, v := range r.FieldCaps {
		c := CapOf(v)
		o.Filter = o.Filter || c.Exact || len(c.Ops) > 0
		o.Search = o.Search || c.Search
	}
	return o
}

// searchMeaningRe is what a legend says a search flag means.
var searchMeaningRe = regexp.MustCompile(`search|lexical|semantic|full.?text|hybrid`)

// SearchFlagsExplained reports whether the text gives search modes as
// field flags its legend explains (lex: lexical search): that states
// search support as plainly as a row-level segment does.
func SearchFlagsExplained(text string, fields []string) bool {
	notes := FieldNotes(text, fields)
	keys := keysMeaning(legendMeanings(LegendText(text, notes)), searchMeaningRe)
	for _, n := range notes {
		for _, item := range itemSepRe.Split(n.Ctx, -1) {
			k, _, _ := strings.Cut(item, "=")
			if k != "" && slices.Contains(keys, strings.Trim(k, "\"' ")) {
				return true
			}
		}
	}
	return false
}

// realRSFork is t on a fork of the target over its fixture's real-RS
// profile (Fixture.RealRS: one connector per client token, every field
// only declared, no sort, filter, aggregation or search capability), or
// nil when the target cannot be forked.
func realRSFork(t *conformance.T) *conformance.T {
	if !t.Target.Has(conformance.CapFixture) || !t.Target.Has(conformance.CapControlledRS) {
		return nil
	}
	fx := t.BaseFixture()
	fx.RealRS = true
	return t.On(t.Fork(fx))
}

// OnRealRS judges again, through judge, on the real-RS fork: what the
// seeds ask of a grant that offers no capabilities. A precondition that
// fails there is noted, never the check's verdict.
func OnRealRS(t *conformance.T, judge func(on *conformance.T)) {
	if on := realRSFork(t); on != nil {
		t.Aside("real-RS profile (no capabilities granted)", func() { judge(on) })
	}
}
