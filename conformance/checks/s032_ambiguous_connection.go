package checks

import (
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// ambiguityListMax is mcpcheck's own cap on available_connections (the
// anchor's): seed 001 says only that large lists are capped.
const ambiguityListMax = 12

var schemaHintRe = regexp.MustCompile(`\bschema\b`)

// The ambiguity error is judged where the adapter gives one for a read of
// a stream several connections serve, without connection_id. An adapter
// that forwards such a read over one grant, and answers with the RS's
// fanned-in records, each naming its connection, asks nothing: seed 001's
// error is for source-required reads over a multi-source package, so the
// scenario does not apply to it.
var s032 = &Check{ID: "S032", Slug: "ambiguous-connection", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	index := probe.ReadsIndex(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		t.Skipf("%s", probe.NoSharedStream)
	}
	total := map[string]bool{}
	for _, r := range probe.RowsNamed(index, name) {
		for _, c := range r.Connections {
			total[c] = true
		}
	}
	on := t.Private()
	c := on.CallRoles("query_records", dialect.Args{dialect.Stream: name, dialect.Limit: 1})
	if !c.IsError() {
		judgeFanIn(t, c, name)
		return
	}
	avail := expectAmbiguity(t, c, name, len(total))
	if on != t {
		t.Clause(2, func() { expectNoChildProbes(t, on) })
	} else {
		t.Clause(2, func() {
			t.Skipf("whether a child source was probed shows only in the RS request log: %s", CapFixture.SkipReason())
		})
	}
	if len(avail) > 0 {
		t.Clause(3, func() {
			conn := probe.String(avail[0]["connection_id"])
			retry := on.CallRoles("query_records", dialect.Args{dialect.Stream: name, dialect.Limit: 1, dialect.Connection: conn})
			t.Assert(!retry.IsError(), "retrying with the listed connection_id %q must work at once: %s", conn, retry.Describe())
		})
	}
	if !t.Target.Has(CapFixture) {
		t.Clause(4, func() { t.Skipf("a large package needs the wide-25 fixture: %s", CapFixture.SkipReason()) })
		return
	}
	fx, err := conformance.LoadFixture("wide-25")
	if err != nil {
		t.Fatalf("load the wide-25 fixture: %v", err)
	}
	wide := t.On(t.Fork(fx))
	c = wide.CallRoles("query_records", dialect.Args{dialect.Stream: "messages", dialect.Limit: 1})
	if !c.IsError() {
		t.Clause(4, func() { t.Skipf("the adapter answers the wide-25 read by fanning in: no large-package error to judge") })
		return
	}
	expectAmbiguity(t, c, "messages", len(fx.Connectors[0].Connections))
	t.Clause(2, func() { expectNoChildProbes(t, wide) })
}}

// judgeFanIn handles a multi-source read that succeeded: a fanned-in
// answer whose records name their connections leaves the scenario without
// its subject; an answer that hides where records come from breaks S032.1.
func judgeFanIn(t *T, c *Call, stream string) {
	recs := probe.Records(c)
	named := len(recs) > 0
	for _, r := range recs {
		named = named && probe.String(r["connection_id"]) != ""
	}
	if named {
		t.NotApplicable("the adapter answers a read of stream %q without connection_id by fanning in, each record naming its connection: no ambiguity error to judge", stream)
	}
	t.Clause(1, func() {
		t.Fatalf("query_records on stream %q, which several connections serve, without connection_id must either ask which (a typed ambiguous_connection error) or fan in with each record's connection_id: %s",
			stream, c.Describe())
	})
}

// expectAmbiguity judges an ambiguity error against seed 001: its type
// (S032.1), its entries (S032.3) and, when it lists fewer connections than
// there are, its totals and schema hint (S032.4). It returns the entries.
func expectAmbiguity(t *T, c *Call, stream string, total int) []map[string]any {
	e := c.ErrorObject()
	t.Clause(1, func() {
		if !t.Assert(e != nil, "query_records on stream %q, served by %d connections, without connection_id must fail with a typed error object: %s", stream, total, c.Describe()) {
			return
		}
		t.Assert(e["code"] == "ambiguous_connection", "the error's code must be ambiguous_connection, not %v: %s", e["code"], c.Describe())
		t.Assert(retryWith(e["retry_with"]) == "connection_id", "retry_with must be connection_id, not %v", e["retry_with"])
	})
	if e == nil {
		return nil
	}
	raw, _ := e["available_connections"].([]any)
	var avail []map[string]any
	for _, a := range raw {
		if am, ok := a.(map[string]any); ok {
			avail = append(avail, am)
		}
	}
	t.Clause(3, func() {
		if !t.Assert(len(avail) > 0, "available_connections must list the connections to retry with: %s", c.Describe()) {
			return
		}
		for _, am := range avail {
			for _, k := range []string{"grant_id", "connector_key", "connection_id"} {
				t.Assert(probe.String(am[k]) != "", "each available connection carries %s: %v", k, am)
			}
		}
	})
	if total <= ambiguityListMax && len(avail) >= total {
		return avail
	}
	t.Clause(4, func() {
		t.Threshold().Expect(len(avail)).To(BeNumerically("<=", ambiguityListMax), "a package of %d connections: available_connections must be capped (mcpcheck caps at %d)", total, ambiguityListMax)
		if len(avail) >= total {
			return
		}
		t.Assert(numberIn(e, total), "a list of %d of %d connections must carry the total %d: %s", len(avail), total, total, clipText(probe.CompactJSON(e), 400))
		t.Assert(truncationSaid(e, total-len(avail)), "a list of %d of %d connections must say it is truncated (a flag, or the %d left out): %s",
			len(avail), total, total-len(avail), clipText(probe.CompactJSON(e), 400))
		t.Assert(schemaHintRe.MatchString(c.Text()), "a truncated list must tell the model, in content[] text, to call schema for the full connection index:\n%s", clipText(c.Text(), 400))
	})
	return avail
}

// numberIn reports whether n is a number anywhere in v.
func numberIn(v any, n int) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if numberIn(e, n) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if numberIn(e, n) {
				return true
			}
		}
	case float64:
		return x == float64(n)
	case string:
		return false
	}
	return fmt.Sprint(v) == fmt.Sprint(n)
}

// truncationSaid reports a truncation signal in an error object: a true
// flag under a key about truncation or more, or the number left out.
func truncationSaid(e map[string]any, omitted int) bool {
	for k, v := range e {
		lk := strings.ToLower(k)
		if v == true && (strings.Contains(lk, "truncat") || strings.Contains(lk, "more") || strings.Contains(lk, "partial")) {
			return true
		}
		if strings.Contains(lk, "omit") || strings.Contains(lk, "more") || strings.Contains(lk, "truncat") || strings.Contains(lk, "remaining") {
			if numberIn(v, omitted) {
				return true
			}
		}
	}
	return false
}

// expectNoChildProbes judges S032.2 on a fork's RS log: the ambiguity
// error comes from grant membership, with no record read of any connection.
func expectNoChildProbes(t *T, on *T) {
	probes := 0
	for _, r := range on.RS().Requests() {
		if strings.HasPrefix(r.Path, "/v1/streams/") {
			probes++
		}
	}
	t.Assert(probes == 0, "the ambiguity error must come from grant membership, without reading any connection's records: the RS served %d stream reads", probes)
}
