package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// A required clause fails only with a witness: evidence of one of four
// kinds that a user can check against the target themselves. Anything a
// check cannot witness is not exercised, with what could not be read.
// Readers find candidates and explain a witness; a reader that finds
// nothing proves nothing.

// A WitnessKind is the kind of evidence a required failure rests on.
type WitnessKind string

const (
	// WitnessCall: a call built only from what the target showed in an
	// answer (an id, a handle, a printed call, a cursor), and the answer
	// that shows it does not work.
	WitnessCall WitnessKind = "call"
	// WitnessContrast: two fixture states the clause says must read
	// differently, whose answers read the same once the fixture's own
	// content is removed and numbers are normalised.
	WitnessContrast WitnessKind = "no-contrast"
	// WitnessAbsent: a fact mcpcheck knows, found nowhere in the answer
	// (text and every string of structuredContent), in any notation.
	WitnessAbsent WitnessKind = "absent"
	// WitnessPresent: a forbidden value, found in the answer.
	WitnessPresent WitnessKind = "present"
)

// A Witness is the evidence behind one required failure, as the report
// prints it.
type Witness struct {
	Kind WitnessKind `json:"kind"`
	// Fact is the value looked for (absent), found (present), or that the
	// refused call was built from (call).
	Fact string `json:"fact,omitempty"`
	// In are the answers searched or compared, or the call and the answer
	// it was built from, described.
	In []string `json:"in,omitempty"`
	// Excerpt is where a present value stands, the answer both states
	// share, or the refusal.
	Excerpt string `json:"excerpt,omitempty"`
}

// Line is the witness in one line of a report.
func (w *Witness) Line() string {
	var b strings.Builder
	switch w.Kind {
	case WitnessAbsent:
		fmt.Fprintf(&b, "witness (absent by value): %s found nowhere in %s", quoteFact(w.Fact), strings.Join(w.In, "; "))
	case WitnessPresent:
		fmt.Fprintf(&b, "witness (present by value): %q found in %s", w.Fact, strings.Join(w.In, "; "))
	case WitnessContrast:
		fmt.Fprintf(&b, "witness (no contrast): %s read the same", strings.Join(w.In, " and "))
	case WitnessCall:
		fmt.Fprintf(&b, "witness (a call built from the target's own output): %s", strings.Join(w.In, "; "))
	}
	if w.Excerpt != "" {
		fmt.Fprintf(&b, ": %s", w.Excerpt)
	}
	return b.String()
}

// quoteFact quotes a fact, but not a list of them ("any of …").
func quoteFact(f string) string {
	if strings.HasPrefix(f, "any of ") {
		return f
	}
	return fmt.Sprintf("%q", f)
}

// Evidence is an answer a witness rests on: its model-visible strings
// and how it reads in a report.
type Evidence interface {
	// Strings are every model-visible string: the text parts, and every
	// key and string value of structuredContent.
	Strings() []string
	Describe() string
}

// Strings are the call's text parts, the text and URIs of its resources,
// and every key and string value of its structuredContent.
func (c *Call) Strings() []string {
	if c.RPCError != nil {
		return []string{c.RPCError.Message}
	}
	var out []string
	for _, p := range c.Result.Content {
		switch x := p.(type) {
		case *mcp.TextContent:
			out = append(out, x.Text)
		case *mcp.ResourceLink:
			out = append(out, x.URI, x.Name, x.Description)
		case *mcp.EmbeddedResource:
			if x.Resource != nil {
				out = append(out, x.Resource.URI, x.Resource.Text)
			}
		}
	}
	return append(out, jsonStrings(c.Structured())...)
}

