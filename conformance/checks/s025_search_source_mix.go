package checks

import (
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

var sourceMixRe = regexp.MustCompile(`(?i)source[_ ]mix`)

var s025 = &Check{ID: "S025", Slug: "search-source-mix", Mode: ModeBBD, Run: func(t *T) {
	term, c, ok := fanInTerm(t)
	if !ok {
		t.Skipf("no word from the target's records finds hits in two or more connections")
	}
	expectSourceMix(t, term, c)
	if !t.Target.Has(CapFixture) {
		t.Record("wide grant", "not exercised: "+CapFixture.SkipReason())
		return
	}
	// More connections than a short mix would list: still each one, counted.
	fx, err := conformance.LoadFixture("wide-25")
	t.Expect(err).NotTo(HaveOccurred())
	wide := t.On(t.Fork(fx))
	term, c, ok = fanInTerm(wide)
	t.Expect(ok).To(BeTrue(), "the wide-25 fixture must yield a fan-in search")
	t.Expect(len(connectionsOf(hits(c)))).To(BeNumerically(">", 8), "the wide-25 search for %q must draw on more than eight connections", term)
	expectSourceMix(wide, term, c)
}}

// expectSourceMix requires the text's source mix to name every contributing
// connection with its hit count, after the first fetch handle.
func expectSourceMix(t *T, term string, c *Call) {
	text := c.Text()
	loc := sourceMixRe.FindStringIndex(text)
	t.Expect(loc).NotTo(BeNil(), "hits for %q come from several connections, so the text must show a compact source mix:\n%s", term, clipText(text, 600))
	mix, _, _ := strings.Cut(text[loc[0]:], "\n")
	for conn, n := range connectionsOf(hits(c)) {
		t.Expect(containsToken(mix, conn)).To(BeTrue(), "the source mix must name connection %s:\n%s", conn, clipText(mix, 600))
		got, ok := mixCount(mix, conn)
		t.Expect(ok).To(BeTrue(), "the source mix must give connection %s its hit count:\n%s", conn, clipText(mix, 600))
		t.Expect(got).To(Equal(n), "the source mix must count %d hit(s) for connection %s:\n%s", n, conn, clipText(mix, 600))
	}
	if hs := hits(c); len(hs) > 0 {
		first := strings.Index(text, hs[0].ID)
		t.Expect(first).To(And(BeNumerically(">=", 0), BeNumerically("<", loc[0])), "the first fetch handle must come before the source mix and other verbose metadata")
	}
}

// mixCount reads the hit count written after a connection in a source mix:
// "{connection_id:C,connector_key:K,count:N}", "{C:N}", "C=N" or "C (N hits)".
func mixCount(mix, conn string) (int, bool) {
	q := regexp.QuoteMeta(conn)
	for _, re := range []string{
		`(?:^|[^A-Za-z0-9_])` + q + `[^A-Za-z0-9_|\n][^|\n]*?\bcount[:=]\s*(\d+)`,
		`(?:^|[^A-Za-z0-9_])` + q + `\s*[:=]\s*(\d+)`,
		`(?:^|[^A-Za-z0-9_])` + q + `[^A-Za-z0-9_|\n][^|\n\d]{0,23}(\d+)`,
	} {
		if m := regexp.MustCompile(re).FindStringSubmatch(mix); m != nil {
			n, err := strconv.Atoi(m[1])
			return n, err == nil
		}
	}
	return 0, false
}
