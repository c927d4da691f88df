package termsafe

import (
	"bytes"
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
