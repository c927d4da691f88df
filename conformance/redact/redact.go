// Package redact removes secrets from what mcpcheck prints, in the forms a
// hostile target could echo them in: verbatim or in another case, base64
// (standard or URL alphabet, padded or not, at any byte alignment inside a
// longer string), JSON \u-escaped and URL %-encoded, in any mix with
// literal characters, whole or any 12 characters of its high-entropy runs
// (never its words, which ordinary text shares), and split by any
// number of invisible characters (zero-width, bidi, C1; raw or written as
// termsafe's \u200b escapes).
package redact

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// Replacement is what a secret becomes: printable, and nothing JSON or XML
// would escape, so it fits wherever the secret stood.
const Replacement = "[redacted]"

// minEncoded is the shortest secret redacted in every form. A shorter one
// (a test's "tok") is redacted only verbatim and as a whole word: its
// other forms, or "tok" in "tokens", are ordinary text.
const minEncoded = 8

// tokenByte reports whether c can be part of a bearer token.
func tokenByte(c byte) bool {
	return 'a' <= lower(c) && lower(c) <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
}

// A Redactor redacts every secret added to it. It is safe for concurrent
// use, and a nil *Redactor redacts nothing.
type Redactor struct {
	mu      sync.Mutex
	secrets map[string]bool
	m       *matcher // nil until a secret is added
}

// New returns a Redactor for secrets.
func New(secrets ...string) *Redactor {
	r := &Redactor{secrets: map[string]bool{}}
	r.Add(secrets...)
	return r
}

// Add adds secrets; empty ones are ignored.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for _, s := range secrets {
		if s != "" && !r.secrets[s] {
			r.secrets[s], changed = true, true
		}
	}
	if changed {
		r.m = newMatcher(r.secrets)
	}
}

func (r *Redactor) current() *matcher {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m
}

// String returns s with every form of every secret replaced.
func (r *Redactor) String(s string) string {
	if m := r.current(); m != nil {
		if out, changed := m.replace([]byte(s)); changed {
			return string(out)
		}
	}
	return s
}

// Bytes returns b with every form of every secret replaced.
func (r *Redactor) Bytes(b []byte) []byte {
	if m := r.current(); m != nil {
		b, _ = m.replace(b)
	}
	return b
}

// window is how many consecutive characters of a secret's high-entropy
// runs are redacted wherever they appear: a token cut short by a clipped
// message, or split across two fields, is redacted as well as a whole one.
// Its words are not: "pdpp_split_connections_…" must not blank
// "available_connections" in a report.
const window = 12

// A matcher finds the forms of its secrets in decoded text (all
// lower-cased). windows holds, for every window of every form, whether it
// is a fragment (it lies in the secret's high-entropy runs) and the forms
// that begin with it, matched whole; shortForms holds the forms shorter
// than window, by length; short the secrets below minEncoded.
type matcher struct {
	windows    map[string]*gram
	shortForms map[int]map[string]bool
	short      [][]byte
}

type gram struct {
	fragment bool
	wholes   []string
}

func newMatcher(secrets map[string]bool) *matcher {
	m := &matcher{windows: map[string]*gram{}, shortForms: map[int]map[string]bool{}}
	at := func(w string) *gram {
		g := m.windows[w]
		if g == nil {
			g = &gram{}
			m.windows[w] = g
		}
		return g
	}
	for s := range secrets {
		if len(s) < minEncoded {
			m.short = append(m.short, []byte(s))
			continue
		}
		for _, f := range formsOf(s) {
			v := strings.ToLower(f.text)
			if len(v) < window {
				if m.shortForms[len(v)] == nil {
					m.shortForms[len(v)] = map[string]bool{}
				}
				m.shortForms[len(v)][v] = true
				continue
			}
			g := at(v[:window])
			g.wholes = append(g.wholes, v)
			for k := 0; k+window <= len(v); k++ {
				if fragment(f.class[k : k+window]) {
					at(v[k : k+window]).fragment = true
				}
			}
		}
	}
	return m
}

