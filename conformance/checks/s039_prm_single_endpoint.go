package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var profileKeyRe = regexp.MustCompile(`(?i)profile|toolset`)

// mcpTokenKinds are the bearer kinds a hosted MCP resource may accept
// (docs/RS-CONTRACT.md §13.2): grant-scoped client tokens and MCP package tokens.
var mcpTokenKinds = []any{"client", "mcp_package"}

// S039 reads the MCP endpoint's protected-resource metadata: its resource
// and single endpoint (clause 1), no profile, toolset or logo_uri (2),
// client token kinds only with owner bearers marked as not accepted (3),
// and the root document's /v1 base and MCP hint (4).
var s039 = &Check{ID: "S039", Slug: "prm-single-endpoint", Mode: ModeHOST, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	metaURL := t.Hosted().Origin() + "/.well-known/oauth-protected-resource" + pathOf(t.Hosted().MCPURL())
	a := probe.HostedDo(t.Context(), "GET", metaURL, "", nil, nil)
	doc := a.JSON()
	if a.Status != 200 || doc == nil {
		t.Clause(1, func() {
			t.Fail("GET %s must serve the MCP endpoint's protected-resource metadata as a JSON object (status %d)", metaURL, a.Status)
		})
		return
	}
	mcpURL := t.Hosted().MCPURL()
	t.Clause(1, func() {
		t.Assert(doc["resource"] == mcpURL, "the metadata's resource must be the MCP endpoint itself, %s: got %v", mcpURL, doc["resource"])
		endpoints := map[string]bool{}
		collectEndpoints(doc, endpoints)
		t.Assert(len(endpoints) == 1 && endpoints[mcpURL], "the metadata must advertise exactly one MCP endpoint, %s: got %v", mcpURL, endpoints)
	})
	t.Clause(2, func() {
		_, logo := doc["logo_uri"]
		t.Assert(!logo, "the metadata carries no logo_uri")
		keys := profileKeys(doc, "")
		t.Assert(len(keys) == 0, "the metadata must name no profile or toolset: %v", keys)
	})
	t.Clause(3, func() {
		kinds, _ := doc["pdpp_token_kinds_supported"].([]any)
		if !t.Assert(len(kinds) > 0, "the metadata must list the token kinds it accepts (pdpp_token_kinds_supported)") {
			return
		}
		for _, k := range kinds {
			t.Assert(slices.Contains(mcpTokenKinds, k), "the MCP resource accepts client kinds only (%v), not %v", mcpTokenKinds, k)
		}
		t.Assert(ownerMarked(doc), "the metadata must mark owner bearers as not accepted (a key naming owner tokens, such as no_owner_token)")
	})
	root := probe.HostedDo(t.Context(), "GET", t.Hosted().Origin()+"/.well-known/oauth-protected-resource", "", nil, nil)
	if root.Status == 404 {
		t.Clause(4, func() { t.Skipf("the origin serves no root protected-resource metadata") })
		return
	}
	t.Clause(4, func() {
		rd := root.JSON()
		if !t.Assert(root.Status == 200 && rd != nil, "the root metadata must be a JSON object (status %d)", root.Status) {
			return
		}
		t.Assert(strings.HasSuffix(probe.String(rd["pdpp_core_query_base"]), "/v1"), "the root document keeps the core query base at /v1: got %v", rd["pdpp_core_query_base"])
		t.Assert(strings.Contains(string(root.Body), mcpURL), "the root document carries a hint to the MCP endpoint %s", mcpURL)
	})
}}

// ownerMarked reports whether a document has a key that speaks of owner
// tokens with a boolean value: no_owner_token true, or owner… false.
func ownerMarked(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if b, ok := e.(bool); ok && strings.Contains(strings.ToLower(k), "owner") && b == strings.HasPrefix(strings.ToLower(k), "no") {
				return true
			}
			if ownerMarked(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, ownerMarked)
	}
	return false
}

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
