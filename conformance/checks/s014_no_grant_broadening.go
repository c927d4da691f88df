package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Seed 001: the adapter "SHALL forward or validate the request against
// the same resource-server read contracts" (here: every RS request is a
// /v1 read carrying exactly the configured grant-scoped bearer) and "SHALL
// NOT broaden the grant or retry through owner credentials" (after the RS
// refuses the bearer, no request carries another credential). Retrying
// with the same bearer is not in the seed: one request per refused call
// is mcpcheck's own number, recommended.
var s014 = &Check{ID: "S014", Slug: "no-grant-broadening", Mode: ModeCTRL, Needs: []Capability{CapFixture}, Run: func(t *T) {
	ft := t.On(t.ForkSame())
	bearer := "Bearer " + ft.Target.BearerToken()
	srcs := probe.Sources(probe.Grant(ft))
	if len(srcs) == 0 {
		t.Skipf("the target's schema lists no stream to read")
	}
	src := srcs[0]

	// Every tool, once, with arguments taken from the target's own
	// answers, and one call the RS refuses (an unknown stream).
	t.Clause(1, func() {
		probe.SampleCalls(ft)
		if probe.Serves(ft.Target, "query_records") {
			ft.CallRoles("query_records", dialect.Args{dialect.Stream: "mcpcheck_no_such_stream", dialect.Limit: 1})
		}
		reqs := ft.RS().Requests()
		if len(reqs) == 0 {
			t.Inconclusive("the read tools made no RS request: nothing to judge them by")
			return
		}
		log := rsLog(reqs)
		for _, r := range reqs {
			t.AssertWith(strings.HasPrefix(r.Path, "/v1/"), func() (conformance.Witness, error) { return conformance.Present(r.Path, log) },
				"every RS request must be a read of the /v1 contract: %s %s", r.Method, r.Path)
			t.AssertWith(r.Authorization == bearer, func() (conformance.Witness, error) { return otherCredential(r, log) },
				"every RS request must carry exactly the configured client bearer (%s %s)", r.Method, r.Path)
		}
		judgeConnectionEffect(t, ft)
		judgeArgumentEffects(t, ft)
	})

	// What the surface tells the model: no advice to retry with an owner's
	// or operator's credential in place of the grant's.
	t.Clause(2, func() {
		for where, text := range surfaceTexts(t.Target) {
			if s := ownerRetryAdvice(text); s != "" {
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(s, conformance.Shown(where, text)) },
					"%s: they tell the model to retry with an owner's or operator's credential in place of the grant's: %q", where, s)
			}
		}
	})

	// The RS refuses the bearer.
	ft.RS().InjectFault("/v1/", fakers.Fault{Status: 401})
	for _, tool := range []struct {
		name string
		args dialect.Args
	}{{"schema", dialect.Args{}}, {"query_records", src.Roles(dialect.Args{dialect.Limit: 1})}} {
		if !probe.Serves(ft.Target, tool.name) {
			continue
		}
		t.Clause(2, func() {
			ft.RS().ResetRequests()
			ft.CallRoles(tool.name, tool.args)
			reqs := ft.RS().Requests()
			log := rsLog(reqs)
			for _, r := range reqs {
				t.AssertWith(r.Authorization == bearer, func() (conformance.Witness, error) { return otherCredential(r, log) },
					"%s: after the RS refused the bearer, the adapter must not try another credential (%s %s)", tool.name, r.Method, r.Path)
			}
			t.Threshold().Expect(len(reqs)).To(BeNumerically("<=", 1), "%s: after a 401 the adapter should stop: one RS request, no retry (saw %d)", tool.name, len(reqs))
		})
	}
}}

// Advice to retry with another person's credential: a sentence naming a
// credential, a retry, and an owner's or operator's side of it, with no
// negation ("never retry with owner credentials" forbids it).
var (
	credNounRe  = regexp.MustCompile(`(?i)\b(keys?|tokens?|credentials?|bearers?|passwords?|secrets?|sessions?|logins?|cookies?|api[- ]keys?)\b`)
	retryRe     = regexp.MustCompile(`(?i)\b(retry|repeat|again|in place of|instead|replac\w*|swap\w*|switch\w*|re-?run|resend)\b`)
	ownerSideRe = regexp.MustCompile(`(?i)\b(owner\w*|dashboard|admin\w*|operator\w*|root|master|full[- ]access|unrestricted|their (own )?(account|login|session|dashboard))\b`)
	negatedRe   = regexp.MustCompile(`(?i)\b(never|not|no|don't|doesn't|cannot|can't|won't|refuse[sd]?|reject\w*)\b`)
)

// ownerRetryAdvice is the first sentence of text that advises retrying
// with an owner's or operator's credential; "" when none does.
func ownerRetryAdvice(text string) string {
	for _, sentence := range sentenceSplitRe.Split(text, -1) {
		if credNounRe.MatchString(sentence) && retryRe.MatchString(sentence) && ownerSideRe.MatchString(sentence) && !negatedRe.MatchString(sentence) {
			return strings.TrimSpace(sentence)
		}
	}
	return ""
}

