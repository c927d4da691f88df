package checks

import (
	"regexp"
	"slices"
	"strings"
)

// What a grant offers a stream row, read from the truth rows (the RS's
// own schema when mcpcheck controls it). A seed clause that asks the text
// to let a client choose among filter, sort, aggregate or search arguments
// has nothing to ask of a kind the grant offers none of: the reference RS
// declares no capability to client tokens (../shared/realrs M2), and an
// adapter that truthfully shows none passes that part.
type grantOffers struct {
	filter, sort, aggregate, search bool
}

func offersOf(r schemaRow) grantOffers {
	o := grantOffers{sort: str(r.Raw["cursor_field"]) != "", aggregate: len(rowAggKinds(r)) > 0}
	for _, v := range r.FieldCaps {
		c := capOf(v)
		o.filter = o.filter || c.Exact || len(c.Ops) > 0
		o.search = o.search || c.Search
	}
	return o
}

// searchMeaningRe is what a legend says a search flag means.
var searchMeaningRe = regexp.MustCompile(`search|lexical|semantic|full.?text|hybrid`)

// searchFlagsExplained reports whether the text gives search modes as
// field flags its legend explains (lex: lexical search): that states
// search support as plainly as a row-level segment does.
func searchFlagsExplained(text string, fields []string) bool {
	notes := fieldNotes(text, fields)
	keys := keysMeaning(legendMeanings(legendText(text, notes)), searchMeaningRe)
	for _, n := range notes {
		for _, item := range itemSepRe.Split(n.ctx, -1) {
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
func realRSFork(t *T) *T {
	if !t.Target.Has(CapFixture) || !t.Target.Has(CapControlledRS) {
		return nil
	}
	fx := t.BaseFixture()
	fx.RealRS = true
	return t.On(t.Fork(fx))
}

// onRealRS judges again, through judge, on the real-RS fork: what the
// seeds ask of a grant that offers no capabilities. A precondition that
// fails there is noted, never the check's verdict.
func onRealRS(t *T, judge func(on *T)) {
	if on := realRSFork(t); on != nil {
		t.Aside("real-RS profile (no capabilities granted)", func() { judge(on) })
	}
}
