package checks

import (
	"fmt"
	"maps"
	"net/url"
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

// ambiguityListMax is mcpcheck's own cap on available_connections (the
// anchor's): seed 001 says only that large lists are capped.
const ambiguityListMax = 12

// smallPackageMax is where mcpcheck stops calling a package small: seed
// 001 wants "enough source identity for immediate retry on small
// packages" without saying where small ends, and two or three sources are
// small under any reading.
const smallPackageMax = 3

var schemaHintRe = regexp.MustCompile(`\bschema\b`)

// The ambiguity error is judged wherever the adapter gives one for a read
// without connection_id of a stream several connections serve: a plain
// read, a changes feed, a distinct count, a fetch or field read of a record
// several connections hold. Which reads need a source is the adapter's
// choice; a refusal that says the source is ambiguous is the seed's error
// and is judged in full, every one of them. An adapter that refuses none,
// and fans in with each record naming its connection, asks nothing: the
// scenario does not apply to it.
var s032 = &Check{ID: "S032", Slug: "ambiguous-connection", Mode: ModeBBD, Tools: []string{"query_records"}, Run: func(t *T) {
	index := probe.Grant(t)
	name, ok := probe.SharedStream(index)
	if !ok {
		probe.SkipNoSharedStream(t)
	}
	total := map[string]bool{}
	for _, r := range probe.RowsNamed(index, name) {
		for _, c := range r.Connections {
			total[c] = true
		}
	}
	on := t.Private()
	refusals, plain := ambiguityRefusals(t, on, name)
	judgeHiddenAmbiguity(t, on, name)
	// A plain read fanned in (beside refusals of other reads, or not)
	// must credit each record to its own source in text too.
	credited := false
	if plain != nil && !plain.IsError() {
		credited = creditsAnotherSource(t, on, plain, probe.RecordsShown(on, plain, name), name)
		if !credited {
			// A page of several records, so there is a source to mix up.
			wide := on.CallRoles("query_records", dialect.Args{dialect.Stream: name, dialect.Limit: 6})
			credited = !wide.IsError() && creditsAnotherSource(t, on, wide, probe.RecordsShown(on, wide, name), name)
		}
	}
	if len(refusals) == 0 {
		if !credited {
			judgeFanIn(t, on, plain, name)
		}
		return
	}
	for _, r := range refusals {
		avail := expectAmbiguity(t, on, r, name)
		if on != t {
			t.Clause(2, func() { expectNoChildProbes(t, r) })
		} else {
			t.Clause(2, func() {
				t.SkipFor(CapFixture, "whether a child source was probed shows only in the RS request log")
			})
		}
		if len(avail) > 0 && r.call.Tool == "query_records" {
			t.Clause(3, func() {
				conn := probe.String(avail[0]["connection_id"])
				args := dialect.Args{dialect.Stream: name, dialect.Limit: 1, dialect.Connection: conn}
				retry := on.CallRoles("query_records", args)
				t.Works(retry, conformance.Answers(r.call, probe.GrantNames(t)), "retrying with the listed connection_id %q must work at once", conn)
			})
		}
	}
	if !t.Target.Has(CapFixture) {
		t.Clause(4, func() { t.SkipFor(CapFixture, "a large package needs the wide-25 fixture") })
		return
	}
	fx, err := conformance.LoadFixture("wide-25")
	if err != nil {
		t.Fatalf("load the wide-25 fixture: %v", err)
	}
	plantSharedRecord(fx, "messages")
	wide := t.On(t.Fork(fx))
	wideRefusals, _ := ambiguityRefusals(t, wide, "messages")
	if len(wideRefusals) == 0 {
		t.Clause(4, func() {
			t.Skipf("the adapter refuses no read of the wide-25 grant for want of a connection: no large-package error to judge")
		})
		return
	}
	for _, r := range wideRefusals {
		expectAmbiguity(t, wide, r, "messages")
		t.Clause(2, func() { expectNoChildProbes(t, r) })
	}
}}

// A refusal is a read the target refused for an ambiguous source, with
// the RS requests it made meanwhile, the number of connections the read
// could mean and, where mcpcheck holds the fixture, which they are.
type refusal struct {
	call  *Call
	reqs  []fakers.Request
	total int
	conns []string
}

// ambiguousRe is an error's word for an ambiguous source: an error that
// calls the source ambiguous is the seed's error, whatever else it says.
// Another refusal that names connection_id (an RS's "not supported
// across connections", relayed) is judged as the seed's error too when the
// same read naming a connection works: the read needs a source.
var ambiguousRe = regexp.MustCompile(`(?i)ambiguous`)

// ambiguityRefusals makes the reads of stream that need one source,
// without connection_id, and returns those the target refused for an
// ambiguous source (an error naming connection_id and the ambiguity), with
// the plain read's answer.
func ambiguityRefusals(t, on *T, stream string) ([]refusal, *Call) {
	shared := sharedRecordID(on, stream)
	type try struct {
		tool  string
		args  dialect.Args
		total int
		conns []string
	}
	var tries []try
	conns, held := len(streamConnections(on, stream)), fixtureStreamConnections(on, stream)
	add := func(tool string, args dialect.Args) { tries = append(tries, try{tool, args, conns, held}) }
	add("query_records", dialect.Args{dialect.Stream: stream, dialect.Limit: 1})
	if on.HasRole("query_records", dialect.ChangesSince) {
		add("query_records", dialect.Args{dialect.Stream: stream, dialect.Limit: 1, dialect.ChangesSince: "beginning"})
	}
	if f := distinctField(on, stream); f != "" && probe.Serves(on.Target, "aggregate") {
		add("aggregate", dialect.Args{dialect.Stream: stream, dialect.Metric: "count_distinct", dialect.Field: f})
	}
	if shared != "" {
		holders := recordConnections(on, stream, shared)
		for _, args := range sharedRecordFetches(on, stream, shared) {
			tries = append(tries, try{"fetch", args, len(holders), holders})
		}
	}
	var out []refusal
	var plain *Call
	for i, try := range tries {
		if !probe.Serves(on.Target, try.tool) || !allDeclared(on, try.tool, try.args) {
			continue
		}
		before := 0
		if on.Target.Has(CapControlledRS) {
			before = len(on.RS().Requests())
		}
		c := on.CallRoles(try.tool, try.args)
		if i == 0 {
			plain = c
		}
		if !c.IsError() || !read.ContainsToken(c.Text()+probe.CompactJSON(c.Structured()), "connection_id") {
			continue
		}
		// Refused for want of a connection: the same read naming one
		// works (an error that calls the source ambiguous says so itself).
		r := refusal{call: c, total: try.total, conns: try.conns}
		if on.Target.Has(CapControlledRS) {
			r.reqs = on.RS().Requests()[before:]
		}
		if !ambiguousRe.MatchString(c.Text()+" "+c.ErrorCode()) && !worksWithConnection(on, try.tool, try.args, stream) {
			continue
		}
		out = append(out, r)
	}
	return out, plain
}

// judgeHiddenAmbiguity judges a fetch of a record id that several
// connections of the grant hold: refused with an error that names no
// connection, while the same fetch naming one of them works, it passes the
// ambiguity off as something else (not found, say) and gives the client
// nothing to retry with.
func judgeHiddenAmbiguity(t, on *T, stream string) {
	shared := sharedRecordID(on, stream)
	holders := recordConnections(on, stream, shared)
	if shared == "" || len(holders) < 2 || !probe.Serves(on.Target, "fetch") || !on.HasRole("fetch", dialect.Connection) {
		return
	}
	for _, args := range sharedRecordFetches(on, stream, shared) {
		id := probe.String(args[dialect.RecordID])
		c := on.CallRoles("fetch", args)
		if !c.IsError() || read.ContainsToken(c.Text()+probe.CompactJSON(c.Structured()), "connection_id") || ambiguousRe.MatchString(c.Text()+" "+c.ErrorCode()) {
			continue
		}
		scoped := on.CallRoles("fetch", withConnection(args, holders[0]))
		if scoped.IsError() {
			continue
		}
		t.Clause(1, func() {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: id, In: []string{c.Describe(), "while " + scoped.Describe() + " works"}}, nil
			}, "fetch of %s, which connections %v of the grant hold, is refused without the ambiguous_connection error (%s): the same fetch naming %s works", id, holders, c.ErrorCode(), holders[0])
		})
		return
	}
}