// jsonStrings are the keys and string values anywhere in v, numbers
// written out.
func jsonStrings(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case json.Number:
			out = append(out, x.String())
		case float64:
			out = append(out, fmt.Sprint(x))
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// A shownText is a text mcpcheck read from the target outside a tool
// call: its instructions, a description, --help, a page.
type shownText struct{ label, text string }

func (s shownText) Strings() []string { return []string{s.text} }
func (s shownText) Describe() string  { return s.label }

// Shown is text the target showed outside a tool call, as evidence.
func Shown(label, text string) Evidence { return shownText{label, text} }

// WithoutContent is e with the fixture's own content removed from each of
// its strings: where a fact about the data (a count, a state) must be
// stated, not merely occur inside a record's values.
func WithoutContent(e Evidence, content []string) Evidence {
	var b strings.Builder
	for _, s := range e.Strings() {
		b.WriteString(read.WithoutContent(s, content))
		b.WriteString("\n")
	}
	return shownText{e.Describe() + ", the fixture's own values removed", b.String()}
}

// TextOf is only the content[] text of a call: what a host that hides
// structuredContent shows the model.
func TextOf(c *Call) Evidence { return shownText{c.Describe() + " (its content[] text)", c.Text()} }

// Answers are several answers searched as one.
func Answers(in ...Evidence) Evidence { return answers(in) }

type answers []Evidence

func (a answers) Strings() []string {
	var out []string
	for _, e := range a {
		if e != nil {
			out = append(out, e.Strings()...)
		}
	}
	return out
}

func (a answers) Describe() string {
	var d []string
	for _, e := range a {
		if e != nil {
			d = append(d, e.Describe())
		}
	}
	if len(d) == 0 {
		return "nothing (the seed's own call)"
	}
	return strings.Join(d, "; ")
}

// SeedValues are argument values the seeds themselves write (detail
// "full", the count modes, the metrics, changes from the beginning): a
// call may take them without the target having shown them.
var SeedValues Evidence = shownText{"the seeds' own argument values", "full\ncompact\nexact\nestimated\ncount\nsum\nmin\nmax\ncount_distinct\nbeginning\nday\nweek\nmonth\nasc\ndesc"}

// errNoWitness says why a would-be witness does not hold: the failure is
// then not exercised, never reported.
var errNoWitness = errors.New("no witness")

func noWitness(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNoWitness, fmt.Sprintf(format, args...))
}

// Absent witnesses that f is found nowhere in in, in any notation
// mcpcheck reads; an error when it is seen there, even loosely.
func Absent(f read.Fact, in ...Evidence) (Witness, error) {
	if f.Value == "" {
		return Witness{}, noWitness("no fact to look for")
	}
	if s := read.Find(Answers(in...).Strings(), f); s.Seen() {
		return Witness{}, noWitness("%q is shown (%s)", f.Value, s.Excerpt)
	}
	return Witness{Kind: WitnessAbsent, Fact: f.Value, In: describeAll(in)}, nil
}

// AbsentAll witnesses that none of facts (the names one thing may go
// by) is found in in, in any notation.
func AbsentAll(facts []read.Fact, in ...Evidence) (Witness, error) {
	if len(facts) == 0 {
		return Witness{}, noWitness("no fact to look for")
	}
	var names []string
	for _, f := range facts {
		if s := read.Find(Answers(in...).Strings(), f); s.Seen() {
			return Witness{}, noWitness("%q is shown (%s)", f.Value, s.Excerpt)
		}
		names = append(names, fmt.Sprintf("%q", f.Value))
	}
	return Witness{Kind: WitnessAbsent, Fact: "any of " + strings.Join(names, ", "), In: describeAll(in)}, nil
}

// Present witnesses that the forbidden value stands in in as a token of
// its own; an error when it does not.
func Present(value string, in ...Evidence) (Witness, error) {
	s := read.Find(Answers(in...).Strings(), read.Text(value))
	if !s.Exact {
		return Witness{}, noWitness("%q is not shown as a value of its own", value)
	}
	return Witness{Kind: WitnessPresent, Fact: value, In: describeAll(in), Excerpt: s.Excerpt}, nil
}

// SameAnswer witnesses that a and b, answers on two fixture states the
// clause says must read differently, read the same once content (the
// fixture's own values) is removed and numbers are normalised.
func SameAnswer(a, b Evidence, content []string) (Witness, error) {
	na, nb := normalized(a, content), normalized(b, content)
	if na != nb {
		return Witness{}, noWitness("the two answers differ: %s", firstDifference(na, nb))
	}
	return Witness{Kind: WitnessContrast, In: []string{a.Describe(), b.Describe()}, Excerpt: ClipText(na, 300)}, nil
}

// SameValues witnesses that a and b, answers two requests the clause
// says must read differently, state the same values once content is
// removed: numbers are kept.
func SameValues(a, b Evidence, content []string) (Witness, error) {
	na, nb := normalizedWith(a, content, read.NormalizeValues), normalizedWith(b, content, read.NormalizeValues)
	if na != nb {
		return Witness{}, noWitness("the two answers differ: %s", firstDifference(na, nb))
	}
	return Witness{Kind: WitnessContrast, In: []string{a.Describe(), b.Describe()}, Excerpt: ClipText(na, 300)}, nil
}

