// Package termsafe makes text from an untrusted server safe to print on a
// terminal, in a CI log or in a report a person reads:
//   - every C0 control but newline and tab, DEL, every C1 control and every
//     byte that is not UTF-8 is written as a visible escape (\x1b, \r, \b,
//     \u009b, \x9b) instead of reaching the terminal, which would obey it.
//     An 8-bit terminal reads a raw 0x9b as CSI, hence invalid UTF-8 too;
//   - every invisible character (see [Invisible]: bidi controls, zero-width
//     characters and the other format characters, line and paragraph
//     separators) is written as \u202e, so no text can reorder or hide
//     what a reader sees;
//   - GitHub Actions workflow commands are neutralised, always, since
//     reports get pasted into logs: "::" that starts a line after
//     whitespace becomes "\u003a:", and "##[" anywhere becomes "\u0023#[".
//
// [JSON] and [XML] do the same to encoded reports, in each format's own
// escapes, so text, JSON and JUnit agree.
package termsafe

import (
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// String escapes s for multi-line output: newlines and tabs stay.
func String(s string) string {
	st := state{lineStart: true}
	out, _ := st.escape(nil, []byte(s), false, true)
	return string(out)
}

// Line escapes s for a one-line field (a tool name in a table, a reason):
// newlines and tabs are escaped too, so s can neither start a line of its
// own nor shift a column.
func Line(s string) string {
	st := state{lineStart: true}
	out, _ := st.escape(nil, []byte(s), true, true)
	return string(out)
}

// Invisible reports whether r is a character a reader cannot see that
// changes what they see: a format character (Unicode category Cf: the bidi
// controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F and U+061C, the
// zero-width U+200B–U+200D, U+2060 and U+FEFF, tag characters, the soft
// hyphen), or the line and paragraph separators U+2028 and U+2029.
func Invisible(r rune) bool {
	return r == 0x2028 || r == 0x2029 || r >= 0xad && unicode.Is(unicode.Cf, r)
}

// Escaped reports whether r is written as an escape: a C1 control or an
// invisible character.
func Escaped(r rune) bool { return r >= 0x80 && r <= 0x9f || Invisible(r) }

const hex = "0123456789abcdef"

// appendU appends r as \uXXXX, or \UXXXXXXXX beyond the BMP.
func appendU(dst []byte, r rune) []byte {
	if r > 0xffff {
		return append(dst, '\\', 'U', hex[r>>28&0xf], hex[r>>24&0xf], hex[r>>20&0xf], hex[r>>16&0xf], hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// state is what escaping needs to know about the output so far: whether
// only whitespace has been written since the last newline (a runner trims
// it before it looks for "::").
type state struct{ lineStart bool }

// escape appends src to dst, escaped, and says how many bytes of src it
// took. Unless final, an incomplete UTF-8 sequence, or the start of "::"
// or "##[", at the end of src is left for the caller to complete with its
// next write.
func (st *state) escape(dst, src []byte, line, final bool) ([]byte, int) {
	for i := 0; i < len(src); {
		b := src[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '\n' && line:
				dst = append(dst, `\n`...)
			case b == '\t' && line:
				dst = append(dst, `\t`...)
			case b == '\r':
				dst = append(dst, `\r`...)
			case b == '\b':
				dst = append(dst, `\b`...)
			case (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f:
				dst = append(dst, '\\', 'x', hex[b>>4], hex[b&0xf])
			case b == ':' && st.lineStart || b == '#':
				pattern := "::"
				if b == '#' {
					pattern = "##["
				}
				rest := src[i:min(len(src), i+len(pattern))]
				if string(rest) == pattern {
					dst = appendU(dst, rune(b))
					break
				}
				if !final && len(rest) < len(pattern) && string(rest) == pattern[:len(rest)] {
					return dst, i // may complete with the next write
				}
				dst = append(dst, b)
			default:
				dst = append(dst, b)
			}
			// Only what is written raw counts: an escaped tab is text.
			st.lineStart = b == '\n' && !line || st.lineStart && (b == ' ' || b == '\t' && !line)
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size <= 1 && !final && !utf8.FullRune(src[i:]):
			return dst, i
		case r == utf8.RuneError && size <= 1:
			dst = append(dst, '\\', 'x', hex[b>>4], hex[b&0xf])
		case Escaped(r):
			dst = appendU(dst, r)
		default:
			dst = append(dst, src[i:i+size]...)
		}
		st.lineStart = st.lineStart && size > 1 && unicode.IsSpace(r) && !Escaped(r)
		i += size
	}
	return dst, len(src)
}

// A Writer escapes everything written through it, as [String] does. A UTF-8
// sequence, or a possible workflow command, split across writes is held
// back until it completes; Flush writes what is held.
type Writer struct {
	w       io.Writer
	pending []byte
	st      state
}

// NewWriter returns a Writer that writes escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, st: state{lineStart: true}} }

func (w *Writer) Write(p []byte) (int, error) {
	src := append(w.pending, p...)
	out, n := w.st.escape(make([]byte, 0, len(src)+16), src, false, false)
	w.pending = append(w.pending[:0:0], src[n:]...)
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held, escaped.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := w.st.escape(nil, w.pending, false, true)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}

// WriteCommand writes line, a workflow command of mcpcheck's own
// ("::error file=…::message"), on a line of its own: everything after the
// leading "::" is escaped as [Line] escapes it, so the message can hold no
// second command.
func (w *Writer) WriteCommand(line string) error {
	if err := w.Flush(); err != nil {
		return err
	}
	var out []byte
	if !w.st.lineStart {
		out = append(out, '\n')
	}
	body, ok := cutPrefix(line, "::")
	if ok {
		out = append(out, "::"...)
	}
	st := state{}
	out, _ = st.escape(out, []byte(body), true, true)
	out = append(out, '\n')
	w.st.lineStart = true
	_, err := w.w.Write(out)
	return err
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

// Clip bounds s to n characters; a clipped s ends by saying how many
// characters were left out, so a reader knows it was clipped.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	if i == len(s) {
		return s
	}
	return s[:i] + "… [clipped: " + strconv.Itoa(utf8.RuneCountInString(s[i:])) + " more characters]"
}
