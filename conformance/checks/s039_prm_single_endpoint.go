package checks

import (
	"errors"
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
// resource and the MCP URL mcpcheck connected to, advertised once beside
// it wherever it sits (clause 1); no profile, toolset or logo_uri (2);
// client token kinds only, in the list that holds one, with owner bearers
// marked as not accepted (3); and the root document's /v1 base and MCP
// hint (4).
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
		t.AssertWith(!logo, func() (conformance.Witness, error) { return conformance.Present("logo_uri", meta) }, "the metadata carries no logo_uri")
		for _, k := range profileWords(doc) {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(k, meta) }, "the metadata must name no profile or toolset: %q", k)
		}
	})
	t.Clause(3, func() { judgeTokenKinds(t, doc, meta) })
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
		rootEv := root.Evidence("GET " + t.Hosted().Origin() + "/.well-known/oauth-protected-resource")
		rd := root.JSON()
		// The hint is the MCP URL itself, wherever the document puts it.
		t.AssertWith(rd != nil && slices.ContainsFunc(probe.JSONStrings(rd), func(s probe.JSONString) bool { return s.Value == mcpURL }),
			func() (conformance.Witness, error) { return conformance.Absent(read.Text(mcpURL), rootEv) },
			"the root document (HTTP %d) carries a hint to the MCP endpoint %s", root.Status, mcpURL)
		if rd == nil {
			return
		}
		t.AssertWith(slices.ContainsFunc(probe.JSONStrings(rd), func(s probe.JSONString) bool { return strings.HasSuffix(s.Value, "/v1") }),
			func() (conformance.Witness, error) {
				if !t.Target.Has(CapControlledRS) {
					return conformance.Witness{}, errors.New("the RS's own URL is unknown to mcpcheck")
				}
				return conformance.Absent(read.Text(strings.TrimSuffix(t.RS().URL(), "/")+"/v1"), rootEv)
			}, "the root document keeps the core query base at /v1: no URL of it ends in /v1")
	})
}}

// judgeSingleEndpoint judges S039.1: resource is the MCP URL, the
// document advertises that URL beside it, and no other endpoint that
// extends it (a /mcp/full, a ?profile= selector).
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
	beside := withoutKey(doc, "resource")
	t.AssertWith(len(at) > 0, func() (conformance.Witness, error) {
		return conformance.Absent(read.Text(mcpURL), probe.JSONEvidence("GET "+metaURL+", every value but its resource", beside))
	}, "the metadata must advertise its MCP endpoint %s (beside resource)", mcpURL)
}

// judgeTokenKinds judges S039.3. The kinds list is the list holding a
// client kind, found by value; every other kind in it is the witness.
func judgeTokenKinds(t *T, doc map[string]any, meta conformance.Evidence) {
	var kinds []string
	for _, l := range probe.JSONLists(doc) {
		if slices.ContainsFunc(l, func(k string) bool { return slices.Contains(mcpTokenKinds, k) }) {
			kinds = append(kinds, l...)
		}
	}
	if !t.AssertWith(len(kinds) > 0, func() (conformance.Witness, error) { return conformance.AbsentAll(facts(mcpTokenKinds...), meta) },
		"the metadata must list the token kinds it accepts (%v)", mcpTokenKinds) {
		return
	}
	for _, k := range kinds {
		t.AssertWith(slices.Contains(mcpTokenKinds, k), func() (conformance.Witness, error) { return conformance.Present(k, meta) },
			"the MCP resource accepts client kinds only (%v), not %q", mcpTokenKinds, k)
	}
	t.AssertWith(ownerMarked(doc), func() (conformance.Witness, error) { return conformance.Absent(read.Text("owner"), meta) },
		"the metadata must mark owner bearers as not accepted (a key naming owner tokens, such as no_owner_token)")
}

func withoutKey(doc map[string]any, key string) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != key {
			out[k] = v
		}
	}
	return out
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
