package adapter

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	json "github.com/segmentio/encoding/json"
)

// DefaultRefusalCacheTTL is how long a refused bearer is refused without
// asking the RS again: long enough to turn a flood of one invented bearer
// into a trickle of RS checks, short enough that nobody waits on it.
const DefaultRefusalCacheTTL = 5 * time.Second

// bearerCacheSize bounds each bearer cache (refusals, acceptances); when
// one is full, expired entries go, then arbitrary ones down to seven
// eighths, so a flood of distinct bearers costs a bounded, amortised
// sweep per store and the cache keeps working past any number of stores.
const bearerCacheSize = 4096

func (a *Adapter) refusalTTL() time.Duration {
	if a.opts.RefusalCacheTTL < 0 {
		return 0 // off
	}
	return orDefault(a.opts.RefusalCacheTTL, DefaultRefusalCacheTTL)
}

// verdictCache remembers what the RS said about bearers, by sha256 of the
// bearer (never the bearer itself), each until its expiry.
type verdictCache struct {
	mu sync.Mutex
	m  map[[32]byte]bearerVerdict
}

func (c *verdictCache) get(key [32]byte) (bearerVerdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if ok && time.Now().After(v.expires) {
		delete(c.m, key)
		ok = false
	}
	return v, ok
}

func (c *verdictCache) put(key [32]byte, v bearerVerdict, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	now := time.Now()
	v.expires = now.Add(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]bearerVerdict{}
	}
	if _, known := c.m[key]; !known && len(c.m) >= bearerCacheSize {
		for k, old := range c.m {
			if now.After(old.expires) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < bearerCacheSize*7/8 {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = v
}

func (c *verdictCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// maxRSMessage caps, in runes, the RS's own words in a 401 body.
const maxRSMessage = 200

// scrubBearer takes the caller's bearer out of an RS message bound for the
// client, in the encodings an RS might echo it in (as is, case-folded,
// base64, URL-encoded, JSON \u-escaped), and caps the message: the RS's
// words are not the adapter's to repeat at any length.
func scrubBearer(msg, token string) string {
	if token != "" {
		for _, form := range bearerForms(token) {
			msg = replaceFold(msg, form, "[redacted]")
		}
		if strings.Contains(lowerASCII(unescapeLoose(msg)), lowerASCII(token)) {
			return "[withheld: the message repeated the bearer]" // escaped in part: no span to cut out
		}
	}
	msg = strings.ToValidUTF8(msg, "")
	if r := []rune(msg); len(r) > maxRSMessage {
		msg = string(r[:maxRSMessage]) + "…"
	}
	return msg
}

// bearerForms are the spellings of token to scrub, longest first, so no
// shorter one breaks up a longer one before it is found.
func bearerForms(token string) []string {
	b := []byte(token)
	var pct, uesc strings.Builder
	for _, c := range b {
		fmt.Fprintf(&pct, "%%%02x", c)
	}
	for _, u := range utf16.Encode([]rune(token)) {
		fmt.Fprintf(&uesc, `\u%04x`, u)
	}
	quoted, _ := json.Marshal(token)
	forms := []string{token, string(quoted[1 : len(quoted)-1]), url.QueryEscape(token), url.PathEscape(token), pct.String(), uesc.String(),
		base64.StdEncoding.EncodeToString(b), base64.URLEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b)}
	slices.SortFunc(forms, func(x, y string) int { return len(y) - len(x) })
	return slices.Compact(forms)
}

// replaceFold replaces old in s, ignoring ASCII case (which also covers
// upper- and lower-case hex in escapes).
func replaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	ls, lo := lowerASCII(s), lowerASCII(old)
	var b strings.Builder
	last := 0
	for {
		i := strings.Index(ls[last:], lo)
		if i < 0 {
			break
		}
		b.WriteString(s[last : last+i])
		b.WriteString(repl)
		last += i + len(lo)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// lowerASCII lowers A-Z only, byte for byte, so offsets stay valid.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// unescapeLoose decodes every %XX and \uXXXX in s, so an echo that escapes
// only some characters of the bearer still shows it.
func unescapeLoose(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+2 < len(s) && isHex(s[i+1:i+3]):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
		case s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u' && isHex(s[i+2:i+6]):
			v, _ := strconv.ParseUint(s[i+2:i+6], 16, 16)
			b.WriteRune(rune(v))
			i += 5
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdefABCDEF") == "" }
