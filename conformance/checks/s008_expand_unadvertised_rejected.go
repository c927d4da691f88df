package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var (
	// The message points at the capability source: GET /v1/schema, or the
	// schema tool that reads it, and the field to read there.
	schemaPointerRe      = regexp.MustCompile("(?i)/v1/schema\\b|\\bschema\\s*\\(|`schema`|\\bschema tool\\b")
	expandCapabilitiesRe = regexp.MustCompile(`(?i)\bexpand[_ ]capabilities\b`)
	// A sentence about the capabilities, and the RS routes it names.
	capabilitySentenceRe = regexp.MustCompile(`(?i)capabilit`)
	rsRouteRe            = regexp.MustCompile(`/v1/[A-Za-z0-9_./{}:-]*`)
)

// Seed 000: the adapter "SHALL reject expand and expand_limit arguments at
// the adapter layer — before forwarding to the RS" with "a typed
// invalid_expand error" whose message "SHALL name the stream", pointing
// to "GET /v1/schema (expand_capabilities)", and "the RS records endpoint
// SHALL NOT be called". Judged for query_records with expand, with
// expand_limit alone, and for fetch with expand; each call by what the RS
// saw before what the message says.
var s008 = &Check{ID: "S008", Slug: "expand-unadvertised-rejected", Mode: ModeBBD, Tools: []string{"query_records", "fetch"}, Run: func(t *T) {
	// A stream the fixture RS's own schema advertises no relation of,
	// where mcpcheck holds it; else one the target's schema shows none of.
	found := probe.FixtureExpand(t, false)
	if !found.Found {
		found = probe.ExpandSubject(t, false)
	}
	et := found.Target
	if !found.Found {
		t.Skipf("%s", found.Why(false))
	}
	on := t.Private()
	logged := on != t
	path := probe.RecordsPath(et.Stream)
	type gated struct {
		what string
		c    *Call
		log  conformance.Evidence // the RS's records requests during the call
		sent []fakers.Request
	}
	var calls []gated
	try := func(what, tool string, args dialect.Args) {
		if !probe.Serves(on.Target, tool) {
			return // S012 reports the missing tool
		}
		if !logged {
			calls = append(calls, gated{what: what, c: on.CallRoles(tool, args)})
			return
		}
		mark := probe.LastSeq(on)
		c := on.CallRoles(tool, args)
		calls = append(calls, gated{what, c, probe.RequestLog(on, path, mark), probe.RequestsSince(on, path, mark)})
	}
	try("query_records with expand", "query_records", et.Roles(nil))
	limitOnly := et.Roles(dialect.Args{dialect.ExpandLimit: map[string]any{et.Rel: 2}})
	delete(limitOnly, dialect.Expand)
	try("query_records with expand_limit alone", "query_records", limitOnly)
	if probe.Serves(on.Target, "fetch") && probe.Serves(on.Target, "search") {
		if id := hitIDOnStream(on, et); id != "" {
			try("fetch with expand", "fetch", dialect.Args{dialect.RecordID: id, dialect.Expand: []string{et.Rel}})
		}
	}
	// The relation mcpcheck made up, seen in the RS's request log, is the
	// witness that the gate let the call through.
	notReached := func(g gated, format string, args ...any) bool {
		return t.AssertWith(len(g.sent) == 0, func() (conformance.Witness, error) { return conformance.Present(et.Rel, g.log) }, format, args...)
	}
	for _, g := range calls {
		t.Clause(1, func() {
			notReached(g, "%s on %q, which advertises no expand_capabilities, reached the RS records endpoint: the gate must reject it first", g.what, et.Stream)
			t.Shows(g.c, read.Text("invalid_expand"), "%s on %q, which advertises no expand_capabilities, must be rejected as a typed invalid_expand: %s", g.what, et.Stream, g.c.Describe())
		})
		t.Clause(2, func() {
			// The rejection's message is judged whatever its type (a wrong
			// type is S008.1's); an answer rejects nothing.
			if !g.c.IsError() {
				t.BlockedBy("S008", "%s was not rejected (S008.1)", g.what)
			}
			msg, _ := g.c.ErrorObject()["message"].(string)
			if msg == "" {
				msg = g.c.Text()
			}
			said := conformance.Shown("the invalid_expand message of "+g.c.Describe(), msg)
			t.Shows(said, read.Text(et.Stream), "the invalid_expand message for %s must name the stream %q: %q", g.what, et.Stream, msg)
			t.AssertWith(schemaPointerRe.MatchString(msg), func() (conformance.Witness, error) {
				return conformance.Absent(read.Text("/v1/schema"), said)
			}, "the invalid_expand message for %s must point to GET /v1/schema (expand_capabilities): %q", g.what, msg)
			t.AssertWith(expandCapabilitiesRe.MatchString(msg), func() (conformance.Witness, error) {
				return conformance.Absent(read.Text("expand_capabilities"), said)
			}, "the invalid_expand message for %s must name expand_capabilities: %q", g.what, msg)
			if route := otherCapabilityRoute(msg); route != "" {
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(route, said) },
					"the invalid_expand message for %s names %s as where the capabilities are; seed 000's source is GET /v1/schema: %q", g.what, route, msg)
			}
		})
		t.Clause(3, func() {
			if !logged {
				t.SkipFor(CapFixture, "whether the RS was called shows only in its request log")
			}
			notReached(g, "%s on %q: the RS records endpoint must never be called", g.what, et.Stream)
		})
	}
}}

// otherCapabilityRoute is an RS route other than /v1/schema that a
// sentence of msg about capabilities names, or "".
func otherCapabilityRoute(msg string) string {
	for _, sentence := range probe.Sentences(msg) {
		for _, part := range strings.Split(sentence, ";") {
			if !capabilitySentenceRe.MatchString(part) {
				continue
			}
			for _, route := range rsRouteRe.FindAllString(part, -1) {
				if r := strings.TrimRight(route, "./:"); r != "/v1/schema" {
					return r
				}
			}
		}
	}
	return ""
}

// hitIDOnStream is the id of a search hit on the target's stream, as the
// target shows it, or "": search (scoped to the stream, then not) for a
// word of the stream's first records.
func hitIDOnStream(t *T, et probe.ExpandTarget) string {
	c := t.CallRoles("query_records", probe.Source{Stream: et.Stream, Conn: et.Conn}.Roles(dialect.Args{dialect.Limit: 5}))
	if c.IsError() {
		return ""
	}
	word := probe.SearchableWord(probe.Records(c))
	if word == "" {
		return ""
	}
	for _, args := range []dialect.Args{{dialect.Query: word, dialect.Streams: []string{et.Stream}, dialect.Limit: 5}, {dialect.Query: word, dialect.Limit: 25}} {
		if !t.HasRole("search", dialect.Streams) && args[dialect.Streams] != nil {
			continue
		}
		c := t.CallRoles("search", args)
		for _, h := range probe.Hits(t, c) {
			if !t.Target.Has(CapControlledRS) {
				if h.Stream == et.Stream && h.ID != "" {
					return h.ID
				}
				continue
			}
			if h.Ref.Stream == et.Stream {
				return probe.HitHandle(t, c, h)
			}
		}
	}
	return ""
}
