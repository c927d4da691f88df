package dialect

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// A property is one argument a tool's inputSchema declares.
type property struct {
	Name        string
	Description string
	Types       []string // JSON types it admits; empty when the schema says none
	Enum        []string
	Required    bool
}

// properties reads the declared arguments of an inputSchema, in name
// order; nil when it declares none or is not a JSON object.
func properties(inputSchema json.RawMessage) []property {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(inputSchema, &s) != nil {
		return nil
	}
	var out []property
	for name, raw := range s.Properties {
		p := property{Name: name, Required: slices.Contains(s.Required, name)}
		var ps schemaNode
		if json.Unmarshal(raw, &ps) == nil {
			p.Description = ps.Description
			p.Types, p.Enum = ps.types(), ps.enum()
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// schemaNode is the part of a property schema inference reads.
type schemaNode struct {
	Description string          `json:"description"`
	Type        json.RawMessage `json:"type"`
	Enum        []any           `json:"enum"`
	Const       any             `json:"const"`
	AnyOf       []schemaNode    `json:"anyOf"`
	OneOf       []schemaNode    `json:"oneOf"`
}

func (n schemaNode) types() []string {
	var one string
	var many []string
	switch {
	case json.Unmarshal(n.Type, &one) == nil && one != "":
		many = []string{one}
	case json.Unmarshal(n.Type, &many) == nil:
	}
	for _, alt := range append(slices.Clone(n.AnyOf), n.OneOf...) {
		many = append(many, alt.types()...)
	}
	if len(n.enum()) > 0 {
		many = append(many, "string")
	}
	return many
}

func (n schemaNode) enum() []string {
	var out []string
	for _, v := range append(slices.Clone(n.Enum), n.Const) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	for _, alt := range append(slices.Clone(n.AnyOf), n.OneOf...) {
		out = append(out, alt.enum()...)
	}
	return out
}

// admits reports whether a property of these JSON types can hold a value
// of kind k; a property that states no type admits anything.
func admits(types []string, k kind) bool {
	if len(types) == 0 {
		return true
	}
	want := map[kind][]string{kString: {"string"}, kInteger: {"integer", "number"}, kArray: {"array"}, kObject: {"object"}}[k]
	return slices.ContainsFunc(types, func(t string) bool { return slices.Contains(want, t) })
}

// booleanCount reports a count mode declared as a boolean (count: true for
// an exact count): Resolve sends it true for any mode but none.
func booleanCount(r Role, p property) bool {
	return r == Count && slices.Equal(p.Types, []string{"boolean"})
}

// minScore is the least evidence that binds a property to a role: a
// name of the role's, or two of its words.
const minScore = 4

// score weighs how well property p fits role r (0: not at all).
func score(r Role, p property) int {
	spec := roles[r]
	if !admits(p.Types, spec.kind) && !booleanCount(r, p) {
		return 0
	}
	s := 0
	n := normalise(p.Name)
	switch i := slices.Index(spec.names, n); {
	case i == 0:
		s += 10
	case i > 0:
		s += 8
	default:
		for _, w := range nameWords(p.Name) {
			if slices.Contains(spec.words, w) || slices.Contains(spec.names, w) {
				s += 4
				break
			}
		}
	}
	desc := strings.ToLower(p.Description)
	hits := 0
	for _, w := range spec.words {
		if containsWord(desc, w) {
			hits++
		}
	}
	s += 2 * min(hits, 2)
	if len(spec.enum) > 0 && len(p.Enum) > 0 {
		if slices.ContainsFunc(spec.enum, func(e string) bool { return slices.Contains(p.Enum, e) }) {
			s += 8
		} else {
			s -= 4 // an enum of other values plays another role
		}
	}
	if s > 0 && p.Required && (r == RecordID || r == Query) {
		s++
	}
	return s
}

// containsWord reports whether text holds w as a whole word.
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// inferTool binds each role of a tool to the declared property that fits
// it best. Strongest evidence first, each property plays one role; a role
// two free properties fit equally well is ambiguous and stays unbound.
func inferTool(tool string, props []property) (map[Role]Binding, map[Role][]string) {
	type cand struct {
		role  Role
		prop  string
		score int
		order int
	}
	var cands []cand
	for i, r := range rolesOf(tool) {
		for _, p := range props {
			if s := score(r, p); s >= minScore {
				cands = append(cands, cand{r, p.Name, s, i})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		if cands[i].order != cands[j].order {
			return cands[i].order < cands[j].order
		}
		return cands[i].prop < cands[j].prop
	})
	bound := map[Role]Binding{}
	ambiguous := map[Role][]string{}
	taken := map[string]bool{}
	for i, c := range cands {
		if _, done := bound[c.role]; done || taken[c.prop] || ambiguous[c.role] != nil {
			continue
		}
		var tied []string
		for _, d := range cands[i+1:] {
			if d.score == c.score && d.role == c.role && !taken[d.prop] {
				tied = append(tied, d.prop)
			}
		}
		if len(tied) > 0 {
			all := append([]string{c.prop}, tied...)
			// The seed's own name for the role settles a tie (fetch's id:
			// "fetch with an id returned by search").
			seedNamed := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return normalise(n) != roles[c.role].names[0] })
			if len(seedNamed) != 1 {
				ambiguous[c.role] = all
				continue
			}
			c.prop = seedNamed[0]
		}
		bound[c.role] = Binding{Role: c.role, Name: c.prop, Source: FromInputSchema}
		taken[c.prop] = true
	}
	for r, names := range ambiguous {
		// a tie the rest of the binding settled is no tie
		free := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return taken[n] })
		switch len(free) {
		case 0:
			delete(ambiguous, r)
		case 1:
			delete(ambiguous, r)
			bound[r] = Binding{Role: r, Name: free[0], Source: FromInputSchema}
			taken[free[0]] = true
		default:
			ambiguous[r] = free
		}
	}
	return bound, ambiguous
}
