package termsafe

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é and 日本":    "plain text, é and 日本",
		"two\nlines\tand a tab":   "two\nlines\tand a tab",
		"\x1b]52;c;cHduZWQ=\x07":  `\x1b]52;c;cHduZWQ=\x07`,
		"\x1b]0;pwned\x07":        `\x1b]0;pwned\x07`,
		"ok\r  PASS S999":         `ok\r  PASS S999`,
		"FAIL\b\b\b\bPASS":        `FAIL\b\b\b\bPASS`,
		"\x00\x7f":                `\x00\x7f`,
		"\u009b2J and \u0085":     `\u009b2J and \u0085`,
		"raw \x9b2J and \xff\xfe": `raw \x9b2J and \xff\xfe`,
		"cut \xe6\x97":            `cut \xe6\x97`,
		"\xe6\x97\xa5 whole":      "日 whole",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\tb\nc\r"); got != `a\tb\nc\r` {
		t.Errorf("Line = %q", got)
	}
}

// A writer never splits a valid character into two escapes, whatever the
// write boundaries, and escapes an unfinished one on Flush.
func TestWriterSplitsNoCharacter(t *testing.T) {
	in := []byte("日本\u009b\x1b[2J é\xe6\x97")
	want := `日本\u009b\x1b[2J é\xe6\x97`
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += size {
			if n, err := w.Write(in[i:min(i+size, len(in))]); err != nil || n != min(size, len(in)-i) {
				t.Fatalf("write: %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("writes of %d bytes: %q, want %q", size, out.String(), want)
		}
	}
}

// Bidi controls, zero-width and other invisible characters are written as
// \u escapes; visible non-ASCII text and ordinary spaces stay.
func TestInvisibleCharactersAreEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"admin\u202e\u2066txt.exe\u2069":       `admin\u202e\u2066txt.exe\u2069`,
		"a\u200bb\u200cc\u200dd\u2060e\ufefff": `a\u200bb\u200cc\u200dd\u2060e\ufefff`,
		"\u200e\u200f\u061c\u202a\u202b\u202c": `\u200e\u200f\u061c\u202a\u202b\u202c`,
		"tag \U000E0041 and \u2028 and \u00ad": `tag \U000e0041 and \u2028 and \u00ad`,
		"kept: é, 日本, \u00a0nbsp, emoji 🙂, ½":  "kept: é, 日本, \u00a0nbsp, emoji 🙂, ½",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

// GitHub Actions workflow commands are neutralised: "::" at the start of a
// line after any whitespace the runner trims, and "##[" anywhere.
func TestWorkflowCommandsAreNeutralised(t *testing.T) {
	for in, want := range map[string]string{
		"::error file=x::forged":              `\u003a:error file=x::forged`,
		"ok\n   ::add-mask::FAIL\n\t::stop":   "ok\n   \\u003a:add-mask::FAIL\n\t\\u003a:stop",
		"\u00a0\u3000::warning::x":            "\u00a0\u3000\\u003a:warning::x",
		"call: ##[error]forged ###[group]":    `call: \u0023#[error]forged #\u0023#[group]`,
		"mid-line :: and # and ## and #[ ok":  "mid-line :: and # and ## and #[ ok",
		": : single colons\n:x":               ": : single colons\n:x",
		"\x1b::not a line start, \\::neither": `\x1b::not a line start, \::neither`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("  ::error::x\n::y"); got != `  \u003a:error::x\n::y` {
		t.Errorf("Line = %q", got)
	}
}

// Split across writes at every boundary, a command is still neutralised
// and nothing else changes.
func TestWriterNeutralisesCommandsAcrossWrites(t *testing.T) {
	in := []byte("a ##[x]\n  ::error::y\n##\n:\n#")
	want := "a \\u0023#[x]\n  \\u003a:error::y\n##\n:\n#"
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += size {
			_, _ = w.Write(in[i:min(i+size, len(in))])
		}
		_ = w.Flush()
		if out.String() != want {
			t.Errorf("writes of %d bytes: %q, want %q", size, out.String(), want)
		}
	}
}

// mcpcheck's own commands pass, on a line of their own; a second command
// in their message does not.
func TestWriteCommand(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	_, _ = w.Write([]byte("text with no newline"))
	_ = w.WriteCommand("::error file=a,title=b::msg ##[x] \u202e\n::warning::y")
	_, _ = w.Write([]byte("::after\n"))
	_ = w.Flush()
	want := "text with no newline\n::error file=a,title=b::msg \\u0023#[x] \\u202e\\n::warning::y\n\\u003a:after\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestJSONKeepsStringsAndEscapesInvisibles(t *testing.T) {
	v := map[string]string{"s": "a\u202eb\u0085c\u200b ##[error] \U000E0041 ::x\n::y é"}
	enc, _ := json.Marshal(v)
	got := JSON(enc)
	for _, raw := range []string{"\u202e", "\u0085", "\u200b", "##[", "\U000E0041"} {
		if bytes.Contains(got, []byte(raw)) {
			t.Errorf("%q still holds %q", got, raw)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["s"] != v["s"] {
		t.Errorf("%s decodes to %q (%v), want %q", got, back["s"], err, v["s"])
	}
}

func TestXMLEscapesInvisiblesAndCommands(t *testing.T) {
	type doc struct {
		A string `xml:"a,attr"`
		T string `xml:",chardata"`
	}
	enc, _ := xml.Marshal(doc{A: "x\u202ey ##[z]", T: "p\u0085q\n  ::error::forged\n##[group]"})
	got := string(XML(enc))
	for _, raw := range []string{"\u202e", "\u0085", "##["} {
		if strings.Contains(got, raw) {
			t.Errorf("%q still holds %q", got, raw)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("line %q starts a workflow command", l)
		}
	}
	var back doc
	if err := xml.Unmarshal([]byte(got), &back); err != nil || back.A != `x\u202ey ##[z]` || !strings.Contains(back.T, `p\u0085q`) {
		t.Errorf("%s decodes to %+v (%v)", got, back, err)
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip(strings.Repeat("é", 25), 10); got != strings.Repeat("é", 10)+"… [clipped: 15 more characters]" {
		t.Errorf("Clip = %q", got)
	}
}
