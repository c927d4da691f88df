package checks

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// maxExpandProbes bounds how many streams a check asks schema(stream) about
// while looking for one with (or without) expand relations.
const maxExpandProbes = 20

// expandTarget is a stream, one of its connections, and a relation.
type expandTarget struct {
	stream, conn, rel string
}

// An expandSearch is what a look for an expand subject found: the
// subject, or in absent how many streams were read in full, every row
// listing its expand_capabilities, with none usable (0: not every stream
// was seen, so a relation may exist unseen).
type expandSearch struct {
	et     expandTarget
	ok     bool
	absent int
}

// findExpand looks through scoped schemas for a stream row whose
// expand_capabilities advertise a usable relation (want) or whose rows
// advertise none (!want). It judges the schema calls it makes.
func findExpand(t *T, want bool) expandSearch {
	return conformance.Discover(t, fmt.Sprint("expand-", want), func() expandSearch {
		_, index := probe.SchemaIndex(t)
		return searchExpand(index, want, func(name string) []probe.SchemaRow {
			_, rows := probe.ScopedSchema(t, dialect.Args{dialect.Stream: name})
			return rows
		})
	})
}

// expandSubject is findExpand for the expand-gate checks, which judge no
// schema call: an index the target does not give blocks the check (S017
// owns it), and a scoped schema that fails is passed over.
func expandSubject(t *T, want bool) expandSearch {
	index := probe.ReadIndex(t)
	return conformance.Discover(t, fmt.Sprint("expand-subject-", want), func() expandSearch {
		return searchExpand(index, want, func(name string) []probe.SchemaRow {
			c := probe.SchemaCall(t, dialect.Args{dialect.Stream: name})
			if c.IsError() {
				return nil
			}
			return probe.RowsNamed(probe.SchemaRows(c.Data()), name)
		})
	})
}

// searchExpand asks scoped, stream by stream, for a row that advertises a
// relation (want) or a stream none of whose rows does (!want).
func searchExpand(index []probe.SchemaRow, want bool, scoped func(stream string) []probe.SchemaRow) expandSearch {
	names := probe.StreamNames(index)
	seenAll := len(names) > 0 && len(names) <= maxExpandProbes
	for i, name := range names {
		if i == maxExpandProbes {
			break
		}
		rows := scoped(name)
		seenAll = seenAll && len(rows) > 0
		advertised := false
		for _, r := range rows {
			if _, listed := r.Raw["expand_capabilities"].([]any); !listed {
				seenAll = false // another notation, or none: not seen
			}
			if len(r.Expand) > 0 {
				advertised = true
				if want {
					et := expandTarget{stream: name, rel: r.Expand[0]}
					if len(r.Connections) > 0 {
						et.conn = r.Connections[0]
					}
					return expandSearch{et: et, ok: true}
				}
			}
		}
		if !want && !advertised && len(rows) > 0 {
			et := expandTarget{stream: name, rel: "mcpcheck_unadvertised"}
			if len(rows[0].Connections) > 0 {
				et.conn = rows[0].Connections[0]
			}
			return expandSearch{et: et, ok: true}
		}
	}
	if want && seenAll {
		return expandSearch{absent: len(names)}
	}
	return expandSearch{}
}

func (e expandTarget) roles(extra dialect.Args) dialect.Args {
	a := dialect.Args{dialect.Stream: e.stream, dialect.Expand: []string{e.rel}, dialect.Limit: 2}
	if e.conn != "" {
		a[dialect.Connection] = e.conn
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// Seed 000: "the adapter SHALL forward the request to the RS" and "the RS
// response SHALL reach the client unchanged". Forwarding holds during a
// schema outage too: the gate "SHALL defer to the RS (fail-open on schema
// unavailability)", and the stream still advertises its relations.
var s007 = &Check{ID: "S007", Slug: "expand-advertised-forwarded", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	found := expandSubject(t, true)
	et := found.et
	switch {
	case found.ok:
	case t.Target.Has(CapFixture):
		t.Skipf("no stream in the target's schema advertises expand_capabilities, though mcpcheck's fixture RS serves relations (S009 judges the schema)")
	case found.absent > 0:
		t.NotApplicable("no stream in the target's grant advertises an expand relation: decided from the target's schema, whose %d streams each list expand_capabilities with none usable (mcpcheck controls no RS here)", found.absent)
	default:
		t.Skipf("no stream the target's schema showed advertises expand_capabilities, but not every stream's expand_capabilities could be read (over %d streams, a failed schema(stream), or another notation): "+
			"--rs-control would serve the adapter mcpcheck's fixture RS, whose streams have relations", maxExpandProbes)
	}
	if !t.Target.Has(CapFixture) {
		c := t.CallRoles("query_records", et.roles(nil))
		t.Clause(1, func() {
			if t.Assert(!c.IsError(), "advertised expand on %q must be forwarded, not rejected: %s", et.stream, c.Describe()) {
				t.Skipf("that the relation reached the RS shows only in its request log: %s", CapFixture.SkipReason())
			}
		})
		t.Clause(2, func() { t.Skipf("comparing with the RS's own answer needs a fixture RS: %s", CapFixture.SkipReason()) })
		return
	}
	ft := t.On(t.ForkSame())
	c := ft.CallRoles("query_records", et.roles(nil))
	sent := expandCalls(ft, et)
	t.Clause(1, func() {
		t.Assert(len(sent) > 0, "the RS records endpoint must receive the request with expand=%s: %s", et.rel, c.Describe())
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
		t.Assert(reflect.DeepEqual(probe.JSONValue(sc["data"]), want) || reflect.DeepEqual(probe.JSONValue(sc), want) || carriesUnchanged(sc, want),
			"the RS response must reach the client unchanged (as structuredContent, its data, or its records and handles under other keys): %s", clipText(probe.CompactJSON(sc), 300))
	})
	t.Clause(1, func() {
		ft.RS().InjectFault("/v1/schema", fakers.Fault{Status: 503})
		before := len(expandCalls(ft, et))
		d := ft.CallRoles("query_records", et.roles(nil))
		t.Assert(len(expandCalls(ft, et)) > before, "with GET /v1/schema failing, the gate must defer to the RS and forward expand=%s: %s", et.rel, d.Describe())
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

// expandCalls are the RS record-list or record-detail requests of a stream
// that carried expand, on t's target.
func expandCalls(t *T, et expandTarget) []fakers.Request {
	var out []fakers.Request
	for _, r := range t.RS().RequestsTo("/v1/streams/" + url.PathEscape(et.stream) + "/records") {
		q, _ := url.ParseQuery(r.RawQuery)
		for _, k := range []string{"expand", "expand[]"} {
			for _, v := range q[k] {
				if strings.EqualFold(v, et.rel) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}