// surfaceTexts are what the surface tells the model: the instructions and
// each tool's descriptions, by where they are.
func surfaceTexts(tg *conformance.Target) map[string]string {
	out := map[string]string{}
	if tg.Init != nil && tg.Init.Instructions != "" {
		out["the server instructions"] = tg.Init.Instructions
	}
	for tool, texts := range probe.ToolDescriptions(tg) {
		out["the "+tool+" descriptions"] = strings.Join(texts, "\n")
	}
	return out
}

// rsLog is the RS's request log as evidence: one line per request, with
// the credential it carried.
func rsLog(reqs []fakers.Request) conformance.Evidence {
	lines := make([]string, len(reqs))
	for i, r := range reqs {
		lines[i] = fmt.Sprintf("%s %s?%s Authorization: %s", r.Method, r.Path, r.RawQuery, r.Authorization)
	}
	return conformance.Shown("the fixture RS's request log", strings.Join(lines, "\n"))
}

// otherCredential witnesses an RS request carrying a credential other than
// the configured client bearer (none at all included).
func otherCredential(r fakers.Request, log conformance.Evidence) (conformance.Witness, error) {
	cred := r.Authorization
	if cred == "" {
		return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "Authorization", In: []string{r.Method + " " + r.Path + " in the fixture RS's request log"}}, nil
	}
	return conformance.Present(cred, log)
}

// judgeConnectionEffect judges connection_id by its effect, in one session:
// the connections of one stream, read in turn, must each answer for
// themselves. aggregate's count must be the fixture's count for the connection
// named, stated outside the fixture's values; query_records must show no
// record of another connection of the stream.
func judgeConnectionEffect(t, ft *T) {
	name, conns, ok := twoConnectionStream(ft.RS().Fixture())
	if !ok {
		return
	}
	content := probe.FixtureStrings(ft)
	for _, conn := range conns {
		if !probe.Serves(ft.Target, "aggregate") || !ft.HasRole("aggregate", dialect.Connection) || !ft.HasRole("aggregate", dialect.Metric) {
			break
		}
		n := len(recordsOf(ft.RS().Fixture(), name, conn))
		c := ft.CallRoles("aggregate", dialect.Args{dialect.Stream: name, dialect.Connection: conn, dialect.Metric: "count"})
		if c.IsError() || slices.Contains(content, strconv.Itoa(n)) {
			continue // a count the fixture's values hold is no count in a text
		}
		t.Shows(conformance.WithoutContent(c, content), read.Number(n),
			"aggregate count of stream %s with connection_id=%s must count that connection's %d records (read after the stream's other connections)", name, conn, n)
	}
	for _, conn := range conns {
		if !probe.Serves(ft.Target, "query_records") || !ft.HasRole("query_records", dialect.Connection) {
			break
		}
		c := ft.CallRoles("query_records", dialect.Args{dialect.Stream: name, dialect.Connection: conn, dialect.Limit: 3})
		if c.IsError() {
			continue
		}
		own := recordsOf(ft.RS().Fixture(), name, conn)
		for _, other := range conns {
			if other == conn {
				continue
			}
			for _, r := range recordsOf(ft.RS().Fixture(), name, other) {
				if slices.ContainsFunc(own, func(o fakers.Record) bool {
					return o.ID == r.ID || slices.ContainsFunc(probe.StringValues(o.Data), func(v string) bool { return strings.Contains(v, r.ID) })
				}) {
					continue // an id the connection's own records show too
				}
				if read.Find(c.Strings(), read.Text(r.ID)).Exact {
					t.AssertWith(false, func() (conformance.Witness, error) {
						w, err := conformance.Present(r.ID, c)
						w.Fact = fmt.Sprintf("record %s of connection %s", r.ID, other)
						return w, err
					}, "query_records of stream %s with connection_id=%s shows record %s of connection %s", name, conn, r.ID, other)
					break
				}
			}
		}
	}
}

// twoConnectionStream is a stream name whose records the fixture holds on
// two or more connections (of one connector or several), and up to three
// of those connections.
func twoConnectionStream(fx *fakers.Fixture) (string, []string, bool) {
	for _, s := range fx.Streams {
		var conns []string
		for _, st := range fx.StreamsNamed(s.Name) {
			for _, r := range st.Records {
				if !slices.Contains(conns, r.ConnectionID) {
					conns = append(conns, r.ConnectionID)
				}
			}
		}
		if len(conns) >= 2 {
			return s.Name, conns[:min(3, len(conns))], true
		}
	}
	return "", nil, false
}

// recordsOf are the fixture's records of stream name on connection conn.
func recordsOf(fx *fakers.Fixture, name, conn string) []fakers.Record {
	var out []fakers.Record
	for _, s := range fx.StreamsNamed(name) {
		for _, r := range s.Records {
			if r.ConnectionID == conn {
				out = append(out, r)
			}
		}
	}
	return out
}
