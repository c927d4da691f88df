package checks

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

var profileKeyRe = regexp.MustCompile(`(?i)profile|toolset`)

// mcpTokenKinds are the bearer kinds a hosted MCP resource may accept
// (docs/RS-CONTRACT.md §13.2): grant-scoped client tokens and MCP package tokens.
var mcpTokenKinds = []string{"client", "mcp_package"}

// S039 reads the MCP endpoint's protected-resource metadata by value: its
// resource is the MCP URL mcpcheck connected to, and no other endpoint
// extends it (clause 1); no profile or toolset (2). Seed 003 asks only for
// "one MCP endpoint and no profiles": the rest of the scenario (the URL
// advertised again beside resource, no logo_uri, client token kinds with
// owner bearers marked (3), the root document's /v1 base and MCP hint
// (4)) is the reference deployment's shape, judged as mcpcheck's own,
// recommended.
var s039 = &Check{ID: "S039", Slug: "prm-single-endpoint", Mode: ModeHOST, Needs: []Capability{CapHTTP}, Run: func(t *T) {
	mcpURL := t.Hosted().MCPURL()
	metaURL := t.Hosted().Origin() + "/.well-known/oauth-protected-resource" + pathOf(mcpURL)
	a := probe.HostedDo(t.Context(), "GET", metaURL, "", nil, nil)
	if a.Err != nil {
		t.Skipf("GET %s: %v", metaURL, a.Err)
	}
	meta := a.Evidence("GET " + metaURL)
	doc := a.JSON()
	if a.Status != 200 || doc == nil {
		t.Clause(1, func() {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Absent(read.Text(mcpURL), meta) },
				"GET %s must serve the MCP endpoint's protected-resource metadata as a JSON object (HTTP %d)", metaURL, a.Status)
		})
		return
	}
	t.Clause(1, func() { judgeSingleEndpoint(t, doc, meta, mcpURL, metaURL) })
	t.Clause(2, func() {
		_, logo := doc["logo_uri"]
		t.Advise(!logo, "the metadata carries no logo_uri (mcpcheck's own rule, from the reference deployment; seed 003 asks only for no profiles)")
		for _, k := range profileWords(doc) {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(k, meta) }, "the metadata must name no profile or toolset: %q", k)
		}
	})
	t.Clause(3, func() { judgeTokenKinds(t, doc) })
	root := probe.HostedDo(t.Context(), "GET", t.Hosted().Origin()+"/.well-known/oauth-protected-resource", "", nil, nil)
	if root.Status == 404 {
		t.Clause(4, func() { t.Skipf("the origin serves no root protected-resource metadata") })
		return
	}
	t.Clause(4, func() {
		if root.Err != nil {
			t.Inconclusive("GET the root metadata: %v", root.Err)
			return
		}
		rd := root.JSON()
		// The hint is the MCP URL itself, wherever the document puts it.
		t.Advise(rd != nil && slices.ContainsFunc(probe.JSONStrings(rd), func(s probe.JSONString) bool { return s.Value == mcpURL }),
			"the root document (HTTP %d) should carry a hint to the MCP endpoint %s (mcpcheck's own rule, from the reference deployment)", root.Status, mcpURL)
		if rd == nil {
			return
		}
		t.Advise(slices.ContainsFunc(probe.JSONStrings(rd), func(s probe.JSONString) bool { return strings.HasSuffix(s.Value, "/v1") }),
			"the root document should keep the core query base at /v1: no URL of it ends in /v1 (mcpcheck's own rule, from the reference deployment)")
	})
}}

// judgeSingleEndpoint judges S039.1: resource is the MCP URL, and no
// other endpoint extends it (a /mcp/full, a ?profile= selector); the URL
// named again beside resource is recommended.
func judgeSingleEndpoint(t *T, doc map[string]any, meta conformance.Evidence, mcpURL, metaURL string) {
	res := probe.String(doc["resource"])
	t.AssertWith(res == mcpURL, func() (conformance.Witness, error) {
		if res != "" {
			return conformance.Present(res, meta)
		}
		return conformance.Absent(read.Text(mcpURL), meta)
	}, "the metadata's resource must be the MCP endpoint itself, %s: got %v", mcpURL, doc["resource"])
	var at []string
	for _, s := range probe.JSONStrings(doc) {
		if s.Path == "resource" {
			continue
		}
		switch {
		case s.Value == mcpURL:
			at = append(at, s.Path)
		case strings.HasPrefix(s.Value, mcpURL):
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(s.Value, meta) },
				"the metadata must advertise exactly one MCP endpoint, %s; %s is another (at %s)", mcpURL, s.Value, s.Path)
		}
	}
	t.Advise(len(at) > 0, "the metadata should name its MCP endpoint %s again beside resource, as a discovery hint (mcpcheck's own rule, from the reference deployment)", mcpURL)
}

// judgeTokenKinds judges S039.3, mcpcheck's own rule (no seed sentence
// names token kinds): the kinds list is the list holding a client kind,
// found by value; every other kind in it is named.
func judgeTokenKinds(t *T, doc map[string]any) {
	var kinds []string
	for _, l := range probe.JSONLists(doc) {
		if slices.ContainsFunc(l, func(k string) bool { return slices.Contains(mcpTokenKinds, k) }) {
			kinds = append(kinds, l...)
		}
	}
	if !t.Advise(len(kinds) > 0, "the metadata should list the token kinds it accepts (%v) (mcpcheck's own rule, from the reference deployment)", mcpTokenKinds) {
		return
	}
	for _, k := range kinds {
		t.Advise(slices.Contains(mcpTokenKinds, k), "the MCP resource should accept client kinds only (%v), not %q (mcpcheck's own rule)", mcpTokenKinds, k)
	}
	t.Advise(ownerMarked(doc), "the metadata should mark owner bearers as not accepted, with a key naming owner tokens such as no_owner_token (mcpcheck's own rule)")
}

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

// profileWords are the keys and string values that name profiles or
// toolsets, as written.
func profileWords(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if profileKeyRe.MatchString(k) {
				out = append(out, k)
			}
			out = append(out, profileWords(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, profileWords(e)...)
		}
	case string:
		if profileKeyRe.MatchString(x) && !strings.Contains(x, "profile_free") {
			out = append(out, x)
		}
	}
	return out
}
