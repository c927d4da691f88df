package checks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
)

// U13: a request to /mcp with no bearer, a malformed one, or one its RS
// refuses gets "HTTP 401 with a Bearer resource_metadata challenge whose
// document names the /mcp resource" (and the same URL in the JSON error
// body), and "the RS serves nothing for the request beyond the adapter's
// own bearer check" (nor is the request processed as MCP).
var u13 = &Check{ID: "U13", Slug: "bearer-challenge", Mode: ModeHOST, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	unknown := "mcpcheck-unknown-" + hex.EncodeToString(b[:])
	type authCase struct{ what, authorization, token string }
	cases := []authCase{
		{"no bearer", "", ""},
		{"a Basic credential", "Basic bWNwY2hlY2s6cHJvYmU=", ""},
		{"an empty bearer", "Bearer ", ""},
		{"an unknown token", "Bearer " + unknown, unknown},
	}
	var notTried []string
	for _, c := range []struct{ what, token, flag string }{
		{"an expired grant", t.Target.ExpiredToken, "--expired-token-file"},
		{"a token for another resource", t.Target.ForeignToken, "--foreign-token-file"},
	} {
		if c.token == "" {
			notTried = append(notTried, c.what+" (pass "+c.flag+")")
			continue
		}
		cases = append(cases, authCase{c.what, "Bearer " + c.token, c.token})
	}
	if len(notTried) > 0 {
		t.Record("not tried", strings.Join(notTried, "; "))
	}
	documents := map[string]httpAnswer{} // metadata URL -> its document
cases:
	for _, c := range cases {
		for _, body := range rejectedBodies {
			a := hostedDo(t.Context(), "POST", t.Hosted().MCPURL(), c.authorization, body, nil)
			if errors.Is(a.Err, context.DeadlineExceeded) {
				// A target that holds one refused request holds the next: judge
				// that once rather than waiting out every case.
				t.Clause(1, func() { t.Fail("a request with %s got no answer within %s", c.what, hostedTimeout) })
				break cases
			}
			t.Clause(1, func() {
				if !t.Assert(a.Err == nil && a.Status == 401, "a request with %s must get HTTP 401: HTTP %d %v", c.what, a.Status, a.Err) {
					return
				}
				m := resourceMetadataRe.FindStringSubmatch(a.Header.Get("WWW-Authenticate"))
				if !t.Assert(m != nil, "401 for %s must carry WWW-Authenticate: Bearer resource_metadata=…; got %q", c.what, a.Header.Get("WWW-Authenticate")) {
					return
				}
				e, _ := a.JSON()["error"].(map[string]any)
				t.Assert(str(e["resource_metadata"]) == m[1], "the error body must name the same metadata URL (%s) for %s: %s", m[1], c.what, clipText(string(a.Body), 200))
				doc, seen := documents[m[1]]
				if !seen {
					doc = hostedDo(t.Context(), "GET", m[1], "", nil, nil)
					documents[m[1]] = doc
				}
				t.Assert(doc.Status == 200 && str(doc.JSON()["resource"]) == t.Hosted().MCPURL(),
					"the challenge's metadata (%s) must name the /mcp resource %s: HTTP %d %s", m[1], t.Hosted().MCPURL(), doc.Status, clipText(string(doc.Body), 200))
			})
			t.Clause(2, func() {
				t.Assert(!isJSONRPC(a.Body), "a request with %s must not be processed as MCP: %s", c.what, clipText(string(a.Body), 200))
			})
		}
		if t.Target.Has(CapControlledRS) && c.token != "" {
			t.Clause(2, func() {
				n := rsDataRequests(t, c.token)
				t.Assert(n == 0, "the RS must serve no request but the bearer check for a request with %s (it served %d)", c.what, n)
			})
		}
	}
}}
