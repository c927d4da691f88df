package adapter

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"example.com/pdppadapter-t/internal/ojson"
)

// runeLen counts characters the way the RS field-window does (code points).
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// runeSlice returns s[start:end] in rune offsets (end past the string is
// clamped).
func runeSlice(s string, start, end int) string {
	if start < 0 {
		start = 0
	}
	if end <= start {
		return ""
	}
	bs, ri := -1, 0
	for i := range s {
		if ri == start {
			bs = i
		}
		if ri == end {
			if bs < 0 {
				return ""
			}
			return s[bs:i]
		}
		ri++
	}
	if bs < 0 {
		return ""
	}
	return s[bs:]
}

// preview returns at most max characters of s, preferring to cut at a word
// boundary. shown is the number of characters of s included (the offset
// from which a continuation read resumes).
func preview(s string, max int) (out string, shown int, truncated bool) {
	n := runeLen(s)
	if n <= max {
		return s, n, false
	}
	cut := runeSlice(s, 0, max)
	// Prefer a whitespace boundary within the last fifth of the window.
	if idx := strings.LastIndexFunc(cut, unicode.IsSpace); idx > 0 && runeLen(cut[:idx]) >= max*4/5 {
		cut = cut[:idx+1]
	}
	return cut, runeLen(cut), true
}

// jsonStr renders a string as a JSON literal (quotes and escapes).
func jsonStr(s string) string { return ojson.MustString(s) }

// compactJSON renders any value as compact JSON.
func compactJSON(v any) string { return ojson.MustString(v) }

// ---------------------------------------------------------------------------
// Binary / encoded content detection (content-based, never by field name).

type strKind int

const (
	kindText strKind = iota
	kindBase64
	kindHex
	kindDataURI
	kindControl
)

// binaryInfo describes a string that should stay metadata-only.
type binaryInfo struct {
	Kind         strKind
	Encoding     string // "base64", "hex", "data-uri", "binary"
	MediaType    string // sniffed or declared, "" when unknown
	Chars        int
	ApproxBytes  int
	DeclaredOnly bool
}

const base64MinChars = 128
const hexMinChars = 256

func isB64Char(r rune) bool {
	return (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '+' || r == '/' || r == '=' || r == '-' || r == '_'
}

// classifyString decides whether s looks like encoded binary content.
func classifyString(s string) (binaryInfo, bool) {
	n := runeLen(s)
	info := binaryInfo{Chars: n}
	if n < 32 {
		return info, false
	}
	head := s
	if len(head) > 120 {
		head = head[:120]
	}
	if strings.HasPrefix(head, "data:") {
		if i := strings.Index(head, ";base64,"); i > 0 {
			info.Kind, info.Encoding = kindDataURI, "data-uri (base64)"
			info.MediaType = head[len("data:"):i]
			info.ApproxBytes = (len(s) - i - len(";base64,")) * 3 / 4
			return info, true
		}
	}
	// Control characters / replacement characters => raw binary in a string.
	ctrl := 0
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\r' && r != '\t') || r == utf8.RuneError {
			ctrl++
		}
	}
	if ctrl > 0 && ctrl*100 >= n {
		info.Kind, info.Encoding, info.ApproxBytes = kindControl, "binary", len(s)
		return info, true
	}
	if n >= hexMinChars {
		allHex, digits, letters := true, false, false
		for _, r := range s {
			switch {
			case r >= '0' && r <= '9':
				digits = true
			case (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'):
				letters = true
			default:
				allHex = false
			}
			if !allHex {
				break
			}
		}
		if allHex && digits && letters {
			info.Kind, info.Encoding, info.ApproxBytes = kindHex, "hex", n/2
			if b, err := hex.DecodeString(s[:min(len(s)&^1, 64)]); err == nil {
				info.MediaType = sniffMedia(b)
			}
			return info, true
		}
	}
	if n >= base64MinChars {
		clean := strings.NewReplacer("\r", "", "\n", "").Replace(s)
		ok := true
		upper, lower, digit := false, false, false
		for _, r := range clean {
			if !isB64Char(r) {
				ok = false
				break
			}
			switch {
			case r >= 'A' && r <= 'Z':
				upper = true
			case r >= 'a' && r <= 'z':
				lower = true
			case r >= '0' && r <= '9':
				digit = true
			}
		}
		// Require a mix of character classes so a long run of one letter or
		// an all-lowercase identifier is not mistaken for an encoding.
		if ok && len(clean) >= base64MinChars && upper && lower && (digit || strings.ContainsAny(clean, "+/=")) {
			info.Kind, info.Encoding, info.ApproxBytes = kindBase64, "base64", len(strings.TrimRight(clean, "="))*3/4
			info.MediaType = sniffMedia(decodeB64Prefix(clean))
			return info, true
		}
	}
	return info, false
}

