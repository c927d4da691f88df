package read

import "testing"

// A fact is found by value in any notation a target may write it in, and
// a fact glued inside other text is only a loose sighting.
func TestFindByValueInAnyNotation(t *testing.T) {
	for _, c := range []struct {
		in          string
		f           Fact
		exact, seen bool
	}{
		{"connection cin_work shows", Text("cin_work"), true, true},
		{`{"id":"cin_work"}`, Text("cin_work"), true, true},
		{"cin_workshop", Text("cin_work"), false, true},      // inside other text: seen, loosely
		{"Work &amp; Home", Text("Work & Home"), true, true}, // entities
		{"the <mark>budget</mark> draft", Text("budget draft"), true, true},
		{`a \"quoted\" value`, Text(`a "quoted" value`), true, true},  // JSON escapes
		{"id Y2luX3dvcmsvbWVzc2FnZXM=", Text("cin_work"), true, true}, // inside a base64 token
		{"12,345 records", Number(12345), true, true},
		{"nothing here", Text("cin_home"), false, false},
	} {
		s := Find([]string{c.in}, c.f)
		if s.Exact != c.exact || s.Seen() != c.seen {
			t.Errorf("Find(%q, %q) = exact %v seen %v, want %v %v", c.in, c.f.Value, s.Exact, s.Seen(), c.exact, c.seen)
		}
	}
	absent, _ := FindAll([]string{"cin_work and cin_home"}, []Fact{Text("cin_work"), Text("cin_slack")})
	if len(absent) != 1 || absent[0].Value != "cin_slack" {
		t.Errorf("FindAll absent = %v, want [cin_slack]", absent)
	}
}

// A symbol flag stands as a token beside words, not beside other flags.
func TestTokenIndexSymbols(t *testing.T) {
	for s, want := range map[string]bool{"body #ops": true, "body ##": false, "a==b": false, "x = y": true} {
		tok := "#"
		if s == "a==b" || s == "x = y" {
			tok = "="
		}
		if got := ContainsToken(s, tok); got != want {
			t.Errorf("ContainsToken(%q, %q) = %v, want %v", s, tok, got, want)
		}
	}
}

// Contrast sets the fixture's content and digits aside: two answers that
// differ only there read the same.
func TestNormalizeSetsContentAndDigitsAside(t *testing.T) {
	a := Normalize("3 hits from cin_work. next=abc123def456ghi", []string{"cin_work"})
	b := Normalize("7 hits from cin_home. next=zzz999yyy888xxx", []string{"cin_home"})
	if a != b {
		t.Errorf("answers differing only in content, digits and opaque tokens normalise apart:\n%q\n%q", a, b)
	}
	if Normalize("complete: yes", nil) == Normalize("complete: no", nil) {
		t.Errorf("a state word must survive normalising")
	}
}
