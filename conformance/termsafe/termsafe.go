// Package termsafe makes text from an untrusted server safe to print on a
// terminal: every C0 control but newline and tab, DEL, every C1 control and
// every byte that is not UTF-8 is written as a visible escape (\x1b, \r,
// \b, \u009b, \x9b) instead of reaching the terminal, which would obey it.
// An 8-bit terminal reads a raw 0x9b as CSI, hence invalid UTF-8 too.
package termsafe

import (
	"io"
	"unicode/utf8"
)

// String escapes s for multi-line output: newlines and tabs stay.
func String(s string) string { out, _ := escape(nil, []byte(s), false, true); return string(out) }

// Line escapes s for a one-line field (a tool name in a table, a reason):
// newlines and tabs are escaped too, so s can neither start a line of its
// own nor shift a column.
func Line(s string) string { out, _ := escape(nil, []byte(s), true, true); return string(out) }

const hex = "0123456789abcdef"

// escape appends src to dst, escaped, and says how many bytes of src it
// took. Unless final, an incomplete UTF-8 sequence at the end of src is
// left for the caller to complete with its next write.
func escape(dst, src []byte, line, final bool) ([]byte, int) {
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
			default:
				dst = append(dst, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size <= 1 && !final && !utf8.FullRune(src[i:]):
			return dst, i
		case r == utf8.RuneError && size <= 1:
			dst = append(dst, '\\', 'x', hex[b>>4], hex[b&0xf])
		case r >= 0x80 && r <= 0x9f: // C1 controls
			dst = append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst, len(src)
}

// A Writer escapes everything written through it, as [String] does. A UTF-8
// sequence split across writes is held back until it completes; Flush
// writes what is held as escapes.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that writes escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (w *Writer) Write(p []byte) (int, error) {
	src := append(w.pending, p...)
	out, n := escape(make([]byte, 0, len(src)+16), src, false, false)
	w.pending = append(w.pending[:0:0], src[n:]...)
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held, incomplete UTF-8 sequence as escapes.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := escape(nil, w.pending, false, true)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}
