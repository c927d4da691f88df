package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Seed 000: "the first 512 characters SHALL mention schema-first
// discovery, connection_id disambiguation, typed filters, and bounded
// pagination/result narrowing", and "SHALL NOT ask the client to use owner
// or control-plane bearer tokens". Each topic is judged by the names it
// goes by on this target (its tools and arguments), found by value: one
// none of whose names appears is the witness.
var s001 = &Check{ID: "S001", Slug: "init-instructions", Mode: ModeBB, Run: func(t *T) {
	instr := t.Target.Init.Instructions
	t.Record("instructions chars", len([]rune(instr)))
	t.Clause(1, func() {
		t.AssertWith(strings.TrimSpace(instr) != "", func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a non-empty instructions string", In: []string{"the initialize result"}}, nil
		}, "initialize must carry a non-empty instructions string")
	})
	t.Clause(2, func() {
		if strings.TrimSpace(instr) == "" {
			t.BlockedBy("S001", "initialize carries no instructions (S001.1)")
		}
		window := t.Settings.Surface.InstructionsWindow
		head := conformance.Shown("the first 512 characters of the instructions", probe.FirstRunes(instr, window))
		for _, topic := range instructionTopics(t) {
			if t.ShowsAny(head, topic.names, "the first %d characters of the instructions must cover %s; they read:\n%s", window, topic.name, probe.FirstRunes(instr, window)) && topic.also != nil {
				if ex := untypedFilterExample(probe.FirstRunes(instr, window)); ex != "" {
					judgeFilterExample(t, head, ex)
				} else if !topic.also.MatchString(probe.FirstRunes(instr, window)) {
					t.Inconclusive("the first %d characters name %s but mcpcheck cannot tell that they teach %s", window, topic.names[0].Value, topic.name)
				}
			}
		}
	})
	t.Clause(3, func() {
		if strings.TrimSpace(instr) == "" {
			t.Skipf("initialize carries no instructions: nothing in them can ask for an owner bearer")
		}
		asks := ownerAsks(instr)
		if s := ownerRetryAdvice(instr); s != "" {
			asks = append(asks, s) // a retry with the owner's side of a credential asks for it too
		}
		t.AssertWith(len(asks) == 0, func() (conformance.Witness, error) {
			return conformance.Present(asks[0], conformance.Shown("the instructions", instr))
		}, "the instructions must not ask the client to use owner or control-plane bearers: %q", asks)
	})
}}

// A topic is one thing the head of the instructions must teach: the names
// it goes by on the target, and (for typed filters) what else shows it.
type topic struct {
	name  string
	names []read.Fact
	also  *regexp.Regexp
}

// instructionTopics are the four topics, each by the target's own names
// for it where it declares some.
func instructionTopics(t *T) []topic {
	named := func(tool string, r dialect.Role, fallback ...string) []read.Fact {
		var out []read.Fact
		if t.HasRole(tool, r) {
			out = append(out, read.Text(t.ArgName(tool, r)))
		}
		for _, f := range fallback {
			out = append(out, read.Text(f))
		}
		return out
	}
	paging := named("query_records", dialect.Cursor, strings.Fields("page pages paging pagination paginate cursor next_cursor limit narrow bounded")...)
	paging = append(paging, named("query_records", dialect.Limit)...)
	return []topic{
		{name: "schema-first discovery", names: []read.Fact{read.Text("schema")}},
		{name: "connection_id disambiguation", names: []read.Fact{read.Text("connection_id")}},
		{name: "typed filters", names: named("query_records", dialect.Filter, "filter", "filters"), also: typedFilterRe},
		{name: "bounded paging or narrowing", names: paging},
	}
}

// queryStringFilterRe finds a filter written as a query string
// (filter[field][gte]=v, filter=field:v): the RS's wire form, not a typed
// argument.
var queryStringFilterRe = regexp.MustCompile(`\bfilters?(?:\[[\w.]+\])+=[^\s,;)` + "`" + `]+|\bfilters?=[^\s{,;)` + "`" + `][^\s,;)` + "`" + `]*`)