// allDeclared reports whether the target declares an argument for every
// role of args on tool: a read it cannot be asked is not made.
func allDeclared(t *T, tool string, args dialect.Args) bool {
	for r := range args {
		if !t.HasRole(tool, r) {
			return false
		}
	}
	return true
}

// distinctField is a field of stream the grant lets count_distinct, or "".
func distinctField(t *T, stream string) string {
	for _, r := range probe.RowsNamed(probe.Grant(t), stream) {
		for f, v := range r.FieldCaps {
			if slices.Contains(probe.CapOf(v).Aggs, "count_distinct") {
				return f
			}
		}
	}
	return ""
}

// judgeFanIn handles a multi-source read that succeeded: a fanned-in
// answer that shows each record's connection leaves the scenario without
// its subject; one that hides where a record comes from breaks S032.1.
func judgeFanIn(t, on *T, c *Call, stream string) {
	if c == nil || c.IsError() {
		t.NotApplicable("no read of stream %q without connection_id was refused for an ambiguous source", stream)
	}
	refs := probe.RecordsShown(on, c, stream)
	hidden := slices.DeleteFunc(slices.Clone(refs), func(r probe.RecordRef) bool {
		return read.ContainsToken(probe.BlocksWith(c.Text(), r.ID)+probe.CompactJSON(c.Structured()), r.Conn)
	})
	if len(hidden) == 0 {
		t.NotApplicable("the adapter answers a read of stream %q without connection_id by fanning in, each record naming its connection: no ambiguity error to judge", stream)
	}
	t.Clause(1, func() {
		w, err := conformance.Absent(read.Text(hidden[0].Conn), conformance.Shown("the text blocks and structuredContent showing "+hidden[0].ID, probe.BlocksWith(c.Text(), hidden[0].ID)+"\n"+probe.CompactJSON(c.Structured())))
		t.FailWith(w, err, "query_records on stream %q, which several connections serve, without connection_id must either ask which (a typed ambiguous_connection error) or fan in with each record's connection_id: %s", stream, c.Describe())
	})
}

