package checks

import (
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

var (
	readOnlyRe = regexp.MustCompile(`(?i)\bread[- ]?only\b|\b(does not|doesn't|never|cannot) (modify|modifies|change|changes|write|writes|mutate|mutates)\b|\bno side[- ]effects\b`)
	mutatingRe = regexp.MustCompile(`(?i)\b(mutating|writes?|creates?|deletes?|updates?)\b`)
	// The RS endpoint ("GET /v1/search", "/v1/schema") or capability it
	// maps to ("the RS search capability").
	endpointRe   = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+(/v1/|\.\.\./|…/)\S+|/v1/[a-z_{}/:-]+`)
	capabilityRe = regexp.MustCompile(`(?i)\b(RS|resource[- ]server|PDPP)\b[^.]{0,40}\b(endpoint|capability|API|route)\b`)
	pointerRe    = regexp.MustCompile(`(?i)\b(schema|instructions)\b`)
)

// The stems a witness looks for, loosely: a description that shows none
// of them says nothing of the kind in any wording.
var (
	readOnlyStems = facts("read-only", "readonly", "read only", "mutat", "modif", "write", "side effect", "side-effect", "creat", "delet", "updat", "chang")
	endpointStems = facts("/v1", "endpoint", "capabilit", "route", "resource server", "resource-server", "GET .../", "GET …/")
	pointerStems  = facts("schema", "instruction", "discover")
)

// facts are strings as facts.
func facts(ss ...string) []read.Fact {
	out := make([]read.Fact, len(ss))
	for i, s := range ss {
		out[i] = read.Text(s)
	}
	return out
}

// Seed 000: each description "SHALL still state the action the tool
// performs, whether it is read-only or mutating, and the primary RS
// endpoint or capability it maps to", and "SHALL point to server
// instructions or a discovery tool for cross-cutting details". Every tool
// is judged, and every missing part of each description is reported; a
// part is missing when none of the words it goes by appears at all.
var s003 = &Check{ID: "S003", Slug: "descriptions-routable", Mode: ModeBB, Run: func(t *T) {
	var on *T // one private fork, opened when a description first names a route
	for _, tool := range t.Target.Tools {
		d := tool.Description
		desc := conformance.Shown("the "+tool.Name+" description", d)
		absent := func(stems []read.Fact) func() (conformance.Witness, error) {
			return func() (conformance.Witness, error) { return conformance.AbsentAll(stems, desc) }
		}
		t.Clause(1, func() {
			t.AssertWith(len(strings.Fields(d)) >= 4, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: d, In: []string{"the " + tool.Name + " description, of fewer than four words"}}, nil
			}, "tool %s: the description must state the action it performs: %q", tool.Name, d)
			t.AssertWith(readOnlyRe.MatchString(d) || mutatingRe.MatchString(d), absent(readOnlyStems),
				"tool %s: the description must say whether it is read-only or mutating: %q", tool.Name, d)
			t.AssertWith(endpointRe.MatchString(d) || capabilityRe.MatchString(d), absent(endpointStems),
				"tool %s: the description must name the RS endpoint or capability it maps to (e.g. GET /v1/...): %q", tool.Name, d)
		})
		if routes := routeRe.FindAllString(d, -1); len(routes) > 0 {
			if on == nil {
				on = t.Private()
			}
			t.Clause(1, func() { judgeNamedRoutes(t, on, tool.Name, desc, routes) })
		}
		t.Clause(2, func() {
			t.AssertWith(pointerRe.MatchString(d), absent(pointerStems),
				"tool %s: the description must point to the schema tool or the instructions for cross-cutting details: %q", tool.Name, d)
			// A pointer must lead somewhere: to a tool the seeds keep off the
			// surface and the target does not serve, it leads nowhere.
			for _, name := range pointedTools(d) {
				why, forbidden := t.Settings.Surface.Forbidden(name)
				t.AssertWith(!forbidden || slices.ContainsFunc(t.Target.Tools, func(x *mcp.Tool) bool { return x.Name == name }), func() (conformance.Witness, error) {
					return conformance.Present(name, desc)
				}, "tool %s: the description points the agent to %s, a tool off the normal surface (%s) that the target does not serve", tool.Name, name, why)
			}
		})
	}
}}

// snakeNameRe is a snake_case name a description may give a tool by;
// goneRe marks a sentence that names a tool to say it is gone.
var (
	snakeNameRe = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
	goneRe      = regexp.MustCompile(`(?i)\b(no|not|never|without|removed|replaces?|replaced|instead of|deprecated|retired|gone)\b|n't\b`)
)

// pointedTools are the snake_case names the sentences of a description
// send the agent to: a sentence that says a tool is gone points to none.
func pointedTools(d string) []string {
	var out []string
	for _, sentence := range sentenceSplitRe.Split(d, -1) {
		if !goneRe.MatchString(sentence) {
			out = append(out, snakeNameRe.FindAllString(sentence, -1)...)
		}
	}
	return out
}

// routeRe is an RS route a description names.
var routeRe = regexp.MustCompile(`/v1/[A-Za-z0-9_{}:/.-]*[A-Za-z0-9_}]`)

// judgeNamedRoutes judges the routes a description names by what the tool
// does: one call of it, on a private fork, must request one of them from
// the RS (a route template's {x} or :x stands for any one segment). The
// routes the call requested, none of them named, are the witness.
func judgeNamedRoutes(t, on *T, tool string, desc conformance.Evidence, routes []string) {
	if on == t {
		t.SkipFor(CapFixture, "which RS route a call requests shows only in the RS request log")
	}
	c, before := sampleCall(on, tool)
	if c == nil || c.IsError() {
		t.Skipf("no call of %s to watch the RS for", tool)
	}
	var asked []string
	for _, r := range on.RS().Requests()[before:] {
		asked = append(asked, r.Path)
		for _, route := range routes {
			if routeMatches(route, r.Path) {
				return
			}
		}
	}
	if len(asked) == 0 {
		t.Skipf("a call of %s made no RS request", tool)
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		w, err := conformance.Present(routes[0], desc)
		w.In = append(w.In, "while a call of "+tool+" requested only "+strings.Join(asked, ", ")+" from the RS")
		return w, err
	}, "tool %s: the description names the RS route %s, which a call of the tool never requests (it requested %s)", tool, strings.Join(routes, ", "), strings.Join(asked, ", "))
}

