package checks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Every snippet and evidence preview a search shows, in structuredContent
// and in each line of its text, is judged: on the target's own data, and
// on the highlights fixture, whose snippets put tags across every common
// cut length, one record (and one search) per placement.
var s026 = &Check{ID: "S026", Slug: "search-snippet-highlight", Mode: ModeBBD, Tools: []string{"search"}, Run: func(t *T) {
	probe.Grant(t)
	term, c, ok := probe.FanInTerm(t)
	judged := 0
	if c != nil {
		judged += judgeHighlights(t, t, c)
		if ok {
			judged += judgeHighlights(t, t, t.CallRoles("search", dialect.Args{dialect.Query: term + " " + term, dialect.Limit: 25}))
		}
	}
	if t.Target.Has(CapFixture) {
		fx, err := conformance.LoadFixture(fakers.HighlightFixture)
		if err != nil {
			t.Fatalf("load the %s fixture: %v", fakers.HighlightFixture, err)
		}
		hl := t.On(t.Fork(fx))
		for _, rec := range fx.Streams[0].Records {
			judged += judgeHighlights(t, hl, hl.CallRoles("search", dialect.Args{dialect.Query: probe.String(rec.Data[fakers.ProbeField]), dialect.Limit: 5}))
		}
	} else {
		t.Record("highlights at every cut", "not exercised: "+CapFixture.SkipReason())
	}
	if judged == 0 {
		t.Skipf("no search of the target's data shows a snippet or evidence preview")
	}
	t.Record("snippets judged", judged)
}}

// judgeHighlights judges S026.1 and S026.2 on every snippet and evidence
// preview of one search: those in structuredContent, and each line of its
// text. It returns how many it judged.
func judgeHighlights(t, on *T, c *Call) int {
	if c.IsError() || len(probe.Hits(on, c)) == 0 {
		return 0
	}
	query := c.Role(dialect.Query)
	terms := probe.Words(strings.ToLower(probe.String(query)))
	shown := probe.TextSnippets(c)
	for _, line := range strings.Split(c.Text(), "\n") {
		if strings.TrimSpace(line) != "" {
			shown = append(shown, line)
		}
	}
	ev := conformance.Answers(c)
	for _, s := range shown {
		t.Clause(1, func() {
			p, frag := tagProblem(s)
			t.AssertWith(p == "", func() (conformance.Witness, error) {
				w, err := conformance.Present(frag, ev)
				w.Excerpt = clipText(s, 300)
				return w, err
			}, "search %q: %s in %q", query, p, clipText(s, 400))
		})
		t.Clause(2, func() {
			p := sentinelIn(s, terms)
			t.AssertWith(p == "", func() (conformance.Witness, error) { return conformance.Present(p, ev) },
				"search %q: the punctuation sentinel %q stands in for a highlight in %q", query, p, clipText(s, 400))
		})
	}
	return len(shown)
}

var (
	// partialHeadRe is the start of a highlight tag cut short: "<ma", "</m",
	// "<mark" not closed, or a bare "<" or "</" at a cut.
	partialHeadRe = regexp.MustCompile(`</?m(?:a(?:rk?)?)?(?:[^A-Za-z>]|$)|</?mark(?:[^>]|$)|</?(?:$|…|\.\.\.|\[…\]|\[\.\.\.\]|")`)
	// partialTailRe is the end of a highlight tag whose start was cut
	// away: "ark>", "/mark>" after a cut or a space.
	partialTailRe = regexp.MustCompile(`(?:^|[\s…."(\]])/?(?:m?ark|rk|k)>`)
	ccrSentinelRe = regexp.MustCompile(`<<ccr:|ccr>>`)
)

// tagProblem explains why s breaks the highlight invariant (balanced
// <mark>…</mark>, or plain prose), or is "", with the fragment that shows
// it. A cut tag is found anywhere.
func tagProblem(s string) (string, string) {
	// The tag judged is the one the target highlights with (seed 001 asks
	// for balanced tags, not <mark>): the first balanced pair's, else the
	// first highlight tag's, else mark.
	name := "mark"
	if tags := probe.HighlightTag.FindAllString(s, -1); len(tags) > 0 {
		name = strings.Trim(tags[0], "</>")
	}
	for _, m := range probe.HighlightedTerm.FindAllStringSubmatch(s, -1) {
		if m[1] == m[3] {
			name = m[1]
			break
		}
	}
	open, last := false, ""
	for _, tag := range probe.HighlightTag.FindAllString(s, -1) {
		if strings.Trim(tag, "</>") != name {
			continue
		}
		if !strings.HasPrefix(tag, "</") == open {
			return "unbalanced or nested <" + name + "> tags", tag
		}
		open, last = !open, tag
	}
	if open {
		return "a <" + name + "> is never closed", last
	}
	rest := strings.NewReplacer("<"+name+">", " ", "</"+name+">", " ").Replace(s)
	if m := partialHeadRe.FindString(rest); m != "" {
		m = strings.TrimRight(m, " …\".")
		return fmt.Sprintf("a highlight tag cut short (%q)", m), m
	}
	if m := partialTailRe.FindString(rest); m != "" {
		m = strings.TrimLeft(strings.TrimSpace(m), "….\"(]")
		return fmt.Sprintf("the end of a highlight tag whose start was cut (%q)", m), m
	}
	return "", ""
}

// sentinelIn finds punctuation standing in for a highlight: a query term
// wrapped in **, __, ==, «», [[ ]] or >> <<, or the anchor's ccr marker.
func sentinelIn(s string, terms []string) string {
	if m := ccrSentinelRe.FindString(s); m != "" {
		return m
	}
	low := strings.ToLower(s)
	for _, term := range terms {
		q := regexp.QuoteMeta(term)
		for _, pair := range [][2]string{{`\*\*`, `\*\*`}, {`__`, `__`}, {`==`, `==`}, {`«`, `»`}, {`\[\[`, `\]\]`}, {`>>`, `<<`}} {
			re := regexp.MustCompile(pair[0] + `[^\s]*` + q + `[^\s]*?` + pair[1])
			if m := re.FindString(low); m != "" {
				return m
			}
		}
	}
	return ""
}