func decodeB64Prefix(s string) []byte {
	p := s
	if len(p) > 96 {
		p = p[:96]
	}
	p = p[:len(p)&^3]
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(p); err == nil {
			return b
		}
	}
	return nil
}

// sniffMedia recognises a few well-known magic numbers. It returns "" when
// the content is not recognised (the adapter then says "unknown").
func sniffMedia(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	switch {
	case strings.HasPrefix(string(b), "%PDF"):
		return "application/pdf"
	case strings.HasPrefix(string(b), "\x89PNG"):
		return "image/png"
	case b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case strings.HasPrefix(string(b), "GIF8"):
		return "image/gif"
	case strings.HasPrefix(string(b), "PK\x03\x04"):
		return "application/zip"
	case strings.HasPrefix(string(b), "II*\x00") || strings.HasPrefix(string(b), "MM\x00*"):
		return "image/tiff"
	case len(b) >= 12 && strings.HasPrefix(string(b), "RIFF") && string(b[8:12]) == "WEBP":
		return "image/webp"
	case strings.HasPrefix(string(b), "\x1f\x8b"):
		return "application/gzip"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return "video/mp4"
	case strings.HasPrefix(string(b), "ID3") || (b[0] == 0xFF && b[1]&0xE0 == 0xE0):
		return "audio/mpeg"
	case strings.HasPrefix(string(b), "OggS"):
		return "audio/ogg"
	}
	return ""
}

// describeBinary renders binary metadata for model-visible text.
func describeBinary(bi binaryInfo) string {
	mt := bi.MediaType
	if mt == "" {
		mt = "media type unknown"
	}
	return fmt.Sprintf("[binary-like %s content, %d chars ≈ %s, %s — not inlined]", bi.Encoding, bi.Chars, humanBytes(int64(bi.ApproxBytes)), mt)
}