// routeMatches reports whether path is an instance of route.
func routeMatches(route, path string) bool {
	rs, ps := strings.Split(strings.Trim(route, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/")
	if len(rs) != len(ps) {
		return false
	}
	for i, seg := range rs {
		if seg != ps[i] && !strings.HasPrefix(seg, "{") && !strings.HasPrefix(seg, ":") {
			return false
		}
	}
	return true
}

// sampleCall is one ordinary call of tool on the target's own data, or
// nil, with the length of the RS log just before it: what finding its
// arguments requested (a search, handles followed) is not its own.
func sampleCall(t *T, tool string) (*Call, int) {
	srcs := probe.Sources(probe.Grant(t))
	if len(srcs) == 0 {
		return nil, 0
	}
	call := func(args dialect.Args) (*Call, int) {
		n := len(t.RS().Requests())
		return t.CallRoles(tool, args), n
	}
	switch tool {
	case "schema":
		return call(dialect.Args{})
	case "query_records":
		return call(srcs[0].Roles(dialect.Args{dialect.Limit: 1}))
	case "aggregate":
		return call(srcs[0].Roles(dialect.Args{dialect.Metric: "count"}))
	}
	if tool == "search" {
		if term, _, _ := probe.FanInTerm(t); term != "" {
			return call(dialect.Args{dialect.Query: term, dialect.Limit: 10})
		}
		return nil, 0
	}
	_, c, _ := probe.FanInTerm(t)
	if c == nil {
		return nil, 0
	}
	hs := probe.Hits(t, c)
	if len(hs) == 0 {
		return nil, 0
	}
	id := probe.HitHandle(t, c, hs[0])
	if id == "" {
		return nil, 0
	}
	if tool == "fetch" {
		return call(dialect.Args{dialect.RecordID: id})
	}
	if field := probe.HitField(t, hs[0]); field != "" && tool == "read_record_field" {
		return call(dialect.Args{dialect.RecordID: id, dialect.Field: field})
	}
	return nil, 0
}
