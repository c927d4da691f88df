package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseRecordID(t *testing.T) {
	ok := []struct{ id, conn, want string }{
		{"cin_a/messages:m1", "", "cin_a/messages:m1"},
		{"messages:m1", "", "messages:m1"},
		{"messages:m1", "cin_a", "cin_a/messages:m1"},
		{"cin_a/messages:m1", "cin_a", "cin_a/messages:m1"},
		{"messages:urn:x:1", "", "messages:urn:x:1"},
	}
	for _, tc := range ok {
		ref, err := parseRecordID(tc.id, tc.conn)
		if err != nil || (PathIDs{}).Format(ref) != tc.want {
			t.Errorf("parseRecordID(%q, %q) = %v, %v; want %s", tc.id, tc.conn, ref, err, tc.want)
		}
	}
	bad := []struct{ id, conn, code string }{
		{"cin/", "", "invalid_id"},
		{"/orders:o1", "", "invalid_id"},
		{"cin/orders", "", "invalid_id"},
		{"cin/extra/orders:o1", "", "invalid_id"},
		{"../orders:o1", "", "invalid_id"},
		{"orders:../../etc/passwd", "", "invalid_id"},
		{"orders:%2e%2e", "", "invalid_id"},
		{"orders:%252e%252e%252f", "", "invalid_id"},
		{"orders:%2e%2e%2f%zz", "", "invalid_id"}, // a malformed escape must not stop decoding
		{"0:%0%2f", "0", "invalid_id"},
		{"orders:%2525252525", "", "invalid_id"}, // more layers than checkSegment undoes
		{`orders:a\b`, "", "invalid_id"},
		{"orders:", "", "invalid_id"},
		{":o1", "", "invalid_id"},
		{"a/orders:o1", "b", "conflicting_connection_id"},
		{"orders:o1", "../x", "invalid_connection_id"},
	}
	for _, tc := range bad {
		_, err := parseRecordID(tc.id, tc.conn)
		te, _ := err.(*toolError)
		if te == nil || te.Code != tc.code {
			t.Errorf("parseRecordID(%q, %q) = %v; want %s", tc.id, tc.conn, err, tc.code)
		}
	}
}