// creditsAnotherSource holds the text about each record of a fanned-in
// read to the record's connection, as S024 holds a hit's: a record's lines
// that name another connection of the stream, and not its own, show it
// under the wrong source (S032.1's "each record's connection_id"). It
// reports whether one did.
func creditsAnotherSource(t, on *T, c *Call, refs []probe.RecordRef, stream string) bool {
	conns := fixtureStreamConnections(on, stream)
	ids := map[string]int{}
	for _, r := range refs {
		ids[r.ID]++
	}
	others := slices.Collect(maps.Keys(ids))
	for _, r := range refs {
		if ids[r.ID] > 1 {
			continue // the same id in two connections: its lines are not its own
		}
		seg := probe.Segment(c.Text(), r.ID, others)
		if seg == "" || read.ContainsToken(seg, r.Conn) {
			continue
		}
		for _, other := range conns {
			if other != r.Conn && read.ContainsToken(seg, other) {
				t.Clause(1, func() {
					t.AssertWith(false, func() (conformance.Witness, error) {
						return conformance.Present(other, conformance.Shown("the text about record "+r.String(), seg))
					}, "query_records on stream %q without connection_id fans in, but its text shows %s, a record of %s, under connection %s", stream, r, r.Conn, other)
				})
				return true
			}
		}
	}
	return false
}

