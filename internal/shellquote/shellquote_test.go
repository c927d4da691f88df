package shellquote

import "testing"

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain-word_1.2:3=4@5%6+7,8/9": "plain-word_1.2:3=4@5%6+7,8/9",
		"":                             "''",
		"two words":                    "'two words'",
		"it's":                         `'it'\''s'`,
		"$HOME":                        "'$HOME'",
		"{rs_url}":                     "{rs_url}",
		"{a,b}":                        "'{a,b}'",
		"{1..3}":                       "'{1..3}'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Join([]string{"pdpp-mcp", "--q", "a b"}); got != "pdpp-mcp --q 'a b'" {
		t.Errorf("Join = %s", got)
	}
}
