package checks

import (
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

// ambiguityListMax is the most available_connections entries an ambiguity
// error may list (seed 001; the anchor caps at 12).
const ambiguityListMax = 12

var schemaHintRe = regexp.MustCompile(`\bschema\b`)

var s032 = &Check{ID: "S032", Slug: "ambiguous-connection", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	name, ok := sharedStream(index)
	if !ok {
		t.Skipf("%s", noSharedStream)
	}
	total := map[string]bool{}
	for _, r := range rowsNamed(index, name) {
		for _, c := range r.Connections {
			total[c] = true
		}
	}
	on := t.Private()
	c := on.Call("query_records", map[string]any{"stream": name, "limit": 1})
	avail := expectAmbiguity(t, c, name, len(total))
	if on != t {
		expectNoChildProbes(on)
	}
	conn, _ := avail[0]["connection_id"].(string)
	retry := on.Call("query_records", map[string]any{"stream": name, "limit": 1, "connection_id": conn})
	t.Expect(retry.IsError()).To(BeFalse(), "retrying with a listed connection_id must work: %s", retry.Describe())

	if !t.Target.Has(CapFixture) {
		t.Record("large grant", "not exercised: "+CapFixture.SkipReason())
		return
	}
	fx, err := conformance.LoadFixture("wide-25")
	t.Expect(err).NotTo(HaveOccurred())
	wide := t.On(t.Fork(fx))
	c = wide.Call("query_records", map[string]any{"stream": "messages", "limit": 1})
	expectAmbiguity(t, c, "messages", 25)
	expectNoChildProbes(wide)
}}

// expectAmbiguity holds an error to seed 001's ambiguity shape and returns
// its available_connections.
func expectAmbiguity(t *T, c *Call, stream string, total int) []map[string]any {
	t.Expect(c.IsError()).To(BeTrue(), "query_records on stream %q, served by %d connections, without connection_id must ask which: %s", stream, total, c.Describe())
	e := c.ErrorObject()
	t.Expect(e).NotTo(BeNil(), "the ambiguity error must be a typed object: %s", c.Describe())
	t.Expect(e["code"]).To(Equal("ambiguous_connection"), "code must be ambiguous_connection: %s", c.Describe())
	t.Expect(retryWith(e["retry_with"])).To(Equal("connection_id"), "retry_with must be connection_id: %v", e["retry_with"])
	raw, _ := e["available_connections"].([]any)
	t.Expect(raw).NotTo(BeEmpty(), "available_connections must list connections to retry with")
	t.Expect(len(raw)).To(BeNumerically("<=", ambiguityListMax), "available_connections must be capped at %d entries", ambiguityListMax)
	var avail []map[string]any
	for _, a := range raw {
		am, _ := a.(map[string]any)
		for _, k := range []string{"grant_id", "connector_key", "connection_id"} {
			t.Expect(am[k]).NotTo(BeEmpty(), "each available connection carries %s: %v", k, am)
		}
		t.Expect(am).NotTo(HaveKey("connector_id"), "entries carry connector_key, not connector_id: %v", am)
		avail = append(avail, am)
	}
	if total > len(raw) {
		t.Expect(e["available_connection_count"]).To(BeNumerically("==", total), "a truncated list must give the total count")
		t.Expect(e["available_connections_truncated"]).To(Equal(true), "a truncated list must say so")
		t.Expect(e["available_connections_omitted"]).To(BeNumerically("==", total-len(raw)), "a truncated list must count what it omits")
		hint, _ := e["discovery_hint"].(string)
		t.Expect(schemaHintRe.MatchString(hint) || strings.Contains(c.Text(), "schema")).To(BeTrue(), "a truncated list must point to schema for the full index")
	}
	return avail
}

// expectNoChildProbes holds an RS log to seed 001: the ambiguity error is
// built from membership, with no record reads of any connection.
func expectNoChildProbes(t *T) {
	probes := 0
	for _, r := range t.RS().Requests() {
		if strings.HasPrefix(r.Path, "/v1/streams/") {
			probes++
		}
	}
	t.Expect(probes).To(BeZero(), "the ambiguity error must come from grant membership, without probing any connection's records")
}
