package checks

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// The source mix is found by value: the line of the text that names the
// most contributing connections, each connection it names counted true in
// its own part of the line once the fixture's content (labels, keys, ids)
// is set aside, and, where a compact mix names only some, the number of
// the rest. A text with no line naming two of them is judged by contrast:
// the same two hits from one connection and from two must read
// differently.
var s025 = &Check{ID: "S025", Slug: "search-source-mix", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.Grant(t)
	term, c, ok := probe.FanInTerm(t)
	if !ok {
		probe.SkipNoFanIn(t)
	}
	expectSourceMix(t, t, term, c)
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
	if !ok || len(probe.ConnectionsOf(probe.Hits(wide, c))) <= 8 {
		t.Record("wide grant", "not exercised: the wide-25 fixture gives no search drawing on more than eight connections")
		return
	}
	expectSourceMix(t, wide, term, c)
}}

// expectSourceMix judges S025.1 on a search whose hits come from several
// connections: the text shows a compact source mix naming each with its
// hit count.
func expectSourceMix(t, on *T, term string, c *Call) {
	want := probe.ConnectionsOf(probe.Hits(on, c))
	delete(want, "")
	if len(want) < 2 {
		return
	}
	content := probe.FixtureStrings(on)
	t.Clause(1, func() {
		line, named := mixLine(c.Text(), want)
		if named < 2 {
			if !judgeCollapsedMix(t, c, want, content) {
				judgeMixByContrast(t, on)
			}
			return
		}
		pos := mixPositions(line, want)
		after := countsFollow(line, pos, content)
		for _, conn := range slices.Sorted(maps.Keys(want)) {
			if _, named := pos[conn]; !named {
				continue
			}
			n := want[conn]
			seg := conformance.Shown(fmt.Sprintf("the source-mix line's part for %s, the fixture's own names set aside", conn), withoutContent(mixSegment(line, conn, pos, after), content))
			t.Shows(seg, read.Number(n), "the source mix must count %d hit(s) for connection %s:\n%s", n, conn, clipText(line, 600))
		}
		// A compact mix may name some connections and count the rest.
		if rest := len(want) - len(pos); rest > 0 {
			t.Shows(conformance.Shown("the source-mix line, the fixture's own names set aside", withoutContent(line, content)), read.Number(rest),
				"the source mix names %d of the %d connections the hits come from; it must say how many more there are (%d):\n%s", len(pos), len(want), rest, clipText(line, 600))
		}
	})
}

// judgeCollapsedMix finds a mix line that credits every hit to one
// connection: a line naming one connection of want, with the total
// counted right after it (a count marker, ×4, : 4, count=4, ending what
// lies between once the fixture's content is set aside), where the
// fixture says that connection has fewer. It reports whether it found one.
func judgeCollapsedMix(t *T, c *Call, want map[string]int, content []string) bool {
	total := 0
	for _, n := range want {
		total += n
	}
	for _, line := range strings.Split(c.Text(), "\n") {
		var names []string
		for conn := range want {
			if read.ContainsToken(line, conn) {
				names = append(names, conn)
			}
		}
		if len(names) != 1 || want[names[0]] == total {
			continue
		}
		conn := names[0]
		for from := 0; ; {
			i := read.TokenIndex(line[from:], conn)
			if i < 0 {
				break
			}
			from += i + len(conn)
			m := countAfterRe.FindStringSubmatch(withoutContent(line[from:], content))
			if m == nil || m[1] != fmt.Sprint(total) {
				continue
			}
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Present(strings.TrimSpace(line), c)
			}, "the source mix credits all %d hits to %s, but the fixture's hits come from %d connections (%s has %d):\n%s", total, conn, len(want), conn, want[conn], clipText(line, 300))
			return true
		}
	}
	return false
}

// countAfterRe is a count right after a name: up to 40 characters with no
// digit, ending in a count marker, then the number.
var countAfterRe = regexp.MustCompile(`^[^\d\n]{0,40}?(?:×|\bx|:|=|\bcount|\bhits?)\s*["']?(\d+)\b`)

// judgeMixByContrast judges a text with no line naming two connections:
// two hits from one connection and the same two from two connections must
// read differently once the fixture's content is set aside.
func judgeMixByContrast(t, on *T) {
	one, two, content, ok := probe.SourceMixContrast(on)
	if !ok {
		t.Inconclusive("no line of the text names two of the connections, and mcpcheck cannot fork the target to contrast one source with two")
		return
	}
	t.Differs(conformance.TextOf(one), conformance.TextOf(two), content,
		"the text must show a compact source mix when hits come from more than one connection: two hits from one connection and from two read the same")
}

// mixLine is the line of text naming the most connections of want, and
// how many it names.
func mixLine(text string, want map[string]int) (string, int) {
	best, named := "", 0
	for _, line := range strings.Split(text, "\n") {
		n := 0
		for conn := range want {
			if read.ContainsToken(line, conn) {
				n++
			}
		}
		if n > named {
			best, named = line, n
		}
	}
	return best, named
}

// mixPositions places each connection of want in a mix line: of the
// places each is named, those closest together (a hit line may name a
// connection before the mix does).
func mixPositions(line string, want map[string]int) map[string]int {
	occ := map[string][]int{}
	for conn := range want {
		for from := 0; ; {
			i := read.TokenIndex(line[from:], conn)
			if i < 0 {
				break
			}
			occ[conn] = append(occ[conn], from+i)
			from += i + len(conn)
		}
	}
	best, span := map[string]int{}, -1
	for _, anchor := range occ {
		for _, a := range anchor {
			pick, lo, hi := map[string]int{}, a, a
			for conn, ps := range occ {
				near := ps[0]
				for _, p := range ps {
					if abs(p-a) < abs(near-a) {
						near = p
					}
				}
				pick[conn], lo, hi = near, min(lo, near), max(hi, near)
			}
			if span < 0 || hi-lo < span {
				best, span = pick, hi-lo
			}
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// mixSegment is the part of a mix line that belongs to conn: from its
// place to the next connection's when counts follow the connections
// ("cin_a: 3"), else from the previous connection's to it ("3 from
// cin_a").
func mixSegment(line, conn string, pos map[string]int, after bool) string {
	at, ok := pos[conn]
	if !ok {
		return ""
	}
	if after {
		end := len(line)
		for other, p := range pos {
			if other != conn && p > at && p < end {
				end = p
			}
		}
		return line[at+len(conn) : end]
	}
	start := 0
	for other, p := range pos {
		if other != conn && p < at && p+len(other) > start {
			start = p + len(other)
		}
	}
	return line[start:at]
}

// countsFollow reports whether a mix line writes each count after its
// connection: what follows the line's last connection holds a number.
func countsFollow(line string, pos map[string]int, content []string) bool {
	last, lastAt := "", -1
	for conn, p := range pos {
		if p > lastAt {
			last, lastAt = conn, p
		}
	}
	if last == "" {
		return true
	}
	return numberRunRe.MatchString(withoutContent(line[lastAt+len(last):], content))
}

var numberRunRe = regexp.MustCompile(`\d`)

// withoutContent is s with the fixture's own strings (labels, names, ids)
// blanked, longest first: the digits of "Mailbox 09" are no count.
func withoutContent(s string, content []string) string {
	sorted := append([]string(nil), content...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, c := range sorted {
		if len(c) >= 3 {
			s = strings.ReplaceAll(s, c, " ")
		}
	}
	return s
}
