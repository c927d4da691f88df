package checks

import (
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var s014 = &Check{ID: "S014", Slug: "no-grant-broadening", Mode: ModeCTRL, Run: func(t *T) {
	// Without a fixture RS only the black-box half runs: no tool output
	// carries the session's bearer.
	ft, fork := t, (*Target)(nil)
	if t.Target.Has(CapFixture) {
		fork = t.ForkSame()
		ft = t.On(fork)
	}
	token := ft.Target.BearerToken()

	// Every tool, once, with arguments taken from the target's own answers,
	// and one call the RS refuses (an unknown stream).
	_, index := schemaIndex(ft)
	t.Expect(index).NotTo(BeEmpty(), "schema {} must list at least one stream")
	src := sources(index)[0]
	calls := []*Call{
		ft.Call("query_records", src.args(map[string]any{"limit": 2})),
		ft.Call("aggregate", src.args(map[string]any{"metric": "count"})),
		ft.Call("query_records", map[string]any{"stream": "mcpcheck_no_such_stream", "limit": 1}),
	}
	if word := searchableWord(records(calls[0])); word != "" {
		s := ft.Call("search", map[string]any{"q": word, "limit": 2})
		calls = append(calls, s)
		if id, ok := handleIn(s.Text(), "first_fetch_id"); ok {
			calls = append(calls, ft.Call("fetch", map[string]any{"id": id}))
		}
	}
	if token != "" {
		for _, c := range calls {
			t.Expect(strings.Contains(c.Text(), token) || strings.Contains(string(c.Raw), token)).To(BeFalse(), "%s output must never contain the bearer", c.Tool)
		}
	}
	if fork == nil {
		t.Record("RS-side half (one bearer, no retry after 401)", "not exercised: "+CapFixture.SkipReason())
		return
	}
	bearer := "Bearer " + token
	for _, r := range t.On(fork).RS().Requests() {
		t.Expect(r.Authorization).To(Equal(bearer), "every RS request must carry exactly the configured client bearer (GET %s)", r.Path)
	}

	// The RS refuses the bearer: one call, surfaced, no retry, no other credential.
	t.On(fork).RS().InjectFault("/v1/", fakers.Fault{Status: 401})
	for _, tool := range []struct {
		name string
		args map[string]any
	}{{"schema", map[string]any{}}, {"query_records", src.args(map[string]any{"limit": 1})}} {
		t.On(fork).RS().ResetRequests()
		c := ft.Call(tool.name, tool.args)
		t.Expect(c.IsError()).To(BeTrue(), "an RS 401 must surface as isError: %s", c.Describe())
		t.Expect(c.ErrorCode()).NotTo(BeEmpty(), "the 401 must surface as a typed error: %s", c.Describe())
		t.Expect(strings.Contains(c.Text(), token)).To(BeFalse(), "the error must not contain the bearer")
		reqs := t.On(fork).RS().Requests()
		t.Expect(len(reqs)).To(Equal(1), "%s: after a 401 the adapter must stop: one RS call, no retry (saw %d)", tool.name, len(reqs))
		for _, r := range reqs {
			t.Expect(r.Authorization).To(Equal(bearer), "after a 401 the adapter must not try another credential")
		}
	}
	if p, ok := conformance.As[conformance.Process](fork); ok {
		t.Expect(strings.Contains(p.Stderr(), token)).To(BeFalse(), "the adapter's log (stderr) must never contain the bearer")
	}
}}