func normalized(e Evidence, content []string) string {
	return normalizedWith(e, content, read.Normalize)
}

func normalizedWith(e Evidence, content []string, norm func(string, []string) string) string {
	ss := e.Strings()
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = norm(s, content)
	}
	slices.Sort(out) // structuredContent's keys come in map order
	return strings.Join(out, "\n")
}

func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("%q vs %q", ClipText(a[i:], 60), ClipText(b[i:], 60))
}

// Refused witnesses that c, a call built only from values from shows,
// was refused: an error result.
func Refused(c *Call, from ...Evidence) (Witness, error) {
	if !c.IsError() {
		return Witness{}, noWitness("%s was not refused", c.Tool)
	}
	if err := builtFrom(c, from); err != nil {
		return Witness{}, err
	}
	return Witness{Kind: WitnessCall, Fact: builtValue(c), In: []string{c.Describe(), "built from " + Answers(from...).Describe()}}, nil
}

// Undelivered witnesses that c, a call built only from values from
// shows, answered without f: the continuation or handle it followed does
// not reach what it promised.
func Undelivered(c *Call, f read.Fact, from ...Evidence) (Witness, error) {
	if err := builtFrom(c, from); err != nil {
		return Witness{}, err
	}
	if s := read.Find(c.Strings(), f); s.Seen() {
		return Witness{}, noWitness("%q is in the answer (%s)", f.Value, s.Excerpt)
	}
	return Witness{Kind: WitnessCall, Fact: f.Value, In: []string{c.Describe() + " never shows " + fmt.Sprintf("%q", f.Value), "built from " + Answers(from...).Describe()}}, nil
}

// builtFrom checks that every string argument of c was shown in from: a
// call mcpcheck made up is no witness against the target.
func builtFrom(c *Call, from []Evidence) error {
	shown := Answers(from...).Strings()
	for k, v := range c.Args {
		for _, s := range argStrings(v) {
			if !read.Find(shown, read.Text(s)).Seen() {
				return noWitness("argument %s=%q of the %s call is not from the target's answers", k, s, c.Tool)
			}
		}
	}
	return nil
}

// builtValue is the longest string argument of c: the handle or cursor
// the call follows.
func builtValue(c *Call) string {
	best := ""
	for _, v := range c.Args {
		for _, s := range argStrings(v) {
			if len(s) > len(best) {
				best = s
			}
		}
	}
	return best
}

func argStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, argStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, argStrings(e)...)
		}
		return out
	}
	return nil
}

func describeAll(in []Evidence) []string {
	out := make([]string, len(in))
	for i, e := range in {
		out[i] = e.Describe()
	}
	return out
}

// FailWith records a witnessed failure of the clause being judged, and
// returns false; when err says the witness does not hold, the judgement
// is not exercised instead, saying why.
func (t *T) FailWith(w Witness, err error, format string, args ...any) bool {
	t.asserting()
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		t.Inconclusive("%s (%v)", msg, err)
		return false
	}
	t.run.witnessed(msg, &w)
	return false
}

// AssertWith judges one condition: false records a required failure
// whose witness is what witness builds, or, when witness says it does not
// hold (or is nil), leaves the judgement not exercised. It returns ok.
func (t *T) AssertWith(ok bool, witness func() (Witness, error), format string, args ...any) bool {
	t.asserting()
	if ok {
		return true
	}
	if witness == nil {
		t.Inconclusive(format, args...)
		return false
	}
	w, err := witness()
	return t.FailWith(w, err, format, args...)
}

// Held records a judgement of the clause being judged that held, where
// the check established it by other means (a refused start, say).
func (t *T) Held() { t.asserting() }

// Shows judges that in shows f: held when f stands there as a value of
// its own; failed, with an absent witness, when it is found nowhere in
// any notation; not exercised when it is seen only loosely.
func (t *T) Shows(in Evidence, f read.Fact, format string, args ...any) bool {
	t.asserting()
	s := read.Find(in.Strings(), f)
	switch {
	case s.Exact:
		return true
	case s.Loose:
		t.Inconclusive("%s (%q is seen only inside other text: %s)", fmt.Sprintf(format, args...), f.Value, s.Excerpt)
		return false
	}
	w, err := Absent(f, in)
	return t.FailWith(w, err, format, args...)
}

