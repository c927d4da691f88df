package fakers

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every record's snippet puts an open tag at cut-shift for each cut of its
// group, so every tag meets every cut at some shift.
func TestHighlightSnippetsMeetEveryCut(t *testing.T) {
	fx, err := LoadFixture(HighlightFixture)
	if err != nil {
		t.Fatal(err)
	}
	met := map[int]map[string]bool{} // cut -> which parts of a highlight it fell in
	var want [][]int                 // each record's open tags: cut-shift for its group's cuts
	for range 2 {
		for _, cuts := range highlightGroups {
			for phase := 0; phase < highlightPhases; phase++ {
				var opens []int
				for _, c := range cuts {
					opens = append(opens, c-phase)
				}
				want = append(want, opens)
			}
		}
	}
	for i, rec := range fx.Streams[0].Records {
		body, probe := rec.Data["body"].(string), rec.Data[ProbeField].(string)
		snippet := markSnippet(body, strings.ToLower(body), []string{probe})
		runes := []rune(snippet)
		var opens []int
		for i := range runes {
			if strings.HasPrefix(string(runes[i:]), "<mark>") {
				opens = append(opens, i)
			}
		}
		if fmt.Sprint(opens) != fmt.Sprint(want[i]) {
			t.Fatalf("%s: highlights open at %v, want %v: %q", rec.ID, opens, want[i], snippet)
		}
		for _, o := range opens {
			for _, cut := range HighlightCuts {
				if met[cut] == nil {
					met[cut] = map[string]bool{}
				}
				switch d := cut - o; {
				case d > 0 && d < openTag:
					met[cut]["open tag"] = true
				case d > openTag+probeLen && d < openTag+probeLen+closeTag:
					met[cut]["close tag"] = true
				}
			}
		}
		if strings.Count(snippet, "<mark>") != strings.Count(snippet, "</mark>") || !utf8.ValidString(snippet) {
			t.Fatalf("%s: unbalanced snippet %q", rec.ID, snippet)
		}
	}
	for _, cut := range HighlightCuts {
		if !met[cut]["open tag"] || !met[cut]["close tag"] {
			t.Errorf("cut %d meets %v of a highlight, want both tags", cut, met[cut])
		}
	}
}
