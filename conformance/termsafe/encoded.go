package termsafe

import (
	"bytes"
	"unicode/utf8"
)

// JSON makes an encoded JSON document (encoding/json's output: valid
// UTF-8, C0 controls already escaped) as safe as [String] makes text, in
// JSON's own escapes, so a decoder reads back the very same strings: a C1
// control or an invisible character becomes \u202e (a surrogate pair
// beyond the BMP), and the first "#" of "##[" becomes \u0023. Outside
// strings JSON holds neither, and no string holds a raw newline, so no
// line can start with "::".
func JSON(b []byte) []byte {
	return filter(b, func(dst []byte, r rune) []byte {
		if r > 0xffff {
			r -= 0x10000
			return appendU(appendU(dst, 0xd800+r>>10), 0xdc00+r&0x3ff)
		}
		return appendU(dst, r)
	}, `\u0023`, "")
}

// XML makes an encoded XML document (encoding/xml's output) as safe as
// [String] makes text: a C1 control or an invisible character becomes the
// text \u202e (a character reference would only bring it back in whatever
// shows the report), the first "#" of "##[" becomes &#x23;, and the first
// ":" of "::" that starts a line after whitespace becomes &#x3A;.
func XML(b []byte) []byte {
	return filter(b, appendU, "&#x23;", "&#x3A;")
}

// filter copies b, writing each escaped rune with esc, the "#" of "##["
// as hash and, when colon is set, the ":" of a line-starting "::" as colon.
func filter(b []byte, esc func([]byte, rune) []byte, hash, colon string) []byte {
	out := make([]byte, 0, len(b)+len(b)/64)
	lineStart := true
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '#' && bytes.HasPrefix(b[i:], []byte("##[")):
				out = append(out, hash...)
			case c == ':' && lineStart && colon != "" && bytes.HasPrefix(b[i:], []byte("::")):
				out = append(out, colon...)
			default:
				out = append(out, c)
			}
			lineStart = c == '\n' || lineStart && (c == ' ' || c == '\t')
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if Escaped(r) {
			out = esc(out, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		lineStart = false
		i += size
	}
	return out
}