func TestEncodeFilter(t *testing.T) {
	q := url.Values{}
	err := encodeFilter(q, json.RawMessage(`{"label":"inbox","size":1.50,"sent_at":{"gte":"2026-01-01","lt":"2026-02-01"},"flagged":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "filter%5Bflagged%5D=true&filter%5Blabel%5D=inbox&filter%5Bsent_at%5D%5Bgte%5D=2026-01-01&filter%5Bsent_at%5D%5Blt%5D=2026-02-01&filter%5Bsize%5D=1.50"
	if got := q.Encode(); got != want {
		t.Errorf("encoded %s\nwant    %s", got, want)
	}
	for name, f := range map[string]string{
		"string":        `"filter[a]=1"`,
		"empty object":  `{}`,
		"bracket key":   `{"a[b]":"x"}`,
		"empty range":   `{"a":{}}`,
		"unknown op":    `{"a":{"between":5}}`,
		"array value":   `{"a":[1,2]}`,
		"null value":    `{"a":null}`,
		"nested object": `{"a":{"gte":{"x":1}}}`,
	} {
		q := url.Values{}
		err := encodeFilter(q, json.RawMessage(f))
		te, _ := err.(*toolError)
		if te == nil || te.Code != "invalid_filter" {
			t.Errorf("%s: err %v, want invalid_filter", name, err)
		}
		if strings.Contains(q.Encode(), "filter=") {
			t.Errorf("%s: forwarded a bare filter=", name)
		}
	}
}

func TestClipMarkedStaysBalanced(t *testing.T) {
	s := "alpha <mark>beta</mark> gamma <mark>delta epsilon</mark> zeta"
	for n := 2; n <= len([]rune(s))+1; n++ {
		got := testCut.clipMarked(s, n)
		if strings.Count(got, "<mark>") != strings.Count(got, "</mark>") {
			t.Fatalf("testCut.clipMarked(%d) = %q: unbalanced", n, got)
		}
		if i := strings.LastIndexByte(got, '<'); i >= 0 && !strings.Contains(got[i:], ">") {
			t.Fatalf("testCut.clipMarked(%d) = %q: half a tag", n, got)
		}
	}
}

// The highlight invariant (seed 001) holds for any snippet and any cut:
// generated snippets mix words, multibyte text and tags, well formed or
// not, and every truncation point keeps the tags balanced.
func TestClipMarkedPropertyHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	pieces := []string{"alpha", "beta", "γάμμα", "数据", " ", " ", "<mark>", "</mark>", "<mark>", "</mark>", "<", ">", "<ma", "rk>", "…", "!"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j := rng.IntN(40); j >= 0; j-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		n := 2 + rng.IntN(len([]rune(s))+4)
		got := testCut.clipMarked(s, n)
		if !marksAlreadyBalanced(got) {
			t.Fatalf("testCut.clipMarked(%q, %d) = %q: highlight tags not well formed", s, n, got)
		}
		if plain := strings.NewReplacer("<mark>", "", "</mark>", "", "&lt;", "<").Replace(got); len([]rune(plain)) > n+1 {
			t.Fatalf("testCut.clipMarked(%q, %d) = %q: longer than the cut", s, n, got)
		}
		if got := testCut.centerMarked(s, n); !marksAlreadyBalanced(got) {
			t.Fatalf("testCut.centerMarked(%q, %d) = %q: highlight tags not well formed", s, n, got)
		}
		if fast, slow := balanceMarks(s), rewriteMarks(s); fast != slow || !marksAlreadyBalanced(slow) {
			t.Fatalf("balanceMarks(%q) = %q, rewritten %q", s, fast, slow)
		}
	}
}

// Search text stays within its budget for any mix of connections, cursor
// and query lengths, and whatever it drops, it drops whole lines: every line
// keeps balanced highlight tags, the text is valid UTF-8 and the closing
// guidance is whole.
func TestRenderSearchFitsWithoutCuttingTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	word := func(n int) string {
		pieces := []string{"ab", "xy", "数据", "_", "-", "9"}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	snippet := func() string {
		pieces := []string{"alpha ", "γάμμα ", "数据 ", "<mark>", "</mark>", "<mark>budget</mark> ", "words ", "<ma", "rk>"}
		var b strings.Builder
		for j := rng.IntN(60); j >= 0; j-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	const tail = "\nFetch a hit with `fetch` using its id as-is (ids are self-contained); read an evidence field with `read_record_field` {id, field_path}."
	for i := 0; i < 3000; i++ {
		conns := make([]string, 1+rng.IntN(40))
		for j := range conns {
			conns[j] = word(1 + rng.IntN(90))
		}
		results := make([]searchResult, 1+rng.IntN(100))
		for j := range results {
			c := conns[rng.IntN(len(conns))]
			results[j] = searchResult{ID: c + "/messages:" + word(1+rng.IntN(30)), ConnectionID: c, ConnectorKey: word(1 + rng.IntN(20)),
				Title: word(rng.IntN(120)), Snippet: balanceMarks(snippet())}
			if rng.IntN(2) == 0 {
				results[j].Evidence = []evidenceExcerpt{{FieldPath: "body", PreviewText: balanceMarks(snippet()), PreviewStatus: "truncated"}}
			}
		}
		cursor, q := word(rng.IntN(3000)), word(1+rng.IntN(1500))
		resume := func(n int) string {
			return "search " + compactJSON(map[string]any{"q": q, "cursor": fmt.Sprintf("skip~%d~", n)})
		}
		got := renderSearch(results, searchPage{HasMore: true, NextCursor: cursor, Count: "exact:" + word(1+rng.IntN(30))}, defaultTuning(), resume)
		if len(got) > DefaultTextBudget || !utf8.ValidString(got) || !strings.HasSuffix(got, tail) {
			t.Fatalf("search text is %d B (budget %d), valid UTF-8 %t, guidance whole %t:\n%s", len(got), DefaultTextBudget, utf8.ValidString(got), strings.HasSuffix(got, tail), got)
		}
		for _, line := range strings.Split(got, "\n") {
			if !marksAlreadyBalanced(line) {
				t.Fatalf("a search text line has broken highlight tags: %q", line)
			}
		}
	}
}

// A centred preview keeps the highlight and text on both sides of it.
func TestCenterMarkedKeepsContext(t *testing.T) {
	long := strings.Repeat("lead words before ", 20) + "the <mark>budget</mark> draft" + strings.Repeat(" and trailing words after", 20)
	got := testCut.centerMarked(long, 96)
	if !strings.Contains(got, "<mark>budget</mark>") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Fatalf("centerMarked lost the match or its context: %q", got)
	}
	before, after, _ := strings.Cut(got, "<mark>budget</mark>")
	if len(strings.Fields(before)) < 2 || len(strings.Fields(after)) < 2 {
		t.Errorf("want words on both sides of the match: %q", got)
	}
	for n := 8; n < 120; n++ {
		if got := testCut.centerMarked(long, n); !marksAlreadyBalanced(got) {
			t.Fatalf("testCut.centerMarked(%d) = %q", n, got)
		}
	}
}

func TestMainExitCodesAndStdoutHygiene(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"help", nil, []string{"--help"}, ExitOK, "Usage:"},
		{"short help", nil, []string{"-h"}, ExitOK, "Usage:"},
		{"version", nil, []string{"--version"}, ExitOK, "pdpp-mcp"},
		{"missing provider", nil, nil, ExitUsage, "missing --provider-url"},
		{"bad flag", nil, []string{"--profile", "core"}, ExitUsage, "flag provided but not defined"},
		{"bad url", nil, []string{"--provider-url", "ftp://x"}, ExitUsage, "scheme must be http or https"},
		{"owner token env", map[string]string{"PDPP_OWNER_TOKEN": "own", "PDPP_CLIENT_TOKEN": "c"}, []string{"--provider-url", "http://127.0.0.1:1"}, ExitOwnerToken, "Refusing to start"},
		{"owner cookie env, serve", map[string]string{"PDPP_OWNER_SESSION_COOKIE": "x"}, []string{"serve", "--provider-url", "http://127.0.0.1:1"}, ExitOwnerToken, "Refusing to start"},
		{"no credential", map[string]string{"PDPP_CACHE_ROOT": t.TempDir()}, []string{"--provider-url", "http://127.0.0.1:1"}, ExitCredentials, "not_connected"},
		// The production entry point has no mutant flag at all.
		{"mutant flag", nil, []string{"--mutant", "add-tool-create-event-subscription", "--provider-url", "http://x"}, ExitUsage, "flag provided but not defined: -mutant"},
		{"mutant flag, search", nil, []string{"search", "--mutant", "cli-omit-read-command", "x"}, ExitUsage, "flag provided but not defined: -mutant"},
		{"zero read timeout", nil, []string{"serve", "--read-timeout", "0s", "--provider-url", "http://x"}, ExitUsage, "--read-timeout 0s: want a positive duration"},
		{"negative idle timeout", nil, []string{"serve", "--idle-timeout", "-1s", "--provider-url", "http://x"}, ExitUsage, "--idle-timeout -1s: want a positive duration"},
		{"no connections", nil, []string{"serve", "--max-conns", "0", "--provider-url", "http://x"}, ExitUsage, "--max-conns 0: want 1 or more"},
		{"tiny body cap", nil, []string{"serve", "--max-body", "10", "--provider-url", "http://x"}, ExitUsage, "--max-body 10: want 1024 bytes or more"},
		{"tiny header cap", nil, []string{"serve", "--max-header", "100", "--provider-url", "http://x"}, ExitUsage, "--max-header 100: want 4096 bytes or more"},
		{"negative refusal ttl", nil, []string{"serve", "--refused-bearer-ttl", "-1s", "--provider-url", "http://x"}, ExitUsage, "--refused-bearer-ttl -1s: want a duration of 0 or more"},
		{"help lists the limits", nil, []string{"serve", "--help"}, ExitOK, "--max-conns N"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), tc.args, func(k string) string { return tc.env[k] }, strings.NewReader(""), &out, &errb)
			stdout, stderr := out.String(), errb.String()
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d stderr %q; want %d containing %q", code, stderr, tc.code, tc.stderr)
			}
			if stdout != "" {
				t.Errorf("stdout must carry MCP frames only, got %q", stdout)
			}
			if strings.Contains(stderr, "own") && tc.env["PDPP_OWNER_TOKEN"] == "own" && strings.Contains(stderr, "=own") {
				t.Errorf("stderr echoes the owner credential")
			}
		})
	}
}

func TestLoadTokenFromCache(t *testing.T) {
	root := t.TempDir()
	write := func(cred string) {
		dir := filepath.Join(root, "clients")
		_ = os.MkdirAll(dir, 0o700)
		if err := os.WriteFile(filepath.Join(dir, "127.0.0.1_8080.json"), []byte(`{"credential":`+cred+`}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) string { return "" }
	write(`{"access_token":"tok"}`)
	if tok, _, err := loadToken(none, root, "127.0.0.1:8080"); err != nil || tok != "tok" {
		t.Fatalf("got %q, %v", tok, err)
	}
	write(`{"access_token":"tok","pdpp_token_kind":"Owner"}`)
	if _, code, err := loadToken(none, root, "127.0.0.1:8080"); code != ExitOwnerToken || !strings.Contains(err.Error(), "owner_token_refused") {
		t.Fatalf("owner credential: %d %v", code, err)
	}
	write(`{"access_token":"tok","expires_at":"2020-01-01T00:00:00Z"}`)
	if _, code, err := loadToken(none, root, "127.0.0.1:8080"); code != ExitCredentials || !strings.Contains(err.Error(), "credential_expired") {
		t.Fatalf("expired credential: %d %v", code, err)
	}
	write(`{}`)
	if _, code, _ := loadToken(none, root, "127.0.0.1:8080"); code != ExitCredentials {
		t.Fatalf("empty credential: %d", code)
	}
	env := func(k string) string { return map[string]string{"PDPP_CLIENT_TOKEN": "envtok"}[k] }
	if tok, _, _ := loadToken(env, root, "127.0.0.1:8080"); tok != "envtok" {
		t.Fatalf("PDPP_CLIENT_TOKEN should win, got %q", tok)
	}
}

// testCut cuts text as the adapter does by default.
const testCut ellipsis = "…"

func defaultTuning() *Tuning {
	t := Tuning{}.withDefaults()
	return &t
}
