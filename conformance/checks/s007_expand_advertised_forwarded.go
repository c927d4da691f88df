package checks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/read"

	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Seed 000: "the adapter SHALL forward the request to the RS" and "the RS
// response SHALL reach the client unchanged". Forwarding holds during a
// schema outage too: the gate "SHALL defer to the RS (fail-open on schema
// unavailability)", and the stream still advertises its relations.
var s007 = &Check{ID: "S007", Slug: "expand-advertised-forwarded", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	// The relation is the fixture RS's own advertisement where mcpcheck
	// holds it, else the target's schema's.
	found := probe.FixtureExpand(t, true)
	if !found.Found && found.Absent == 0 {
		found = probe.ExpandSubject(t, true)
	}
	et := found.Target
	switch {
	case found.Found:
	case t.Target.Has(CapFixture):
		t.Skipf("no stream of mcpcheck's fixture RS, nor of the target's schema, advertises expand_capabilities")
	case found.Absent > 0:
		t.NotApplicable("no stream in the target's grant advertises an expand relation: decided from %s, whose %d streams each list expand_capabilities with none usable (mcpcheck controls no RS here)", found.AbsentFrom(), found.Absent)
	default:
		t.Skipf("no stream the target's schema showed advertises expand_capabilities, but not every stream's expand_capabilities could be read (over %d streams, a failed schema(stream), or another notation): "+
			"--rs-control would serve the adapter mcpcheck's fixture RS, whose streams have relations", probe.MaxExpandProbes)
	}
	shown := probe.ExpandShown(t, et)
	if !t.Target.Has(CapFixture) {
		c := t.CallRoles("query_records", et.Roles(nil))
		t.Clause(1, func() {
			if t.Works(c, shown, "advertised expand on %q must be forwarded, not rejected", et.Stream) {
				t.SkipFor(CapFixture, "that the relation reached the RS shows only in its request log")
			}
		})
		t.Clause(2, func() { t.SkipFor(CapFixture, "comparing with the RS's own answer needs a fixture RS") })
		return
	}
	ft := t.On(t.ForkSame())
	path := probe.RecordsPath(et.Stream)
	// forwarded judges one call: refused, it is its own witness; answered,
	// the RS's request log since mark must show the relation.
	forwarded := func(c *Call, mark int64, format string, args ...any) bool {
		if !t.Works(c, shown, format, args...) {
			return false
		}
		sent := slices.ContainsFunc(probe.ExpandCalls(ft, et), func(r fakers.Request) bool { return r.Seq > mark })
		return t.AssertWith(sent, func() (conformance.Witness, error) {
			return conformance.Absent(read.Text(et.Rel), probe.RequestLog(ft, path, mark))
		}, format+": the RS records endpoint never received expand=%s", append(args, et.Rel)...)
	}
	mark := probe.LastSeq(ft)
	// A page long enough to hold related records: their values are what a
	// dropped relation would leave out.
	c := ft.CallRoles("query_records", et.Roles(dialect.Args{dialect.Limit: 10}))
	var sent []fakers.Request
	for _, r := range probe.ExpandCalls(ft, et) {
		if r.Seq > mark {
			sent = append(sent, r)
		}
	}
	t.Clause(1, func() {
		forwarded(c, mark, "advertised expand=%s on %q must be forwarded to the RS", et.Rel, et.Stream)
	})
	t.Clause(2, func() {
		if len(sent) == 0 {
			t.BlockedBy("S007", "the RS never received the expand (S007.1)")
		}
		status, body := ft.RS().Replay(sent[0])
		if status != 200 {
			t.Skipf("the RS refused the expand (HTTP %d): no answer to compare", status)
		}
		var want any
		_ = json.Unmarshal(body, &want)
		sc := c.Structured()
		same := reflect.DeepEqual(probe.JSONValue(sc["data"]), want) || reflect.DeepEqual(probe.JSONValue(sc), want) || carriesUnchanged(sc, want)
		// A value of the RS's answer found nowhere in the target's is the
		// witness that it did not reach the client unchanged.
		t.AssertWith(same, func() (conformance.Witness, error) {
			v := probe.MissingValue(want, c)
			if v == "" {
				return conformance.Witness{}, fmt.Errorf("every value of the RS's answer is in the target's; only their arrangement differs")
			}
			return conformance.Absent(read.Text(v), c)
		}, "the RS response to expand=%s must reach the client unchanged (as structuredContent, its data, or its records and handles under other keys): %s", et.Rel, clipText(probe.CompactJSON(sc), 300))
	})
	t.Clause(1, func() {
		ft.RS().InjectFault("/v1/schema", fakers.Fault{Status: 503})
		mark := probe.LastSeq(ft)
		d := ft.CallRoles("query_records", et.Roles(nil))
		forwarded(d, mark, "with GET /v1/schema failing, the gate must defer to the RS and forward expand=%s", et.Rel)
	})
}}

// carriesUnchanged reports whether structured holds every record of the RS
// answer env unchanged, in any list, and its paging handles as values:
// seed 003 leaves where records sit open, not what they hold.
func carriesUnchanged(structured map[string]any, env any) bool {
	e, _ := env.(map[string]any)
	recs, _ := e["data"].([]any)
	if len(recs) == 0 {
		return false
	}
	var shown []any
	for _, l := range probe.ObjectLists(probe.JSONValue(structured)) {
		for _, it := range l.Items {
			shown = append(shown, it)
		}
	}
	for _, r := range recs {
		if !slices.ContainsFunc(shown, func(s any) bool { return reflect.DeepEqual(s, r) }) {
			return false
		}
	}
	values := probe.StringValues(probe.JSONValue(structured))
	for _, k := range []string{"next_cursor", "next_changes_since"} {
		if h, ok := e[k].(string); ok && h != "" && !slices.Contains(values, h) {
			return false
		}
	}
	return true
}