func humanBytes(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// blobRef describes an object that references a stored blob.
type blobRef struct {
	BlobID    string
	MimeType  string
	Size      int64
	HasSize   bool
	SHA256    string
	FetchURL  string
	Filename  string
	IsBlobRef bool
}

// asBlobRef recognises {blob_id, mime_type?, size_bytes?, sha256?, fetch_url?}.
func asBlobRef(v any) (blobRef, bool) {
	o, ok := v.(*ojson.Object)
	if !ok {
		return blobRef{}, false
	}
	id := o.Str("blob_id")
	if id == "" {
		return blobRef{}, false
	}
	br := blobRef{BlobID: id, MimeType: o.Str("mime_type"), SHA256: o.Str("sha256"), FetchURL: o.Str("fetch_url"), IsBlobRef: true}
	if br.MimeType == "" {
		br.MimeType = o.Str("content_type")
	}
	if n, ok := o.Int("size_bytes"); ok {
		br.Size, br.HasSize = n, true
	}
	br.Filename = o.Str("filename")
	return br, true
}

// exportable reports whether the RS advertised a grant-scoped fetch route
// (fetch_url) for this blob; only then is an export continuation offered.
func (b blobRef) exportable() bool { return b.FetchURL != "" }

func (b blobRef) route() string {
	if b.FetchURL != "" && strings.HasPrefix(b.FetchURL, "/") {
		return b.FetchURL
	}
	return "/v1/blobs/" + escapeComponent(b.BlobID)
}

func (b blobRef) describe() string {
	parts := []string{"blob " + b.BlobID}
	if b.MimeType != "" {
		parts = append(parts, b.MimeType)
	}
	if b.HasSize {
		parts = append(parts, humanBytes(b.Size))
	}
	if b.SHA256 != "" {
		sh := b.SHA256
		if len(sh) > 16 {
			sh = sh[:16] + "…"
		}
		parts = append(parts, "sha256 "+sh)
	}
	return "[" + strings.Join(parts, ", ") + " — metadata only]"
}

// ---------------------------------------------------------------------------
// Highlight handling: the RS marks matches with <mark>…</mark>. The adapter
// keeps tags balanced when it shortens a snippet and never emits
// punctuation sentinels.

type markedText struct {
	runes  []rune
	marked []bool
}

func parseMarks(s string) markedText {
	var mt markedText
	in := false
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "<mark>"):
			in = true
			s = s[len("<mark>"):]
			continue
		case strings.HasPrefix(s, "</mark>"):
			in = false
			s = s[len("</mark>"):]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		// Drop control-character sentinels some snippet engines use.
		if r < 0x20 && r != '\n' && r != '\t' {
			continue
		}
		mt.runes = append(mt.runes, r)
		mt.marked = append(mt.marked, in)
	}
	return mt
}

func (mt markedText) render(start, end int) string {
	var b strings.Builder
	in := false
	for i := start; i < end && i < len(mt.runes); i++ {
		if mt.marked[i] && !in {
			b.WriteString("<mark>")
			in = true
		} else if !mt.marked[i] && in {
			b.WriteString("</mark>")
			in = false
		}
		b.WriteRune(mt.runes[i])
	}
	if in {
		b.WriteString("</mark>")
	}
	return b.String()
}

func (mt markedText) firstMark() int {
	for i, m := range mt.marked {
		if m {
			return i
		}
	}
	return -1
}

func (mt markedText) hasMark() bool { return mt.firstMark() >= 0 }

// firstMarkedTerm returns the text of the first highlighted run.
func (mt markedText) firstMarkedTerm() string {
	i := mt.firstMark()
	if i < 0 {
		return ""
	}
	j := i
	for j < len(mt.runes) && mt.marked[j] {
		j++
	}
	return strings.TrimSpace(string(mt.runes[i:j]))
}

// plain returns the text without tags.
func (mt markedText) plain() string { return string(mt.runes) }

// boundMarked shortens a highlighted snippet to about max characters,
// keeping surrounding context around the first highlight and balanced tags.
func boundMarked(s string, max int) string {
	mt := parseMarks(s)
	n := len(mt.runes)
	if n <= max {
		return mt.render(0, n)
	}
	m := mt.firstMark()
	if m < 0 {
		m = 0
	}
	start := m - max/3
	if start < 0 {
		start = 0
	}
	end := start + max
	if end > n {
		end = n
		start = max0(end - max)
	}
	// Snap to word boundaries without losing the first highlight.
	if start > 0 {
		for k := start; k < m && k < start+20; k++ {
			if unicode.IsSpace(mt.runes[k]) {
				start = k + 1
				break
			}
		}
	}
	if end < n {
		for k := end - 1; k > end-20 && k > m; k-- {
			if unicode.IsSpace(mt.runes[k]) && !mt.marked[k] {
				end = k
				break
			}
		}
	}
	out := mt.render(start, end)
	if start > 0 && !strings.HasPrefix(out, "…") {
		out = "…" + out
	}
	if end < n && !strings.HasSuffix(out, "…") {
		out += "…"
	}
	return out
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// oneLine collapses whitespace runs so previews stay on one line.
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}