// expectAmbiguity judges an ambiguity error against seed 001: its type
// (S032.1), its entries (S032.3) and, when it lists fewer connections than
// there are, its totals and schema hint (S032.4), r's call being one on
// on. It returns the entries.
func expectAmbiguity(t, on *T, r refusal, stream string) []map[string]any {
	c, total := r.call, r.total
	e := c.ErrorObject()
	t.Clause(1, func() {
		t.Shows(c, read.Text("ambiguous_connection"), "%s without connection_id on stream %q, served by %d connections, must fail with a typed ambiguous_connection error", c.Tool, stream, total)
		t.AssertWith(retryWith(e["retry_with"]) == "connection_id" || retriesWithConnection(c), func() (conformance.Witness, error) { return wrongRetry(c) },
			"the ambiguity error must say retry_with: \"connection_id\": %s", c.Describe())
	})
	avail := ambiguityCandidates(c)
	t.Clause(3, func() {
		if !t.Shows(c, read.Text("available_connections"), "the ambiguity error must list the connections to retry with as available_connections") {
			return
		}
		for _, am := range avail {
			for _, k := range []string{"grant_id", "connector_key", "connection_id"} {
				t.AssertWith(probe.String(am[k]) != "", func() (conformance.Witness, error) {
					return conformance.Absent(read.Text(k), conformance.Shown("an entry of available_connections", probe.CompactJSON(am)))
				}, "each available connection carries %s: %v", k, am)
			}
			judgeCandidate(t, on, am, stream)
		}
		judgeSmallPackage(t, r, avail)
	})
	// Clause 4 is about large packages: a list cut short of a package
	// over mcpcheck's cap (an empty list is clause 3's failure).
	if total <= ambiguityListMax && (len(avail) >= total || len(avail) == 0) {
		return avail
	}
	t.Clause(4, func() {
		t.Threshold().Expect(len(avail)).To(BeNumerically("<=", ambiguityListMax), "a package of %d connections: available_connections must be capped (mcpcheck caps at %d)", total, ambiguityListMax)
		if len(avail) >= total {
			return
		}
		obj := conformance.Shown("the error object", probe.CompactJSON(e))
		t.AssertWith(numberIn(e, total), func() (conformance.Witness, error) { return conformance.Absent(read.Number(total), obj) },
			"a list of %d of %d connections must carry the total %d: %s", len(avail), total, total, clipText(probe.CompactJSON(e), 400))
		t.AssertWith(truncationSaid(e, total-len(avail)), func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts("truncat", "more", "omit", "partial", "remaining", strconv.Itoa(total-len(avail))), obj)
		}, "a list of %d of %d connections must say it is truncated (a flag, or the %d left out): %s",
			len(avail), total, total-len(avail), clipText(probe.CompactJSON(e), 400))
		judgeListState(t, e, total-len(avail), obj)
		t.AssertWith(schemaHintRe.MatchString(c.Text()), func() (conformance.Witness, error) {
			return conformance.Absent(read.Text("schema"), conformance.TextOf(c))
		},
			"a truncated list must tell the model, in content[] text, to call schema for the full connection index:\n%s", clipText(c.Text(), 400))
	})
	return avail
}

// ambiguityCandidates are the entries of an error's available_connections.
func ambiguityCandidates(c *Call) []map[string]any {
	raw, _ := c.ErrorObject()["available_connections"].([]any)
	var avail []map[string]any
	for _, a := range raw {
		if am, ok := a.(map[string]any); ok {
			avail = append(avail, am)
		}
	}
	return avail
}

// judgeCandidate holds an available_connections entry to the fixture,
// where mcpcheck holds it: a connection that serves stream, its
// connector's key, and the grant's id: the fixture on serves.
func judgeCandidate(t, on *T, am map[string]any, stream string) {
	if !on.Target.Has(CapControlledRS) {
		return
	}
	fx := on.RS().Fixture()
	entry := conformance.Shown("the entry of available_connections "+probe.CompactJSON(am), probe.CompactJSON(am))
	if g := probe.String(am["grant_id"]); g != "" && fx.Grant.ID != "" {
		t.AssertWith(g == fx.Grant.ID, func() (conformance.Witness, error) { return conformance.Absent(read.Text(fx.Grant.ID), entry) },
			"an available connection's grant_id is %q, not the grant's id %s", g, fx.Grant.ID)
	}
	conn := probe.String(am["connection_id"])
	if conn == "" {
		return
	}
	for _, st := range fx.StreamsNamed(stream) {
		if slices.Contains(st.Connections, conn) && grantedConnection(fx, stream, conn) {
			if key := probe.String(am["connector_key"]); key != "" && key != st.Connector {
				// The witness is the other connector's key in the entry: its
				// own key may well be inside the connection id or label.
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(key, entry) },
					"available connection %s is %s's, but its entry names connector_key %q", conn, st.Connector, key)
			}
			return
		}
	}
	t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(conn, entry) },
		"the ambiguity error for stream %q lists connection %s, which does not serve it in the grant", stream, conn)
}

