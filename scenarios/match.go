package scenarios

import (
	"regexp"
	"strings"
)

// A Match pairs a scenario of some OpenSpec tree with the catalog
// scenario whose text it shares most, and how much (0…1).
type Match struct {
	Requirement SpecRequirement
	Scenario    SpecScenario
	ID          string // the catalog scenario's id, "" when none is close enough
	Score       float64
}

// MatchThreshold is the least score that counts as the same scenario.
const MatchThreshold = 0.2

// MatchTree pairs each scenario of reqs with a catalog scenario by text:
// the scenario's name and bullets against the catalog's title and
// clauses, and the requirement's name and text against the catalog's
// requirement. Wording differs between a spec and the catalog, which
// paraphrases it, so words are compared as sets, without stop words.
func (c *Catalog) MatchTree(reqs []SpecRequirement) []Match {
	type prepared struct {
		id             string
		title, clauses map[string]bool
		requirement    map[string]bool
	}
	var ours []prepared
	for _, s := range c.Scenarios {
		ours = append(ours, prepared{id: s.ID, title: words(s.Title), clauses: words(strings.Join(append(append([]string(nil), s.When...), s.Then...), " ")),
			requirement: words(s.Requirement)})
	}
	known := map[string]bool{}
	for _, s := range c.Scenarios {
		known[s.ID] = true
	}
	var out []Match
	for _, r := range reqs {
		reqWords := words(r.Name + " " + r.Text)
		for _, sc := range r.Scenarios {
			name, body := words(sc.Name), words(strings.Join(sc.Bullets, " "))
			m := Match{Requirement: r, Scenario: sc}
			if id := idRe.FindStringSubmatch(sc.Name); id != nil && known[id[1]] {
				m.ID, m.Score = id[1], 1 // a tree that keeps mcpcheck's ids
				out = append(out, m)
				continue
			}
			for _, o := range ours {
				score := 0.25*jaccard(name, o.title) + 0.6*jaccard(body, o.clauses) + 0.15*overlap(o.requirement, reqWords)
				if score > m.Score {
					m.ID, m.Score = o.id, score
				}
			}
			if m.Score < MatchThreshold {
				m.ID = ""
			}
			out = append(out, m)
		}
	}
	return out
}

var (
	wordRe = regexp.MustCompile(`[a-z0-9_]+`)
	idRe   = regexp.MustCompile(`^([SU]\d{2,3}) `)
)

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by for from has have in is it its of on or that the their then there these this to was when which with
		shall should must may not no client adapter mcp calls call each every only any all than into`) {
		stopWords[w] = true
	}
}

// words are the content words of s, lower-cased, plural s dropped.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if stopWords[w] || len(w) < 2 {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	both := 0
	for w := range a {
		if b[w] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// overlap is the share of a's words found in b.
func overlap(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