// objectRe finds an object written out ({field: value}); a path template
// ({stream}) is none.
var objectRe = regexp.MustCompile(`\{\s*"?[\w.]+"?\s*:`)

// untypedFilterExample is the head's query-string filter example, where
// the head shows no filter object at all: "" otherwise.
func untypedFilterExample(head string) string {
	if objectRe.MatchString(head) {
		return ""
	}
	return queryStringFilterRe.FindString(head)
}

// judgeFilterExample follows a query-string filter example the head of the
// instructions teaches: query_records given it as written, on a granted
// stream, refusing it is the witness that the head teaches no typed
// filter.
func judgeFilterExample(t *T, head conformance.Evidence, ex string) {
	sources := probe.Sources(probe.Grant(t))
	if len(sources) == 0 || !t.HasRole("query_records", dialect.Filter) {
		t.Inconclusive("the instructions teach filters as %q, and no granted stream or filter argument lets mcpcheck try it", ex)
		return
	}
	index := t.CallRoles("schema", dialect.Args{})
	// The same read without the filter must work: the refusal is the
	// filter's.
	if plain := t.CallRoles("query_records", sources[0].Roles(dialect.Args{dialect.Limit: 1})); plain.IsError() {
		t.Inconclusive("the instructions teach filters as %q, and query_records on %s fails even without a filter: %s", ex, sources[0].Stream, plain.Describe())
		return
	}
	c := t.CallRoles("query_records", sources[0].Roles(dialect.Args{dialect.Filter: ex, dialect.Limit: 1}))
	if !c.IsError() {
		t.Inconclusive("the instructions teach filters as %q, which query_records accepts as written", ex)
		return
	}
	t.AssertWith(false, func() (conformance.Witness, error) {
		return conformance.Refused(c, head, conformance.TextOf(index))
	}, "the first characters of the instructions teach filters as %q, a query string, which query_records refuses as written: they do not teach typed filters", ex)
}

// typedFilterRe tells a mention of filters that teaches their typing: an
// object, JSON, an operator, or the word typed.
var typedFilterRe = regexp.MustCompile(`(?i)\b(typed|objects?|structured|json|operators?|eq|gte|lte|gt|lt|range)\b|[{]`)

var (
	credentialRe = regexp.MustCompile(`(?i)\b(owner|control[- ]plane|admin(istrator)?|super-?user|full[- ]access|unrestricted)('s)?\b[^.;]{0,40}\b(token|bearer|credential|cookie|key|password|secret|session)s?\b`)
	negationRe   = regexp.MustCompile(`(?i)\b(not|never|no|don't|do not|without|refuse[sd]?|reject(s|ed)?|avoid|must not|cannot|isn't|aren't)\b`)
	askRe        = regexp.MustCompile(`(?i)\b(use|pass|set|provide|supply|send|paste|export|enter|add|configure|give|retry|try|switch|fall back|authenticate|call|re-?run|ask|request|obtain|get|acquire|prompt|include|attach|escalate|upgrade|need|needs)\b`)
	// clauseSepRe splits a sentence into its clauses: a refusal in one
	// ("if a read is refused, …") does not negate an ask in the next.
	clauseSepRe = regexp.MustCompile(`[,;:()]| — | - `)
)

// ownerAsks returns sentences that ask for owner credentials: a clause
// that names one, with a verb of asking, and no negation of its own. A
// clause that only mentions them under a negation ("never uses owner
// tokens") is fine: upstream's own refusal straddles character 512
// (catalog C7).
func ownerAsks(s string) []string {
	var asks []string
	for _, sent := range probe.Sentences(s) {
		if !credentialRe.MatchString(sent) {
			continue
		}
		clauses := clauseSepRe.Split(sent, -1)
		// A credential named in a parenthesis belongs to the clause before.
		for i, cl := range clauses {
			with := cl
			if i+1 < len(clauses) {
				with += " " + clauses[i+1]
			}
			if credentialRe.MatchString(with) && askRe.MatchString(cl) && !negationRe.MatchString(with) {
				asks = append(asks, sent)
				break
			}
		}
	}
	return asks
}
