package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Dialect is the target's argument names by role, inferred from its
// tools/list and corrected by the user's --dialect file.
func (t *Target) Dialect() *dialect.Dialect {
	t.dialectOnce.Do(func() {
		if t.dialect == nil {
			t.dialect = dialect.FromToolsList(t.ToolsRaw, nil)
		}
	})
	return t.dialect
}

// DialectSummary is what the run inferred of the target's dialect.
func (t *Target) DialectSummary() []dialect.ToolSummary { return t.Dialect().Summary() }

// CallRoles calls a tool with arguments given by role, named as the
// target declares them. A role the target declares no argument for (or
// leaves ambiguous) ends the judgement as not exercised, never failed.
func (t *T) CallRoles(tool string, args dialect.Args) *Call {
	return t.Call(tool, t.ArgsFor(tool, args))
}

// ArgsFor names args as the target declares them for tool; a role it
// declares no argument for ends the judgement as not exercised.
func (t *T) ArgsFor(tool string, args dialect.Args) map[string]any {
	if !t.Target.hasTool(tool) {
		t.Skipf("the target serves no %s tool (S012 judges membership)", tool)
	}
	named, err := t.Target.Dialect().Resolve(tool, args)
	if err != nil {
		t.unresolved(err)
	}
	return named
}

// unresolved ends the judgement for a role the target declares no
// argument for: blocked by S013 where the seed requires that argument
// (connection_id on every read tool), else not exercised.
func (t *T) unresolved(err error) {
	var ue *dialect.UnresolvedError
	if errors.As(err, &ue) && ue.Role == dialect.Connection && len(ue.Candidates) == 0 {
		t.BlockedBy("S013", "%s", err)
	}
	t.Skipf("%s", err)
}

// ArgName is the argument the target declares for role r on tool; a role
// it declares none for ends the judgement as not exercised.
func (t *T) ArgName(tool string, r dialect.Role) string {
	name, err := t.Target.Dialect().Name(tool, r)
	if err != nil {
		t.unresolved(err)
	}
	return name
}

// HasRole reports whether the target declares an argument for role r on tool.
func (t *T) HasRole(tool string, r dialect.Role) bool { return t.Target.Dialect().Has(tool, r) }

// Follow makes a call the target printed, as printed (its words typed by
// the tool's inputSchema where the notation did not type them): a printed
// call that does not work is the target's failure, so even an argument it
// does not declare is sent.
func (t *T) Follow(c dialect.PrintedCall) *Call {
	c = t.Target.Dialect().Typed(c)
	return t.callOn(t.Target, c.Tool, c.Args, true)
}

// CallAsGiven sends args exactly as given, names the target does not
// declare included: only for probes of how it rejects bad input.
func (t *T) CallAsGiven(tool string, args map[string]any) *Call {
	return t.callOn(t.Target, tool, args, true)
}

// PrintedCalls are the calls to the target's tools that text shows.
func (t *Target) PrintedCalls(text string) []dialect.PrintedCall {
	names := make([]string, 0, len(t.Tools))
	for _, tool := range t.Tools {
		names = append(names, tool.Name)
	}
	return dialect.PrintedCalls(text, names)
}

// Role is the value the call gave role r, in the target's own name for
// it; nil when it gave none.
func (c *Call) Role(r dialect.Role) any {
	if c.dialect == nil {
		return nil
	}
	return c.dialect.Value(c.Tool, c.Args, r)
}

// refuseUndeclared stops a call that sends an argument the target does not
// declare: a check's own mistake against the reference adapter under go
// test (a harness error), and otherwise a clause not exercised.
func (t *T) refuseUndeclared(tgt *Target, name string, args map[string]any) {
	bad := tgt.Dialect().Undeclared(name, args)
	if len(bad) == 0 {
		return
	}
	msg := fmt.Sprintf("the target declares no argument %s on %s", strings.Join(bad, ", "), name)
	if tgt.Kind == KindReference && testing.Testing() {
		panic(errorSignal{"harness: " + msg + " (call it by role: T.CallRoles)"})
	}
	t.Skipf("%s", msg)
}

// ArgName is the target's name for role r on the call's tool.
func (c *Call) ArgName(r dialect.Role) (string, bool) {
	if c.dialect == nil {
		return "", false
	}
	name, err := c.dialect.Name(c.Tool, r)
	return name, err == nil
}

// Container is the list at the path the user's --dialect file names for
// this tool's hits or records, and whether the file names one.
func (c *Call) Container() ([]any, bool) {
	if c.dialect == nil {
		return nil, false
	}
	path := c.dialect.Container(c.Tool)
	if path == "" {
		return nil, false
	}
	var v any = c.Structured()
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	list, _ := v.([]any)
	return list, true
}

// learnRoles lets the calls a result prints settle the target's dialect:
// an argument a printed call gives a value the fixture knows the role of
// (a field name, a stream name, a connection id) or the call's own query
// plays that role, and of ambiguous arguments the one a printed call uses
// does.
func (tgt *Target) learnRoles(t *T, c *Call) {
	calls := tgt.PrintedCalls(c.Text())
	if len(calls) == 0 {
		return
	}
	d := tgt.Dialect()
	known := tgt.roleValues(t)
	for _, pc := range calls {
		d.Observe(pc)
		if pc.Tool != "read_record_field" && pc.Tool != "fetch" {
			continue // elsewhere a field name is a grouping or a sort as often as the field
		}
		for _, v := range pc.Args {
			s, ok := v.(string)
			if r, isKnown := known[s]; ok && isKnown {
				d.Learn(pc, dialect.Args{r: s})
			}
		}
		// The text mcpcheck searched for, repeated by a printed field read
		// (a read around the match), is that read's query.
		if q, ok := d.Value(c.Tool, c.Args, dialect.Query).(string); ok && len(q) >= 3 && pc.Tool == "read_record_field" {
			d.Learn(pc, dialect.Args{dialect.Query: q})
		}
	}
}

// roleValues are the fixture's names by the role an argument holding one
// plays: field names (the field), stream names (the stream), connection
// ids (the connection). Empty without a controlled RS.
func (tgt *Target) roleValues(t *T) map[string]dialect.Role {
	c, ok := As[ControlledRS](tgt)
	if !ok {
		return nil
	}
	return Discover(t, "role-values", func() map[string]dialect.Role {
		out := map[string]dialect.Role{}
		fx, err := c.FixtureRS().Fixture(t.ctx)
		if err != nil {
			return out
		}
		for _, s := range fx.Streams {
			for _, f := range s.Fields {
				out[f.Name] = dialect.Field
			}
		}
		for _, s := range fx.Streams {
			out[s.Name] = dialect.Stream
		}
		for _, cn := range fx.Connectors {
			for _, x := range cn.Connections {
				out[x.ID] = dialect.Connection
			}
		}
		return out
	})
}
