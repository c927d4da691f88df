package fakers

import (
	"fmt"
	"strings"
)

// HighlightFixture is a data set whose search snippets put highlight tags
// at every position around common cut lengths: a renderer that cuts a
// snippet or preview at one of them through a <mark> or </mark> tag is
// caught. Each record's ProbeField holds the one word only it contains.
const HighlightFixture = "highlights"

// ProbeField names, in every record of the highlights fixture, the word
// to search for to find that record alone.
const ProbeField = "probe"

// HighlightCuts are the snippet lengths, in characters, around which the
// highlights fixture places tags: common preview and snippet windows.
var HighlightCuts = []int{60, 96, 100, 120, 160, 200, 320}

// highlightGroups split the cuts into sets whose tags cannot overlap in one
// snippet.
var highlightGroups = [][]int{{60, 100, 160, 320}, {96, 120, 200}}

const (
	probeLen    = 8             // every probe word has 8 letters
	snippetLead = 16            // markSnippet's words before the first match
	openTag     = len("<mark>") // 6
	closeTag    = len("</mark>")
)

// highlightPhases are the shifts of each tag against each cut: from the
// open tag starting at the cut to the close tag ending just before it.
const highlightPhases = openTag + probeLen + closeTag + 1

func buildHighlights(uint64) *Fixture {
	conn := Connection{ID: "cin_notes", DisplayName: "Field Notes"}
	s := &Stream{Connector: "notes", Name: "notes", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID}, NoAggregations: true,
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "title", Type: "string", Role: "primary-title"},
			{Name: "body", Type: "string", Role: "primary-text", Lexical: true}, {Name: ProbeField, Type: "string"}}}
	n := 0
	for _, long := range []bool{false, true} {
		for g, cuts := range highlightGroups {
			for phase := 0; phase < highlightPhases; phase++ {
				probe := probeWord(n)
				body := highlightBody(probe, cuts, phase, long)
				id := fmt.Sprintf("h%03d", n)
				title := fmt.Sprintf("Probe %d (group %d, shift %d, long %t)", n, g, phase, long)
				s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-09T00:00:00Z",
					Data: map[string]any{"id": id, "title": title, "body": body, ProbeField: probe}})
				n++
			}
		}
	}
	f := &Fixture{Name: HighlightFixture, Connectors: []Connector{{Key: "notes", DisplayName: "Notes", Connections: []Connection{conn}}}, Streams: []*Stream{s}}
	f.grantAll()
	return f
}

// probeWord is the n-th probe: "zq" and six letters, which no filler word
// holds (fillers have neither z nor q).
func probeWord(n int) string {
	b := []byte("zqaaaaaa")
	for i := len(b) - 1; i >= 2 && n > 0; i-- {
		b[i] = byte('a' + n%26)
		n /= 26
	}
	return string(b)
}

// highlightBody is a text whose lexical snippet for probe (markSnippet's)
// has an open tag at cut-phase for every cut, so each tag, and the probe
// between, meets each cut at some phase. A long body puts the match deep
// in the text, so the snippet starts with "…" and the lead words.
func highlightBody(probe string, cuts []int, phase int, long bool) string {
	var words []string
	at := 0 // runes of snippet written so far
	if long {
		for len(strings.Join(words, " ")) < 1500 {
			words = append(words, fillerWords(12, 132)...)
		}
		at = 1 // the "…" of a snippet that drops words
	}
	window := 0 // words of the snippet's window
	for i, cut := range cuts {
		gap := cut - phase - at
		count := (gap + 11) / 12
		if i == 0 && long {
			count = snippetLead
		}
		filler := fillerWords(count, gap-count)
		words = append(words, filler...)
		words = append(words, probe)
		window += len(filler) + 1
		at += gap + openTag + probeLen + closeTag + 1
	}
	// Words past the window, so the snippet is cut after it.
	words = append(words, fillerWords(48-window+6, 5*(48-window+6))...)
	return strings.Join(words, " ") + "."
}

var fillerLetters = "loremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididuntutlaboreetdoloremagna"

// fillerWords are count words of chars letters in all (each at least one),
// from letters no probe word holds.
func fillerWords(count, chars int) []string {
	if count <= 0 {
		return nil
	}
	chars = max(chars, count)
	out := make([]string, count)
	pos := chars * 7 % len(fillerLetters)
	for i := range out {
		n := chars / count
		if i < chars%count {
			n++
		}
		var b strings.Builder
		for b.Len() < n {
			b.WriteByte(fillerLetters[pos%len(fillerLetters)])
			pos++
		}
		out[i] = b.String()
	}
	return out
}
