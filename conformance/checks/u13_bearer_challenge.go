package checks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
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
	documents := map[string]metadataDoc{} // metadata URL -> what its document said
cases:
	for _, c := range cases {
		for _, body := range probe.RejectedBodies {
			a := probe.HostedDo(t.Context(), "POST", t.Hosted().MCPURL(), c.authorization, body, nil)
			if errors.Is(a.Err, context.DeadlineExceeded) {
				// A target that holds one refused request holds the next: judge
				// that once rather than waiting out every case.
				t.Clause(1, func() { t.Fail("a request with %s got no answer within %s", c.what, probe.HostedTimeout) })
				break cases
			}
			t.Clause(1, func() {
				if !t.Assert(a.Err == nil && a.Status == 401, "a request with %s must get HTTP 401: HTTP %d %v", c.what, a.Status, a.Err) {
					return
				}
				m := probe.ResourceMetadata.FindStringSubmatch(a.Header.Get("WWW-Authenticate"))
				if !t.Assert(m != nil, "401 for %s must carry WWW-Authenticate: Bearer resource_metadata=…; got %q", c.what, a.Header.Get("WWW-Authenticate")) {
					return
				}
				e, _ := a.JSON()["error"].(map[string]any)
				t.Assert(probe.String(e["resource_metadata"]) == m[1], "the error body must name the same metadata URL (%s) for %s: %s", m[1], c.what, clipText(string(a.Body), 200))
				doc, seen := documents[m[1]]
				if !seen {
					doc = fetchMetadata(t, m[1])
					documents[m[1]] = doc
				}
				if doc.notFetched != "" {
					t.Skipf("the challenge's metadata (%s) was not read: %s", m[1], doc.notFetched)
				}
				t.Assert(doc.resource == t.Hosted().MCPURL(), "the challenge's metadata (%s) must name the /mcp resource %s: %s", m[1], t.Hosted().MCPURL(), doc.outcome)
			})
			t.Clause(2, func() {
				t.Assert(!probe.IsJSONRPC(a.Body), "a request with %s must not be processed as MCP: %s", c.what, clipText(string(a.Body), 200))
			})
		}
		if t.Target.Has(CapControlledRS) && c.token != "" {
			t.Clause(2, func() {
				n := probe.RSDataRequests(t, c.token)
				t.Assert(n == 0, "the RS must serve no request but the bearer check for a request with %s (it served %d)", c.what, n)
			})
		}
	}
}}

// A metadataDoc is what a challenge's metadata document said, never the
// document itself: the target chose the URL, so its answer is not printed.
type metadataDoc struct {
	notFetched string // why it was not read
	resource   string // its resource member
	outcome    string // its status and whether it parsed, for a failure message
}

// fetchMetadata reads the metadata document a challenge names, only on
// the target's own origin and with no redirect off it (probe.HostedClient): a hostile target
// cannot have mcpcheck read, and publish, another URL (a CI runner's
// metadata service, say).
func fetchMetadata(t *T, metaURL string) metadataDoc {
	mcpURL, _ := url.Parse(t.Hosted().MCPURL())
	u, err := url.Parse(metaURL)
	switch {
	case err != nil || !u.IsAbs() || u.Scheme != "http" && u.Scheme != "https":
		return metadataDoc{notFetched: "not an absolute http(s) URL"}
	case !conformance.SameOrigin(u, mcpURL):
		return metadataDoc{notFetched: "it is on another origin than the endpoint's, and mcpcheck fetches what a target names only on the target's own origin"}
	}
	a := probe.HostedDo(t.Context(), "GET", metaURL, "", nil, nil)
	var redirect *conformance.RedirectError
	switch {
	case errors.As(a.Err, &redirect):
		return metadataDoc{notFetched: redirect.Error()}
	case a.Err != nil:
		return metadataDoc{outcome: "not read: " + a.Err.Error()}
	}
	doc := a.JSON()
	switch resource, named := doc["resource"].(string); {
	case doc == nil:
		return metadataDoc{outcome: fmt.Sprintf("HTTP %d, not a JSON object", a.Status)}
	case !named:
		return metadataDoc{outcome: fmt.Sprintf("HTTP %d, a JSON object with no resource string", a.Status)}
	case a.Status != 200:
		return metadataDoc{outcome: fmt.Sprintf("HTTP %d, a JSON object", a.Status)}
	default:
		return metadataDoc{resource: resource, outcome: fmt.Sprintf("HTTP %d, a JSON object naming another resource", a.Status)}
	}
}
