package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

const secret = "Sk-Live_4f9A/b+c=Z"

// forms a hostile target could print secret in, each inside other text.
func forms() map[string]string { return encodings(secret) }

// encodings a hostile target could print secret in, each inside other text.
func encodings(secret string) map[string]string {
	out := map[string]string{
		"verbatim":   secret,
		"upper":      strings.ToUpper(secret),
		"lower":      strings.ToLower(secret),
		"query":      url.QueryEscape(secret),
		"path":       url.PathEscape(secret),
		"json short": strings.ReplaceAll(secret, "/", `\/`),
	}
	var u, uu, mix, pct, pmix strings.Builder
	for i, c := range []byte(secret) {
		fmt.Fprintf(&u, `\u%04x`, c)
		fmt.Fprintf(&uu, `\u%04X`, c)
		fmt.Fprintf(&pct, "%%%02X", c)
		if i%3 == 0 {
			fmt.Fprintf(&mix, `\u%04x`, c)
			fmt.Fprintf(&pmix, "%%%02x", c)
		} else {
			mix.WriteByte(c)
			pmix.WriteByte(c)
		}
	}
	out["\\u all"], out["\\U hex upper"], out["\\u mix"], out["% all"], out["% mix"] = u.String(), uu.String(), mix.String(), pct.String(), pmix.String()
	if secret == "Sk-Live_4f9A/b+c=Z" {
		out["\\u and % mix"] = `\u0053k%2dLive_4f9A/b+c=Z`
	}
	out["\\u quoted again"] = strings.ReplaceAll(u.String(), `\`, `\\`)
	for pad := range 3 {
		data := []byte(strings.Repeat("x", pad) + secret + "yz")
		out[fmt.Sprintf("base64 std, %d before", pad)] = base64.StdEncoding.EncodeToString(data)
		out[fmt.Sprintf("base64 raw url, %d before", pad)] = base64.RawURLEncoding.EncodeToString(data)
		out[fmt.Sprintf("base64 in a longer one, %d before", pad)] = base64.StdEncoding.EncodeToString([]byte("Bearer " + strings.Repeat("x", pad) + secret))
	}
	return out
}

func TestEveryFormIsRedacted(t *testing.T) {
	r := New(secret)
	for name, f := range forms() {
		in := "before " + f + " after"
		got := r.String(in)
		if !strings.Contains(got, Replacement) || !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: %q became %q", name, in, got)
		}
		if strings.Contains(strings.ToLower(got), "live_4f9a") {
			t.Errorf("%s: %q still holds the secret", name, got)
		}
	}
}

// A secret is redacted whole, even when another secret is its prefix;
// a short one only verbatim, so ordinary words survive.
func TestLongestFirstAndShortSecrets(t *testing.T) {
	r := New("pdpp_default_client", "pdpp_default_client_expired", "tok")
	for in, want := range map[string]string{
		"a pdpp_default_client_expired b": "a [redacted] b",
		"a PDPP_DEFAULT_CLIENT, b":        "a [redacted], b",
		"o200k tokens for tok and TOK":    "o200k tokens for [redacted] and TOK",
		"Bearer tok, tok-en, tok":         "Bearer [redacted], tok-en, [redacted]",
		"nothing here":                    "nothing here",
	} {
		if got := r.String(in); got != want {
			t.Errorf("%q became %q, want %q", in, got, want)
		}
	}
}

// Any 12 characters of a secret's high-entropy runs are redacted: a
// message clipped in the middle of a token, or a token split across two
// fields, gives none of its secret part away. Its words are ordinary text.
func TestPartsOfASecret(t *testing.T) {
	r := New("Mcpcheck-Client-7f3a9c21e4d5b8a06e")
	for in, want := range map[string]string{
		"clipped: Mcpcheck-Client-7f3a9c21e4d5…":            "clipped: Mcpcheck-Client[redacted]…",
		"clipped: Mcpcheck-Client-7f…":                      "clipped: Mcpcheck-Client-7f…",
		"head 9c21e4d5, tail":                               "head 9c21e4d5, tail",
		"split: Mcpcheck-Client-7f3a9c21e4d5 | b8a06e":      "split: Mcpcheck-Client[redacted] | b8a06e",
		"split: Mcpcheck-Clie | nt-7f3a9c21e4d5b8a06e":      "split: Mcpcheck-Clie | nt[redacted]",
		`quoted: \\u004dcpcheck-client-7f3a9c21e4d5 and on`: `quoted: \\u004dcpcheck-client[redacted] and on`,
		"the mcpcheck client, 7f3a9c21e4d":                  "the mcpcheck client, 7f3a9c21e4d",
	} {
		if got := r.String(in); got != want {
			t.Errorf("%q became %q, want %q", in, got, want)
		}
	}
}

// A token that shares words with the report (as "pdpp_split_connections_…"
// did) blanks none of them: field names, stream names and handles in a
// failure message survive, as does an RS cursor (base64 JSON) that spells
// a shared word, while every form of the token, whole, clipped in its
// high-entropy run, base64 cut short, or split by invisible characters,
// is redacted. A high-entropy token (the fixture's) is redacted in every
// 12 characters of it.
func TestWordsSharedWithASecretSurvive(t *testing.T) {
	const (
		wordy = "pdpp_split_connections_client_Q7x2Kp9Lm4Vb8Rt3"
		body  = "q7x2kp9lm4vb8rt3" // its high-entropy run, lower-cased
		fixed = "d3K9qLx27VbN0pRt5wYc8ZmA1sFh6JgE"
	)
	r := New(wordy, fixed)
	cursor := base64.StdEncoding.EncodeToString([]byte(`{"after":"available_connections","of":"pdpp_split_connections_client"}`))
	report := "S017.3 failed: stream messages lists available_connections [gmail_primary] under split_connections; " +
		"schema(stream=messages, connection_id=pdpp_split_connections_client) → handle pdpp_split_connections/records/r_0001; " +
		"next_cursor=" + cursor + "; client_id=pdpp_client; connections_client: 2"
	if got := r.String(report); got != report {
		t.Errorf("ordinary text changed:\n%s\nbecame\n%s", report, got)
	}
	v := &struct{ Fields []string }{[]string{"available_connections", "granted_connections", "_connections", "split_connections_client", "Q7x2Kp9"}}
	r.Value(v)
	if strings.Contains(strings.Join(v.Fields, " "), Replacement) {
		t.Errorf("field names were redacted: %q", v.Fields)
	}
	long := base64.StdEncoding.EncodeToString([]byte("Bearer " + wordy))
	for name, f := range map[string]string{
		"clipped in its run":   wordy[:43] + "…",
		"split by invisibles":  wordy[:33] + "\u200b" + wordy[33:],
		"base64, cut short":    long[:len(long)-2],
		"fixture, clipped":     fixed[:14] + "…",
		"fixture, split":       fixed[:13] + " | " + fixed[13:],
		"fixture, base64 part": base64.StdEncoding.EncodeToString([]byte(fixed))[4:20],
	} {
		got := strings.ToLower(r.String("before " + f + " after"))
		if !strings.Contains(got, "[redacted]") || strings.Contains(got, body[:12]) {
			t.Errorf("%s: %q became %q", name, f, got)
		}
	}
	for _, secret := range []string{wordy, fixed} {
		for name, f := range encodings(secret) {
			got := r.String("before " + f + " after")
			if !strings.Contains(got, Replacement) || strings.Contains(strings.ToLower(got), strings.ToLower(secret[len(secret)-12:])) {
				t.Errorf("%s of %s: %q became %q", name, secret, f, got)
			}
		}
	}
}

func TestNilAndEmpty(t *testing.T) {
	var r *Redactor
	if r.String("x") != "x" || string(r.Bytes([]byte("x"))) != "x" {
		t.Error("a nil Redactor changed its input")
	}
	r.Value(&struct{ S string }{"x"})
	if New("").String("anything") != "anything" {
		t.Error("an empty secret redacted something")
	}
}

type inner struct{ Name string }

type report struct {
	Title   string
	Rows    []inner
	Ptr     *inner
	Tree    any
	ByName  map[string]inner
	private string
}

func TestValueRedactsEveryReachableString(t *testing.T) {
	r := New(secret)
	v := &report{
		Title:   "t " + secret,
		Rows:    []inner{{secret}, {"ok"}},
		Ptr:     &inner{strings.ToUpper(secret)},
		Tree:    map[string]any{"k" + secret: []any{"v" + secret, 1.5, map[string]any{"deep": secret}}},
		ByName:  map[string]inner{secret: {secret}},
		private: secret,
	}
	r.Value(v)
	if v.private != secret {
		t.Error("an unexported field changed")
	}
	v.private = ""
	got := fmt.Sprintf("%+v %+v", *v, *v.Ptr)
	if strings.Contains(strings.ToLower(got), strings.ToLower(secret)) {
		t.Errorf("a string kept the secret: %s", got)
	}
	if v.Title != "t "+Replacement || v.Rows[1].Name != "ok" {
		t.Errorf("redacted wrongly: %+v", v)
	}
}

// A long run of backslashes or percent signs costs linear time.
func TestLongRunsStayLinear(t *testing.T) {
	r := New(secret)
	for _, c := range []string{`\`, `%`, `\u00`} {
		in := strings.Repeat(c, 1<<20) + secret
		start := time.Now()
		if got := r.String(in); !strings.HasSuffix(got, Replacement) {
			t.Errorf("%q run: the secret after it survived", c)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%q run of 1 MiB took %s", c, took)
		}
	}
}

// A token split by invisible characters, raw or as the \u escapes termsafe
// writes, into pieces each shorter than the window is still redacted.
func TestTokenSplitByInvisibleCharacters(t *testing.T) {
	const token = "Zq7-Tok3n_Xy9Lm2Pw4" // 19 characters
	r := New(token)
	for _, sep := range []string{"\u200b", "\u200c\u200d", "\u2060", "\ufeff", "\u202e", "\u2066\u2069", "\u200e", "\u061c", "\u0085",
		`\u200b`, `\u202E`, `\\u200b`, `\U000e0041`, "\u200b" + `\u200d`} {
		for _, cut := range []int{1, 9, 10, 18} {
			in := "before " + token[:cut] + sep + token[cut:] + " after"
			got := r.String(in)
			if got != "before [redacted] after" {
				t.Errorf("split at %d by %q: %q became %q", cut, sep, in, got)
			}
		}
	}
	every := ""
	for _, c := range token {
		every += string(c) + "\u200b"
	}
	if got := r.String(every); strings.Contains(got, "Tok3n") || !strings.Contains(got, Replacement) {
		t.Errorf("a character between every two: %q became %q", every, got)
	}
	// Invisible characters elsewhere, and visible ones, change nothing.
	for _, in := range []string{"zero\u200bwidth", `\u200b\u202e`, "Zq7-Tok3n\u00e9_Xy9Lm2Pw4"} {
		if got := r.String(in); got != in {
			t.Errorf("%q became %q", in, got)
		}
	}
}