// ShowsAny judges that in shows one of facts (the names a thing may go
// by): held when one stands there as a value of its own; failed, with an
// absent witness, when none is found in any notation.
func (t *T) ShowsAny(in Evidence, facts []read.Fact, format string, args ...any) bool {
	t.asserting()
	var loose []string
	for _, f := range facts {
		switch s := read.Find(in.Strings(), f); {
		case s.Exact:
			return true
		case s.Loose:
			loose = append(loose, s.Excerpt)
		}
	}
	if len(loose) > 0 {
		t.Inconclusive("%s (seen only inside other text: %s)", fmt.Sprintf(format, args...), strings.Join(loose, "; "))
		return false
	}
	w, err := AbsentAll(facts, in)
	return t.FailWith(w, err, format, args...)
}

// ShowsNone judges that in never shows the forbidden value: failed, with a
// present witness, when it stands there as a value of its own; not
// exercised when it is seen only loosely.
func (t *T) ShowsNone(in Evidence, value string, format string, args ...any) bool {
	t.asserting()
	s := read.Find(in.Strings(), read.Text(value))
	switch {
	case s.Exact:
		w, err := Present(value, in)
		return t.FailWith(w, err, format, args...)
	case s.Loose:
		t.Inconclusive("%s (%q is seen inside other text: %s)", fmt.Sprintf(format, args...), value, s.Excerpt)
		return false
	}
	return true
}

// Works judges that c, a call built from what from showed, is not
// refused; a refusal is its witness.
func (t *T) Works(c *Call, from Evidence, format string, args ...any) bool {
	t.asserting()
	if !c.IsError() {
		return true
	}
	w, err := Refused(c, from)
	return t.FailWith(w, err, format, args...)
}

// Differs judges that a and b, answers on two fixture states the clause
// says must read differently, do: failed, with a no-contrast witness,
// when they read the same once the fixture's content is removed.
func (t *T) Differs(a, b Evidence, content []string, format string, args ...any) bool {
	return t.differs(SameAnswer, a, b, content, format, args...)
}

// differs fails the clause with same's witness when a and b read alike.
func (t *T) differs(same func(a, b Evidence, content []string) (Witness, error), a, b Evidence, content []string, format string, args ...any) bool {
	t.asserting()
	w, err := same(a, b, content)
	if err != nil {
		return true
	}
	t.run.witnessed(fmt.Sprintf(format, args...), &w)
	return false
}

// DiffersInValues is Differs for two answers that must state different
// values: numbers count (SameValues).
func (t *T) DiffersInValues(a, b Evidence, content []string, format string, args ...any) bool {
	return t.differs(SameValues, a, b, content, format, args...)
}

// Inconclusive records that one judgement of the clause being judged
// could not be made (what could not be read, with the excerpt): unless a
// witnessed failure fails it, the clause is not exercised, never passed.
func (t *T) Inconclusive(format string, args ...any) {
	r := t.run
	cur := r.current()
	if cur == nil {
		panic(errorSignal{fmt.Sprintf("%s judges outside any clause: every judgement belongs to a t.Clause", r.check.ID)})
	}
	r.mu.Lock()
	cur.unsure = append(cur.unsure, r.redact(fmt.Sprintf(format, args...)))
	r.mu.Unlock()
}

// witnessed records a required failure with its witness against the
// clause being judged.
func (r *checkRun) witnessed(msg string, w *Witness) {
	cur := r.current()
	if cur == nil {
		panic(errorSignal{fmt.Sprintf("%s fails outside any clause: every failure belongs to a t.Clause", r.check.ID)})
	}
	w.Fact = r.redact(w.Fact)
	w.Excerpt = r.redact(w.Excerpt)
	for i := range w.In {
		w.In[i] = r.redact(w.In[i])
	}
	r.mu.Lock()
	cur.failures = append(cur.failures, Failure{Message: r.redact(strings.TrimSpace(msg)), Level: cur.level, Witness: w})
	r.mu.Unlock()
}

// requireWitnesses: under go test, a required failure without a witness
// is a fault of the check (a harness error), so every check that can fail
// a required clause shows how; in a user's run it is not exercised.
var requireWitnesses = testing.Testing()

// unwitnessed handles a required failure that carries no witness.
func (r *checkRun) unwitnessed(cur *clauseState, msg string) {
	if requireWitnesses {
		panic(errorSignal{fmt.Sprintf("harness: %s: a required failure without a witness: %s", r.check.ID, msg)})
	}
	r.mu.Lock()
	cur.unsure = append(cur.unsure, "not witnessed: "+msg)
	r.mu.Unlock()
}
