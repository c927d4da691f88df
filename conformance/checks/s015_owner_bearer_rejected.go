package checks

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// ownerTokenEnv are variable names an adapter might read an owner
// credential from: mcpcheck's own guesses, so refusing them is advice.
var ownerTokenEnv = []string{"PDPP_OWNER_TOKEN", "PDPP_OWNER_SESSION_COOKIE"}

// Seed 001: with an owner bearer in a request or the process environment,
// "the adapter SHALL reject the setup or request" and "SHALL NOT process
// the request as a normal MCP operation". The owner bearer goes where the
// target takes its credential: the hosted request's Authorization, and a
// local command's {token} (its arguments, --env, PDPP_CLIENT_TOKEN). A
// refused start, a refused request or an HTTP 4xx rejects it; an answer
// that serves the grant's data, or an RS data read with the owner bearer
// (a bearer check reads none), is the witness.
var s015 = &Check{ID: "S015", Slug: "owner-bearer-rejected", Mode: ModeHOST, Run: func(t *T) {
	judged := false
	if t.Target.Has(CapHTTP) {
		for _, c := range []struct{ what, token string }{{"an owner bearer", t.Target.OwnerToken}, {"a control-plane bearer", t.Target.ControlPlaneToken}} {
			if c.token == "" {
				continue
			}
			judged = true
			for _, body := range rejectedBodies(t) {
				a := probe.HostedDo(t.Context(), "POST", t.Hosted().MCPURL(), "Bearer "+c.token, body, nil)
				where := "POST " + t.Hosted().MCPURL() + " with " + c.what + ": " + clipText(string(body), 80)
				t.Clause(1, func() {
					t.AssertWith(a.Err == nil && a.Status >= 400 && a.Status < 500, func() (conformance.Witness, error) {
						if a.Err != nil {
							return conformance.Witness{}, a.Err
						}
						return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "HTTP " + strconv.Itoa(a.Status), In: []string{where}, Excerpt: clipText(string(a.Body), 200)}, nil
					}, "a request with %s must be refused (HTTP 4xx): HTTP %d %v", c.what, a.Status, a.Err)
				})
				t.Clause(2, func() {
					t.AssertWith(!probe.IsJSONRPC(a.Body), func() (conformance.Witness, error) {
						return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "a JSON-RPC answer", In: []string{where}, Excerpt: clipText(string(a.Body), 200)}, nil
					}, "a request with %s must never be processed as MCP: %s", c.what, clipText(string(a.Body), 200))
				})
			}
			if t.Target.Has(CapControlledRS) {
				t.Clause(2, func() { expectNoDataReads(t, t.RS().Requests(), c.token, c.what) })
			}
		}
	}
	if t.Target.Has(CapLocalCommand) {
		judged = true
		judgeOwnerStart(t)
		for _, k := range ownerTokenEnv {
			out, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{k: "mcpcheck-owner-credential"})
			t.Clause(1, func() {
				t.Advise(code != 0, "the adapter should refuse to start with %s set (mcpcheck's own guess at an owner variable, recommended); stderr: %s", k, clipText(errOut, 200))
			})
			t.Clause(2, func() {
				t.Advise(strings.TrimSpace(out) == "", "with %s set, the adapter should serve no MCP on stdout (mcpcheck's own guess at an owner variable, recommended): %s", k, clipText(out, 200))
			})
		}
		if t.Target.Has(CapCLI) && t.Target.Has(CapControlledRS) {
			if dir, ok := cachedOwnerCredential(t); ok {
				_, errOut, code := t.Command().RunCommand(t.Context(), map[string]string{"PDPP_CLIENT_TOKEN": ""}, "--cache-root", dir)
				t.Clause(1, func() {
					t.Advise(code != 0, "the adapter should refuse an owner-kind cached credential (pdpp connect's cache, recommended); stderr: %s", clipText(errOut, 200))
				})
			}
		}
	}
	if !judged {
		t.Skipf("no owner bearer to try (pass --owner-token-file for a --url target) and no local command to start")
	}
}}

// rejectedBodies are the requests a refused bearer sends: probe's, and,
// where mcpcheck knows the grant, a read of one of its streams on one
// connection, which a processed request would answer from the RS.
func rejectedBodies(t *T) [][]byte {
	out := probe.RejectedBodies
	if !t.Target.Has(CapControlledRS) {
		return out
	}
	for _, s := range t.RS().Fixture().Streams {
		if len(s.Connections) > 0 {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call",
				"params": map[string]any{"name": "query_records", "arguments": map[string]any{"stream": s.Name, "connection_id": s.Connections[0], "limit": 1}}})
			return append(slices.Clone(out), b)
		}
	}
	return out
}

// judgeOwnerStart starts the local command with the owner bearer where it
// takes {token}: a refused start, or a refused read, rejects it.
func judgeOwnerStart(t *T) {
	ot, err := t.Command().OpenAsOwner(t.Context())
	if err != nil {
		t.Clause(1, t.Held)
		t.Record("owner bearer at {token}", "refused at start: "+conformance.FirstLine(err.Error()))
		return
	}
	t.Cleanup(ot.Close)
	on := t.On(ot)
	c := on.Call("schema", map[string]any{})
	granted := ownerVisibleFacts(t)
	t.Clause(1, func() {
		if c.IsError() {
			t.Held()
			return
		}
		for _, name := range granted {
			t.ShowsNone(c, name, "started with the owner bearer where it takes {token}, the adapter must reject the setup or the request; schema {} served the grant")
		}
	})
	if ot.Has(CapControlledRS) {
		t.Clause(2, func() { expectNoDataReads(t, on.RS().Requests(), ot.OwnerToken, "the owner bearer at {token}") })
	}
}

// ownerVisibleFacts are stream names of the fixture the owner bearer would
// read: found in an answer, they show it was served.
func ownerVisibleFacts(t *T) []string {
	if !t.Target.Has(CapControlledRS) {
		return nil
	}
	var out []string
	for _, s := range t.RS().Fixture().Streams {
		if len(out) < 3 && !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}

// expectNoDataReads judges the RS log: no request carrying token read
// data; a bearer check reads none.
func expectNoDataReads(t *T, reqs []fakers.Request, token, what string) {
	reads := probe.DataReads(reqs, token)
	t.AssertWith(len(reads) == 0, func() (conformance.Witness, error) {
		return conformance.Witness{Kind: conformance.WitnessPresent, Fact: reads[0], In: []string{"the fixture RS's request log, with " + what}}, nil
	}, "the RS must serve no data read with %s, only a bearer check (it served %v)", what, reads)
}

var cacheHostRe = regexp.MustCompile(`[^a-zA-Z0-9.-]`)

// cachedOwnerCredential writes a credential cache (pdpp connect's layout)
// holding an owner-kind credential for the target's RS.
func cachedOwnerCredential(t *T) (string, bool) {
	dir, err := os.MkdirTemp("", "mcpcheck-cache")
	if err != nil {
		return "", false
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	u, err := url.Parse(t.RS().URL())
	if err != nil {
		return "", false
	}
	path := filepath.Join(dir, "clients", cacheHostRe.ReplaceAllString(u.Host, "_")+".json")
	cred, _ := json.Marshal(map[string]any{"provider_url": t.RS().URL(),
		"credential": map[string]any{"access_token": "mcpcheck-owner-credential", "pdpp_token_kind": "owner"}})
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil || os.WriteFile(path, cred, 0o600) != nil {
		return "", false
	}
	return dir, true
}
