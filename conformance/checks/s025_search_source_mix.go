package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// The source mix is found by value: a line of the text that names every
// contributing connection with its hit count, however it is labelled.
var s025 = &Check{ID: "S025", Slug: "search-source-mix", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.ReadsIndex(t)
	term, c, ok := probe.FanInTerm(t)
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
	if err != nil {
		t.Fatalf("load the wide-25 fixture: %v", err)
	}
	wide := t.On(t.Fork(fx))
	term, c, ok = probe.FanInTerm(wide)
	if !ok || len(probe.ConnectionsOf(probe.Hits(c))) <= 8 {
		t.Record("wide grant", "not exercised: the wide-25 fixture gives no search drawing on more than eight connections")
		return
	}
	expectSourceMix(t, term, c)
}}

// expectSourceMix judges S025.1 on a search whose hits come from several
// connections: one line of its text names each with its hit count.
func expectSourceMix(t *T, term string, c *Call) {
	want := probe.ConnectionsOf(probe.Hits(c))
	delete(want, "")
	if len(want) < 2 {
		return
	}
	t.Clause(1, func() {
		line, got := sourceMixIn(c.Text(), want)
		if !t.Assert(line != "", "hits for %q come from %d connections, so the text must show a compact source mix: one line naming each connection with its hit count (%s):\n%s",
			term, len(want), mixString(want), clipText(c.Text(), 600)) {
			return
		}
		for conn, n := range want {
			t.Assert(got[conn] == n, "the source mix must count %d hit(s) for connection %s, not %d:\n%s", n, conn, got[conn], clipText(line, 600))
		}
	})
}

// sourceMixIn finds the line of text that gives a count for every
// connection of want, preferring one whose counts are right; "" when none
// names them all.
func sourceMixIn(text string, want map[string]int) (string, map[string]int) {
	var best string
	var bestCounts map[string]int
	for _, line := range strings.Split(text, "\n") {
		counts := mixCounts(line, want)
		if len(counts) < len(want) {
			continue
		}
		right := true
		for conn, n := range want {
			right = right && counts[conn] == n
		}
		if right {
			return line, counts
		}
		if best == "" {
			best, bestCounts = line, counts
		}
	}
	return best, bestCounts
}

// mixLayouts are the ways a source mix writes a count beside a
// connection C, most specific first: "{connection_id:C,…,count:N}",
// "{C:N}" or "C=N", "N hits from C", "C (N hits)". A connection id
// followed by "/" or ":" and a word is a record id, not a count.
var mixLayouts = []string{
	`(?:^|[^A-Za-z0-9_])%s[^A-Za-z0-9_|\n/][^|\n{}]*?\bcount[:=]\s*(\d+)`,
	`(?:^|[^A-Za-z0-9_])%s\s*[:=]\s*(\d+)\b`,
	`(\d+)\s*(?:hits?|results?)?\s*(?:from|in|for)\s+%s(?:[^A-Za-z0-9_/]|$)`,
	`(?:^|[^A-Za-z0-9_])%s[^A-Za-z0-9_|\n/:][^|\n\d]{0,23}?(\d+)`,
}

// mixCounts reads the count beside each connection of want in one line,
// in the first layout that gives a count for all of them (one mix is
// written one way: "8 hits from A (gmail), 5 hits from B" must not read
// B's count after A's name); else each connection in its first layout.
func mixCounts(line string, want map[string]int) map[string]int {
	var partial map[string]int
	for _, layout := range mixLayouts {
		counts := map[string]int{}
		for conn := range want {
			m := regexp.MustCompile(fmt.Sprintf(layout, regexp.QuoteMeta(conn))).FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if n, err := strconv.Atoi(m[1]); err == nil {
				counts[conn] = n
			}
		}
		if len(counts) == len(want) {
			return counts
		}
		if partial == nil {
			partial = map[string]int{}
		}
		for conn, n := range counts {
			if _, seen := partial[conn]; !seen {
				partial[conn] = n
			}
		}
	}
	return partial
}

func mixString(m map[string]int) string {
	var parts []string
	for c, n := range m {
		parts = append(parts, fmt.Sprintf("%s:%d", c, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
