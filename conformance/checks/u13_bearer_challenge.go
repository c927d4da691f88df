package checks

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	. "github.com/onsi/gomega"
)

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
	var metaURL string
	for _, c := range cases {
		for _, body := range rejectedBodies {
			a := hostedDo(t.Context(), "POST", t.Hosted().MCPURL(), c.authorization, body, nil)
			t.Expect(a.Err).NotTo(HaveOccurred(), "POST %s with %s", t.Hosted().MCPURL(), c.what)
			t.Expect(a.Status).To(Equal(401), "a request with %s must get HTTP 401", c.what)
			t.Expect(isJSONRPC(a.Body)).To(BeFalse(), "a request with %s must not be processed as MCP", c.what)
			m := resourceMetadataRe.FindStringSubmatch(a.Header.Get("WWW-Authenticate"))
			t.Expect(m).NotTo(BeNil(), "401 for %s must carry WWW-Authenticate: Bearer resource_metadata=…; got %q", c.what, a.Header.Get("WWW-Authenticate"))
			metaURL = m[1]
			e, _ := a.JSON()["error"].(map[string]any)
			t.Expect(e["resource_metadata"]).To(Equal(metaURL), "the error body must name the same metadata URL for %s", c.what)
		}
		if t.Target.Has(CapControlledRS) && c.token != "" {
			t.Expect(rsDataRequests(t, c.token)).To(BeZero(), "the RS must serve no request but the auth probe for a request with %s", c.what)
		}
	}
	meta := hostedDo(t.Context(), "GET", metaURL, "", nil, nil)
	t.Expect(meta.Status).To(Equal(200), "the challenge's metadata URL must answer")
	t.Expect(meta.JSON()["resource"]).To(Equal(t.Hosted().MCPURL()), "the challenge must point at the metadata of the /mcp resource itself")
}}
