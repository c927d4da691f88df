package checks

import (
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// S021 judges the refusal by behaviour first (no grant-wide schema was
// fetched and returned), then the retry it names by meaning: the stream
// and connection_id arguments and the full detail, in whatever words.
var s021 = &Check{ID: "S021", Slug: "schema-full-global-rejected", Mode: ModeBB, Tools: []string{"schema"}, Run: func(t *T) {
	on := t.Private()
	c := on.CallRoles("schema", dialect.Args{dialect.Detail: "full"})
	t.Clause(1, func() {
		if on.Target.Has(CapControlledRS) {
			for _, r := range on.RS().RequestsTo("/v1/schema") {
				q, _ := url.ParseQuery(r.RawQuery)
				grantWide := q.Get("stream") == "" && !strings.EqualFold(q.Get("view"), "compact")
				t.Assert(!grantWide || r.Status != 200, "the adapter fetched the grant-wide full schema (GET /v1/schema?%s)", r.RawQuery)
			}
		}
		t.Assert(c.IsError(), "schema(detail: \"full\") without stream must be rejected: %s", c.Describe())
	})
	t.Clause(2, func() {
		if !c.IsError() {
			t.Skipf("the call was not rejected (S021.1)")
		}
		msg := c.Text() + "\n" + str(c.ErrorObject()["message"])
		for _, want := range []string{"stream", "connection_id", "full"} {
			t.Assert(containsToken(strings.ToLower(msg), want), "the error must tell the client to retry schema with stream, connection_id and detail \"full\"; it does not name %s: %s",
				want, clipText(msg, 400))
		}
	})
}}
