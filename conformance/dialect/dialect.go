package dialect

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A Source says where a binding came from.
type Source string

const (
	FromInputSchema Source = "inputSchema"  // the tool's declared properties
	FromPrintedCall Source = "printed call" // a call the target printed in an answer
	FromUser        Source = "--dialect"    // the user's dialect file
)

// A Binding says which declared argument plays a role.
type Binding struct {
	Role   Role   `json:"role" yaml:"role"`
	Name   string `json:"argument"`
	Source Source `json:"source"`
}

// A toolDialect is what is known of one tool's arguments.
type toolDialect struct {
	props     []property
	bound     map[Role]Binding
	ambiguous map[Role][]string
	notes     []string // --dialect entries not applied, and why
	container string   // --dialect's path to the list of hits or records
}

func (td *toolDialect) declares(name string) bool {
	return slices.ContainsFunc(td.props, func(p property) bool { return p.Name == name })
}

// A Dialect is the target's argument names, by tool and role. It is safe
// for concurrent use: printed calls refine it while checks run.
type Dialect struct {
	mu    sync.Mutex
	tools map[string]*toolDialect
	order []string // tool names as tools/list gave them
}

// FromToolsList infers the dialect of the tools tools/list returned (each
// tool's JSON as received), corrected by the user's overrides (nil for
// none). A tool that is not a JSON object declares nothing.
func FromToolsList(tools []json.RawMessage, o *Overrides) *Dialect {
	d := &Dialect{tools: map[string]*toolDialect{}}
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" || d.tools[t.Name] != nil {
			continue
		}
		props := properties(t.InputSchema)
		bound, amb := inferTool(t.Name, props)
		d.tools[t.Name] = &toolDialect{props: props, bound: bound, ambiguous: amb}
		d.order = append(d.order, t.Name)
	}
	d.apply(o)
	return d
}

// apply binds the roles the user names, over what was inferred.
func (d *Dialect) apply(o *Overrides) {
	if o == nil {
		return
	}
	for _, tool := range slices.Sorted(maps.Keys(o.Containers)) {
		if td := d.tools[tool]; td != nil {
			td.container = strings.TrimSpace(o.Containers[tool])
		} else {
			d.notes(tool, fmt.Sprintf("--dialect names tool %s, which the target does not serve", tool))
		}
	}
	tools := make([]string, 0, len(o.Arguments))
	for tool := range o.Arguments {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		td := d.tools[tool]
		if td == nil {
			d.notes(tool, fmt.Sprintf("--dialect names tool %s, which the target does not serve", tool))
			continue
		}
		for _, e := range o.entries(tool) {
			if !td.declares(e.Name) {
				td.notes = append(td.notes, fmt.Sprintf("--dialect says %s = %s, but %s declares no argument %q", e.Role, e.Name, tool, e.Name))
				continue
			}
			for r, b := range td.bound {
				if b.Name == e.Name && r != e.Role {
					delete(td.bound, r) // one argument plays one role
				}
			}
			delete(td.ambiguous, e.Role)
			td.bound[e.Role] = Binding{Role: e.Role, Name: e.Name, Source: FromUser}
		}
	}
}

// notes records a note about a tool the target does not serve.
func (d *Dialect) notes(tool, note string) {
	if d.tools[tool] == nil {
		d.tools[tool] = &toolDialect{bound: map[Role]Binding{}}
		d.order = append(d.order, tool)
	}
	d.tools[tool].notes = append(d.tools[tool].notes, note)
}

// An UnresolvedError says why a role has no argument on a tool.
type UnresolvedError struct {
	Tool       string
	Role       Role
	Candidates []string // the arguments it is ambiguous between, if any
}

