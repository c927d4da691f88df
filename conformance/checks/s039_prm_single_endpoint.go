package checks

import (
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

var profileKeyRe = regexp.MustCompile(`(?i)profile|toolset`)

// mcpTokenKinds are the bearer kinds a hosted MCP resource may accept
// (contract §13.2): grant-scoped client tokens and MCP package tokens.
var mcpTokenKinds = []any{"client", "mcp_package"}

var s039 = &Check{ID: "S039", Slug: "prm-single-endpoint", Mode: ModeHOST, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	metaURL := t.Hosted().Origin() + "/.well-known/oauth-protected-resource" + pathOf(t.Hosted().MCPURL())
	a := hostedDo(t.Context(), "GET", metaURL, "", nil, nil)
	t.Expect(a.Status).To(Equal(200), "GET %s must serve the MCP endpoint's protected-resource metadata", metaURL)
	doc := a.JSON()
	t.Expect(doc).NotTo(BeNil(), "the metadata must be a JSON object")
	t.Expect(doc["resource"]).To(Equal(t.Hosted().MCPURL()), "the metadata's resource must be the MCP endpoint itself")
	t.Expect(doc).NotTo(HaveKey("logo_uri"), "the metadata carries no logo_uri")
	t.Expect(profileKeys(doc, "")).To(BeEmpty(), "the metadata must name no profile or toolset")
	kinds, _ := doc["pdpp_token_kinds_supported"].([]any)
	t.Expect(kinds).NotTo(BeEmpty(), "the metadata must list pdpp_token_kinds_supported")
	t.Expect(kinds).To(HaveEach(BeElementOf(mcpTokenKinds...)), "the MCP resource accepts client kinds only (%v): no owner or control-plane kind", mcpTokenKinds)
	endpoints := map[string]bool{}
	collectEndpoints(doc, endpoints)
	t.Expect(endpoints).To(Equal(map[string]bool{t.Hosted().MCPURL(): true}), "the metadata must advertise exactly one MCP endpoint, %s", t.Hosted().MCPURL())

	root := hostedDo(t.Context(), "GET", t.Hosted().Origin()+"/.well-known/oauth-protected-resource", "", nil, nil)
	if root.Status == 404 {
		t.Record("root metadata", "not served at this origin")
		return
	}
	t.Expect(root.Status).To(Equal(200))
	rd := root.JSON()
	t.Expect(str(rd["pdpp_core_query_base"])).To(HaveSuffix("/v1"), "the root document keeps the core query base at /v1")
	t.Expect(strings.Contains(string(root.Body), t.Hosted().MCPURL())).To(BeTrue(), "the root document carries a hint to the MCP endpoint")
}}

func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[i+3+j:]
		}
	}
	return ""
}

// profileKeys lists keys or string values that name profiles or toolsets.
func profileKeys(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if profileKeyRe.MatchString(k) {
				out = append(out, at+k)
			}
			out = append(out, profileKeys(e, at+k+".")...)
		}
	case []any:
		for i, e := range x {
			out = append(out, profileKeys(e, fmt.Sprintf("%s%d.", at, i))...)
		}
	case string:
		if profileKeyRe.MatchString(x) && !strings.Contains(x, "profile_free") {
			out = append(out, at+"="+x)
		}
	}
	return out
}

// collectEndpoints gathers every "endpoint" under an "mcp" object.
func collectEndpoints(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if m, ok := x["mcp"].(map[string]any); ok {
			if e, ok := m["endpoint"].(string); ok {
				out[e] = true
			}
		}
		for _, e := range x {
			collectEndpoints(e, out)
		}
	case []any:
		for _, e := range x {
			collectEndpoints(e, out)
		}
	}
}
