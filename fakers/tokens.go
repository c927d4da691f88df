package fakers

import (
	"crypto/rand"
	"crypto/sha256"
	"strconv"
	"strings"
)

// tokenLen is the length of every token the fixture hands out: 32
// characters of base62, about 190 bits.
const tokenLen = 32

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// derivedToken is the fixture's bearer token for one role: the same for
// the same fixture name and role on every run (tests and goldens compare
// runs), but high-entropy, with no words in it, so that mcpcheck's
// redactor blanks only the token, never a field name that shares a word
// with it (a "split-connections" token once blanked `_connections`).
func derivedToken(fixture, role string) string {
	for i := 0; ; i++ {
		sum := sha256.Sum256([]byte("mcpcheck fixture token\x00" + fixture + "\x00" + role + "\x00" + strconv.Itoa(i)))
		if t := base62Token(sum[:]); mixedAlphanumeric(t) {
			return t
		}
	}
}

// randomToken is a fresh high-entropy token, for the control plane.
func randomToken() (string, error) {
	for {
		var b [tokenLen]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		if t := base62Token(b[:]); mixedAlphanumeric(t) {
			return t, nil
		}
	}
}

// base62Token spells tokenLen bytes in base62 (the slight modulo bias
// costs well under a bit).
func base62Token(b []byte) string {
	var out strings.Builder
	for _, c := range b[:tokenLen] {
		out.WriteByte(base62[int(c)%len(base62)])
	}
	return out.String()
}

// mixedAlphanumeric reports whether t holds both letters and digits: what
// a redactor takes for a secret's high-entropy run.
func mixedAlphanumeric(t string) bool {
	return strings.ContainsAny(t, "0123456789") && strings.IndexFunc(t, func(r rune) bool { return 'a' <= r|0x20 && r|0x20 <= 'z' }) >= 0
}