func (e *UnresolvedError) Error() string {
	if len(e.Candidates) > 1 {
		return fmt.Sprintf("the target's inputSchema for %s leaves the %s ambiguous between %s (correct it with --dialect)", e.Tool, e.Role, strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("the target declares no argument for the %s on %s", e.Role, e.Tool)
}

// Name is the argument tool declares for role r.
func (d *Dialect) Name(tool string, r Role) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[tool]
	if td == nil {
		return "", &UnresolvedError{Tool: tool, Role: r}
	}
	if b, ok := td.bound[r]; ok {
		return b.Name, nil
	}
	return "", &UnresolvedError{Tool: tool, Role: r, Candidates: td.ambiguous[r]}
}

// Has reports whether tool declares an argument for role r.
func (d *Dialect) Has(tool string, r Role) bool {
	_, err := d.Name(tool, r)
	return err == nil
}

// Resolve names a call's arguments as tool declares them. Nil values are
// left out. The first role tool has no argument for is the error.
func (d *Dialect) Resolve(tool string, args Args) (map[string]any, error) {
	out := make(map[string]any, len(args))
	keys := make([]Role, 0, len(args))
	for r := range args {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	for _, r := range keys {
		if args[r] == nil {
			continue
		}
		name, err := d.Name(tool, r)
		if err != nil {
			return nil, err
		}
		out[name] = args[r]
		if d.booleanCountArg(tool, r, name) {
			out[name] = args[r] != "none" && args[r] != false
		}
	}
	return out, nil
}

// booleanCountArg reports whether name, tool's argument for role r, is
// a count mode declared as a boolean.
func (d *Dialect) booleanCountArg(tool string, r Role, name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[tool]
	if td == nil {
		return false
	}
	i := slices.IndexFunc(td.props, func(p property) bool { return p.Name == name })
	return i >= 0 && booleanCount(r, td.props[i])
}

// Value is the value a call of tool, with args in the target's names,
// gives role r; nil when it gives none.
func (d *Dialect) Value(tool string, args map[string]any, r Role) any {
	name, err := d.Name(tool, r)
	if err != nil {
		return nil
	}
	return args[name]
}

// Declares reports whether tool's inputSchema declares argument name.
func (d *Dialect) Declares(tool, name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[tool]
	return td != nil && td.declares(name)
}

// Undeclared lists, sorted, the arguments of args tool does not declare.
func (d *Dialect) Undeclared(tool string, args map[string]any) []string {
	var out []string
	for k := range args {
		if !d.Declares(tool, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Observe learns from a call the target printed: a role its inputSchema
// left ambiguous is played by the one candidate the printed call uses.
func (d *Dialect) Observe(c PrintedCall) {
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[c.Tool]
	if td == nil {
		return
	}
	for r, cands := range td.ambiguous {
		var used []string
		for _, n := range cands {
			if _, ok := c.Args[n]; ok {
				used = append(used, n)
			}
		}
		if len(used) == 1 {
			td.bound[r] = Binding{Role: r, Name: used[0], Source: FromPrintedCall}
			delete(td.ambiguous, r)
		}
	}
}

// Unsettled reports whether some role is still ambiguous: printed calls
// may settle it.
func (d *Dialect) Unsettled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, td := range d.tools {
		if len(td.ambiguous) > 0 {
			return true
		}
	}
	return false
}

// ValueIn is the value an object the target answered with (a hit, an
// evidence excerpt) gives role r: under the name tool declares for r, or
// under any name the role goes by.
func (d *Dialect) ValueIn(m map[string]any, tool string, r Role) (any, bool) {
	if name, err := d.Name(tool, r); err == nil {
		if v, ok := m[name]; ok {
			return v, true
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, n := range roles[r].names {
		for _, k := range keys {
			if normalise(k) == n {
				return m[k], true
			}
		}
	}
	return nil, false
}

// Learn binds roles the inputSchema left unresolved from a printed call
// whose values the caller knows: a role whose known value exactly one
// declared, unbound argument of the call holds is played by it. Roles
// already bound are never rebound.
func (d *Dialect) Learn(c PrintedCall, known Args) {
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[c.Tool]
	if td == nil {
		return
	}
	bound := map[string]bool{}
	for _, b := range td.bound {
		bound[b.Name] = true
	}
	for r, want := range known {
		if _, ok := td.bound[r]; ok || want == nil {
			continue
		}
		var holders []string
		for name, v := range c.Args {
			if !bound[name] && td.declares(name) && fmt.Sprint(v) == fmt.Sprint(want) {
				holders = append(holders, name)
			}
		}
		if len(holders) == 1 {
			td.bound[r] = Binding{Role: r, Name: holders[0], Source: FromPrintedCall}
			delete(td.ambiguous, r)
			bound[holders[0]] = true
		}
	}
}

// Container is the dot path in structuredContent that the user's --dialect
// file gives for tool's list of hits or records, or "".
func (d *Dialect) Container(tool string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if td := d.tools[tool]; td != nil {
		return td.container
	}
	return ""
}