// judgeSmallPackage holds the error for a small package to seed 001's
// "enough source identity for immediate retry": every connection the read
// could mean, in the fixture, is named in it (a capped list is for large
// packages). The witness is a candidate named nowhere in the answer.
func judgeSmallPackage(t *T, r refusal, avail []map[string]any) {
	if len(r.conns) < 2 || len(r.conns) > smallPackageMax || len(avail) == 0 {
		return
	}
	label, all := "the ambiguity error's text and structuredContent", r.call.Text()+"\n"+probe.CompactJSON(r.call.Structured())
	for _, conn := range r.conns {
		t.AssertWith(read.ContainsToken(all, conn), func() (conformance.Witness, error) {
			return conformance.Absent(read.Text(conn), conformance.Shown(label, all))
		},
			"%s: a package of %d connections is small, so the error must name every one to retry with at once (seed 001), but %s is named nowhere: %s",
			r.call.Tool, len(r.conns), conn, clipText(r.call.Text(), 400))
	}
}

// judgeListState holds the truncation metadata of an error listing fewer
// candidates than the read could mean: a truncation flag set false, or a
// count of those left out set to zero, is the forbidden value. (How many
// are left out depends on whether the adapter counts a record's holders
// or its stream's connections, so only zero is false under both.)
func judgeListState(t *T, e map[string]any, omitted int, obj conformance.Evidence) {
	for _, k := range slices.Sorted(maps.Keys(e)) {
		lk, v := strings.ToLower(k), e[k]
		if v == false && (strings.Contains(lk, "truncat") || strings.Contains(lk, "partial")) {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(fmt.Sprintf("%q:false", k), obj) },
				"the error lists %d fewer connections than the package holds, but says %s: false", omitted, k)
		}
		if n, ok := v.(float64); ok && (strings.Contains(lk, "omit") || strings.Contains(lk, "not_shown") || strings.Contains(lk, "remaining")) && n == 0 {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(fmt.Sprintf("%q:%v", k, v), obj) },
				"the error leaves %d connections out of its list, but says %s: 0", omitted, k)
		}
	}
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

// expectNoChildProbes judges S032.2 on one refusal: the ambiguity error
// comes from grant membership, with no read of any one connection (an RS
// request naming a connection) to build it.
func expectNoChildProbes(t *T, r refusal) {
	var probes []string
	for _, q := range r.reqs {
		if qv, _ := url.ParseQuery(q.RawQuery); strings.HasPrefix(q.Path, "/v1/streams/") && (qv.Get("connection_id") != "" || qv.Get("connector_instance_id") != "") {
			probes = append(probes, q.Method+" "+q.Path+"?"+q.RawQuery)
		}
	}
	t.AssertWith(len(probes) == 0, func() (conformance.Witness, error) {
		return conformance.Witness{Kind: conformance.WitnessPresent, Fact: probes[0], In: []string{"the fixture RS's request log while " + r.call.Describe()}}, nil
	}, "the ambiguity error must come from grant membership, without reading any one connection: the RS served %d such reads", len(probes))
}

// worksWithConnection reports whether tool answers args once they name one
// of stream's connections.
func worksWithConnection(on *T, tool string, args dialect.Args, stream string) bool {
	conns := streamConnections(on, stream)
	if len(conns) == 0 || !on.HasRole(tool, dialect.Connection) {
		return false
	}
	scoped := maps.Clone(args)
	scoped[dialect.Connection] = conns[0]
	return !on.CallRoles(tool, scoped).IsError()
}
