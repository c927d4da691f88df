package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// Every token mcpcheck is lent stays out of every report, even when the
// target fails checks and echoes a bearer back in its errors.
func TestTokensNeverAppearInReports(t *testing.T) {
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	rsURL, shutdown, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	secrets := map[string]string{"token": rs.ClientToken(), "owner": rs.OwnerToken(), "expired": rs.ExpiredToken(), "foreign": rs.ForeignResourceToken()}
	dir := t.TempDir()
	for name, tok := range secrets {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{"echo-bearer-in-errors", "accept-owner-bearer"} {
		t.Run(m, func(t *testing.T) {
			a, err := reference.New(m)
			if err != nil {
				t.Fatal(err)
			}
			h, err := a.Handler(rsURL, http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			junit, js := filepath.Join(dir, m+".xml"), filepath.Join(dir, m+".json")
			code, out, stderr := run(t, nil, "--url", srv.URL+a.MCPPath(), "--token-file", filepath.Join(dir, "token"),
				"--owner-token-file", filepath.Join(dir, "owner"), "--expired-token-file", filepath.Join(dir, "expired"),
				"--foreign-token-file", filepath.Join(dir, "foreign"), "--junit", junit, "--json", js, "--strict") // U15 (the echo) is recommended
			if code != conformance.ExitFail {
				t.Fatalf("exit %d, want %d (the mutant fails checks)\n%s\n%s", code, conformance.ExitFail, out, stderr)
			}
			outputs := map[string]string{"text": out, "stderr": stderr}
			for _, f := range []string{junit, js} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				outputs[filepath.Ext(f)] = string(b)
			}
			if m == "echo-bearer-in-errors" && !strings.Contains(outputs[".json"], "[redacted]") {
				t.Errorf("the echoed bearer should show as [redacted] in the JSON report: the test would not see a leak")
			}
			for where, text := range outputs {
				for name, tok := range secrets {
					if strings.Contains(text, tok) {
						t.Errorf("the %s output holds the %s token", where, name)
					}
				}
			}
		})
	}
}

// secretForms are the forms of secret no output may hold, compared without
// case: each of hostile.Encodings, where base64 is the part of the encoding
// that depends on the secret alone at each alignment (the edges mix in
// neighbouring bytes, so they cannot be matched, and give away a byte or two).
func secretForms(secret string) []string {
	forms := []string{secret}
	for _, e := range hostile.Encodings(secret) {
		if _, err := base64.StdEncoding.DecodeString(e); err == nil {
			continue
		}
		if _, err := base64.RawURLEncoding.DecodeString(e); err == nil {
			continue
		}
		forms = append(forms, e, strings.ReplaceAll(e, `\`, `\\`)) // and as a quoted string shows it
	}
	return append(forms, base64Middles(secret)...)
}

func base64Middles(secret string) []string {
	var out []string
	for align := range 3 {
		skip := (3 - align) % 3
		mid := []byte(secret[skip : skip+(len(secret)-skip)/3*3])
		out = append(out, base64.StdEncoding.EncodeToString(mid), base64.URLEncoding.EncodeToString(mid))
	}
	return out
}

var escapedChar = regexp.MustCompile(`\\+[uU]00([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})`)

// leaks lists how text gives secret away: one of its forms whole, or, read
// as a reader would (escapes decoded), any 12 characters of it or of its
// base64, as a message clipped mid-token or a token split in two would.
func leaks(text, secret string) []string {
	var out []string
	lower := strings.ToLower(text)
	for _, f := range secretForms(secret) {
		if strings.Contains(lower, strings.ToLower(f)) {
			out = append(out, fmt.Sprintf("%q", f))
		}
	}
	decoded := strings.ToLower(escapedChar.ReplaceAllStringFunc(text, func(m string) string {
		b, _ := hex.DecodeString(m[len(m)-2:])
		return string(b)
	}))
	for _, f := range append([]string{secret}, base64Middles(secret)...) {
		f = strings.ToLower(f)
		for k, n := 0, min(12, len(f)); k+n <= len(f); k++ {
			if strings.Contains(decoded, f[k:k+n]) {
				out = append(out, fmt.Sprintf("12 characters %q of %q", f[k:k+n], f))
				break
			}
		}
	}
	return out
}

// decodedStrings is every string (and key) in a JSON or XML document,
// decoded, one per line: what a reader of the document sees.
func decodedStrings(t *testing.T, name string, data []byte) string {
	var b strings.Builder
	if strings.HasSuffix(name, ".xml") {
		dec := xml.NewDecoder(bytes.NewReader(data))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch v := tok.(type) {
			case xml.CharData:
				b.Write(v)
				b.WriteByte('\n')
			case xml.StartElement:
				for _, a := range v.Attr {
					b.WriteString(a.Value + "\n")
				}
			}
		}
		return b.String()
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	walk(v)
	return b.String()
}

// A target that echoes every token mcpcheck lends, in every encoding, in
// its tool names and descriptions, instructions and results, gets none of
// them printed: not in stdout or stderr, the JSON or JUnit report, the
// goldens --update-golden writes, or `mcpcheck footprint`.
func TestEncodedTokensNeverAppear(t *testing.T) {
	t.Setenv("CI", "") // --update-golden is refused under CI
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fx, err := conformance.LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	rsURL, shutdown, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	control, err := rs.EnableControl()
	if err != nil {
		t.Fatal(err)
	}
	// High-entropy, as bearer tokens are: every 12 characters of one are
	// secret (a token's words may be printed; conformance/redact tests that).
	lent := map[string]string{"token": "7fQ3a9Kc21e4XmZ0b8Wd5Lr2Tn", "owner": "51bEe0d9a7cR4kP8sV2yH6uJ0q", "expired": "2c8N4f1e0b6T9gY3hM5xA7wZ1v",
		"foreign": "9d0G7a3c5e8B2nF6jK4pQ1rS3t", "control": control}
	secrets := map[string]string{"rs client": rs.ClientToken(), "rs owner": rs.OwnerToken(), "rs expired": rs.ExpiredToken()}
	dir := t.TempDir()
	var echo []string
	for name, tok := range lent {
		secrets[name] = tok
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tok := range secrets {
		echo = append(echo, tok)
	}
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.TokenEcho, Secrets: echo})
	defer srv.Close()
	url := []string{"--url", srv.URL + "/mcp", "--timeout", "3s", "--token-file", filepath.Join(dir, "token"),
		"--owner-token-file", filepath.Join(dir, "owner"), "--expired-token-file", filepath.Join(dir, "expired"),
		"--foreign-token-file", filepath.Join(dir, "foreign"),
		"--rs-control", rsURL + fakers.ControlPrefix, "--rs-control-token-file", filepath.Join(dir, "control")}
	stdio := []string{"--stdio", self, "--env", hostile.Env + "=" + hostile.TokenEcho, "--timeout", "3s"}
	stdioSecrets := map[string]string{"fixture client": rs.ClientToken()} // mcpcheck's own fixture serves the same tokens
	for _, tc := range []struct {
		name    string
		args    []string
		secrets map[string]string
	}{
		{"run url", url, secrets},
		{"footprint url", append([]string{"footprint"}, url...), secrets},
		{"run stdio", stdio, stdioSecrets},
		{"footprint stdio", append([]string{"footprint"}, stdio...), stdioSecrets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := tc.args
			if !strings.HasPrefix(tc.name, "footprint") {
				args = append(append([]string(nil), args...), "--junit", filepath.Join(out, "junit.xml"), "--json", filepath.Join(out, "report.json"),
					"--golden-dir", filepath.Join(out, "golden"), "--update-golden")
			}
			_, stdout, stderr := run(t, nil, args...)
			if !strings.Contains(stdout, "[redacted]") {
				t.Errorf("stdout shows no [redacted]: the test would not see a leak\n%s", stdout)
			}
			outputs := map[string]string{"stdout": stdout, "stderr": stderr}
			files, _ := filepath.Glob(filepath.Join(out, "*.*"))
			goldens, _ := filepath.Glob(filepath.Join(out, "golden", "*"))
			if !strings.HasPrefix(tc.name, "footprint") && (len(files) != 2 || len(goldens) == 0) {
				t.Errorf("reports %q and goldens %q: some were not written", files, goldens)
			}
			for _, f := range append(files, goldens...) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				outputs[filepath.Base(f)] = string(data)
				outputs[filepath.Base(f)+" (decoded)"] = decodedStrings(t, f, data)
			}
			for where, text := range outputs {
				for name, tok := range tc.secrets {
					for _, leak := range leaks(text, tok) {
						t.Errorf("%s holds the %s token: %s", where, name, leak)
					}
				}
			}
		})
	}
}
