package checks

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// restPathRe finds REST paths and URLs in a message: a retry written as
// GET /v1/schema?stream=…&connection_id=…&detail=full names the RS's
// endpoint, not the schema tool a client of the adapter calls.
var restPathRe = regexp.MustCompile(`(?i)(?:https?://\S+|\S*/v1/\S*)`)

// S021 judges the refusal by behaviour first (the RS log shows no
// grant-wide full schema request at all: the adapter rejects before
// fetching, it does not relay the RS's refusal), then the retry it names
// by meaning: the schema tool with the stream and connection_id arguments
// and the full detail, in whatever words.
var s021 = &Check{ID: "S021", Slug: "schema-full-global-rejected", Mode: ModeBB, Tools: []string{"schema"}, Run: func(t *T) {
	on := t.Private()
	c := on.CallRoles("schema", dialect.Args{dialect.Detail: "full"})
	t.Clause(1, func() {
		if on.Target.Has(CapControlledRS) {
			reqs := on.RS().RequestsTo("/v1/schema")
			for _, r := range reqs {
				q, _ := url.ParseQuery(r.RawQuery)
				grantWide := q.Get("stream") == "" && !strings.EqualFold(q.Get("view"), "compact")
				t.AssertWith(!grantWide, func() (conformance.Witness, error) {
					return conformance.Present("GET /v1/schema?"+r.RawQuery, rsLog(reqs))
				}, "the adapter must reject schema(detail: \"full\") without stream before fetching; it requested the grant-wide full schema (GET /v1/schema?%s, RS answered %d)",
					r.RawQuery, r.Status)
			}
		}
		t.AssertWith(c.IsError(), func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "an answer, not an error", In: []string{c.Describe()}}, nil
		}, "schema(detail: \"full\") without stream must be rejected: %s", c.Describe())
	})
	t.Clause(2, func() {
		if !c.IsError() {
			t.Skipf("the call was not rejected (S021.1)")
		}
		msg := c.Text() + "\n" + probe.String(c.ErrorObject()["message"])
		own := strings.ToLower(restPathRe.ReplaceAllString(msg, " "))
		ev := conformance.Shown("the error of "+c.Describe()+", REST paths aside", own)
		for _, want := range []string{"schema", "stream", "connection_id", "full"} {
			t.Shows(ev, read.Text(want), "the error must tell the client to retry the schema tool with stream, connection_id and detail \"full\"; outside REST paths (an RS endpoint is not the tool a client calls) it does not name %s", want)
		}
	})
}}