// replace replaces every stretch of b that spells a form whole, a window
// of a form's high-entropy runs, or a short secret verbatim, with
// Replacement; overlapping ones become one.
func (m *matcher) replace(b []byte) ([]byte, bool) {
	dec, at := decode(b)
	var spans [][2]int // in b, sorted by start
	for i := range dec {
		if i+window <= len(dec) {
			if g := m.windows[string(dec[i:i+window])]; g != nil {
				if g.fragment {
					spans = append(spans, [2]int{at[i], at[i+window]})
				}
				for _, w := range g.wholes {
					if i+len(w) <= len(dec) && string(dec[i:i+len(w)]) == w {
						spans = append(spans, [2]int{at[i], at[i+len(w)]})
					}
				}
			}
		}
		for n, forms := range m.shortForms {
			if i+n <= len(dec) && forms[string(dec[i:i+n])] {
				spans = append(spans, [2]int{at[i], at[i+n]})
			}
		}
	}
	for _, s := range m.short {
		for off := 0; ; {
			k := bytes.Index(b[off:], s)
			if k < 0 {
				break
			}
			if start, end := off+k, off+k+len(s); (start == 0 || !tokenByte(b[start-1])) && (end == len(b) || !tokenByte(b[end])) {
				spans = append(spans, [2]int{start, end})
			}
			off += k + 1
		}
	}
	if len(spans) == 0 {
		return b, false
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var out []byte
	last := 0
	for k := 0; k < len(spans); {
		start, end := spans[k][0], spans[k][1]
		for k++; k < len(spans) && spans[k][0] <= end; k++ {
			end = max(end, spans[k][1])
		}
		out = append(append(out, b[last:start]...), Replacement...)
		last = end
	}
	return append(out, b[last:]...), true
}

// decode reads b as a run of characters, each written literally (ASCII
// letters folded to lower case), \u00hh-escaped behind any number of
// backslashes (a quoted JSON string doubles them), as a JSON short escape
// (\" \/), or %hh-encoded. It returns the characters and, for each, where
// it starts in b, plus len(b) at the end.
func decode(b []byte) ([]byte, []int) {
	dec, at := make([]byte, 0, len(b)), make([]int, 0, len(b)+1)
	for p := 0; p < len(b); {
		c, n := b[p], 1
		switch {
		case c == '\\':
			k := p + 1
			for k < len(b) && b[k] == '\\' {
				k++
			}
			switch {
			case k < len(b) && invisibleEscape(b[k:]) > 0: // \u200b, as termsafe writes it: read past it
				p = k + invisibleEscape(b[k:])
				continue
			case k+5 <= len(b) && lower(b[k]) == 'u' && b[k+1] == '0' && b[k+2] == '0' && isHex(b[k+3]) && isHex(b[k+4]):
				c, n = hexByte(b[k+3], b[k+4]), k+5-p
			case k < len(b) && (b[k] == '"' || b[k] == '/'):
				c, n = b[k], k+1-p
			default: // plain backslashes, taken at once: a long run stays linear
				for ; p < k; p++ {
					dec, at = append(dec, '\\'), append(at, p)
				}
				continue
			}
		case c == '%' && p+3 <= len(b) && isHex(b[p+1]) && isHex(b[p+2]):
			c, n = hexByte(b[p+1], b[p+2]), 3
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRune(b[p:]); termsafe.Escaped(r) {
				p += size // an invisible character inside a token splits nothing
				continue
			}
		default:
			c = lower(c)
		}
		dec, at = append(dec, c), append(at, p)
		p += n
	}
	return dec, append(at, len(b))
}

// invisibleEscape is the length of the \u or \U escape at the start of b
// (b[0] is the u) when it spells an invisible or C1 character, else 0.
func invisibleEscape(b []byte) int {
	digits := 4
	switch {
	case b[0] == 'U':
		digits = 8
	case b[0] != 'u':
		return 0
	}
	if len(b) < 1+digits {
		return 0
	}
	var r rune
	for _, c := range b[1 : 1+digits] {
		if !isHex(c) {
			return 0
		}
		r = r<<4 | rune(unhex(c))
	}
	if r > utf8.MaxRune || !termsafe.Escaped(r) {
		return 0
	}
	return 1 + digits
}

// hexByte is the byte two hex digits spell, letters folded to lower case.
func hexByte(hi, lo byte) byte { return lower(unhex(hi)<<4 | unhex(lo)) }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= lower(c) && lower(c) <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return lower(c) - 'a' + 10
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// What each character of a form carries of its secret.
const (
	ordinary  byte = iota // a word's letter: ordinary text holds it too
	separator             // punctuation between runs
	secretRun             // a letter or digit of a high-entropy run
)

// A form is a string whose encodings are searched for, with the class of
// each of its characters.
type form struct {
	text  string
	class []byte
}

// formsOf are the secret, and the part of its base64 that does not depend
// on the bytes around it, at each of the three alignments, in both
// alphabets. Padding only ever ends a whole encoding, so it is no concern
// here. A base64 character is as ordinary as the least secret byte it
// encodes.
func formsOf(s string) []form {
	class := classes(s)
	out := []form{{s, class}}
	for skip := range 3 {
		whole := (len(s) - skip) / 3 * 3
		if whole < 6 {
			continue
		}
		mid := []byte(s[skip : skip+whole])
		c := make([]byte, base64.StdEncoding.EncodedLen(len(mid)))
		for j := range c {
			c[j] = min(class[skip+j*6/8], class[skip+(j*6+5)/8])
		}
		out = append(out, form{base64.StdEncoding.EncodeToString(mid), c}, form{base64.URLEncoding.EncodeToString(mid), c})
	}
	return out
}

// classes is the class of each byte of s. A run of ASCII letters and digits is
// high-entropy when it is at least 8 long, mixes letters and digits, and
// repeats little (6 distinct characters or more): random and derived
// token bodies, hex and base64 are; words, field names and stream names
// ("_connections", "o200k", "sha256") are not.
func classes(s string) []byte {
	c := make([]byte, len(s))
	alnum := func(b byte) bool { return '0' <= b && b <= '9' || 'a' <= lower(b) && lower(b) <= 'z' }
	for i := 0; i < len(s); {
		if !alnum(s[i]) {
			if s[i] < utf8.RuneSelf {
				c[i] = separator
			}
			i++
			continue
		}
		j := i
		letters, digits, distinct := false, false, map[byte]bool{}
		for ; j < len(s) && alnum(s[j]); j++ {
			digits = digits || s[j] <= '9'
			letters = letters || s[j] > '9'
			distinct[s[j]] = true
		}
		if j-i >= 8 && letters && digits && len(distinct) >= 6 {
			for k := i; k < j; k++ {
				c[k] = secretRun
			}
		}
		i = j
	}
	return c
}

// fragment reports whether a window with these classes gives part of a
// secret away: it holds a high-entropy run's characters and no word's.
func fragment(class []byte) bool {
	return !bytes.Contains(class, []byte{ordinary}) && bytes.Contains(class, []byte{secretRun})
}

// Value redacts, in place, every string reachable from p (a pointer):
// struct fields, slice and array elements, map keys and values, and what
// interfaces hold. Structured reports are redacted this way before they
// are encoded, so a replacement can never break their syntax.
func (r *Redactor) Value(p any) {
	if r.current() == nil {
		return
	}
	r.walk(reflect.ValueOf(p))
}

func (r *Redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			r.walk(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		r.walk(c)
		v.Set(c)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				r.walk(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			r.walk(k)
			r.walk(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		if v.CanSet() {
			v.SetString(r.String(v.String()))
		}
	}
}
