package dialect

import (
	"fmt"
	"slices"
	"strings"
)

// A ToolSummary is what a report says of one tool's dialect: the roles
// bound to arguments the seed does not name (or names otherwise), the
// roles left ambiguous, and --dialect entries that were not applied.
type ToolSummary struct {
	Tool      string      `json:"tool"`
	Roles     []Binding   `json:"roles,omitempty"`
	Ambiguous []Ambiguity `json:"ambiguous,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
	// Container is the --dialect path of the tool's hits or records.
	Container string `json:"container,omitempty"`
}

// An Ambiguity is a role two or more declared arguments fit equally well.
type Ambiguity struct {
	Role       Role     `json:"role"`
	Candidates []string `json:"candidates"`
}

// Summary describes the dialect tool by tool, in tools/list order; tools
// whose every bound argument has its seed name are left out.
func (d *Dialect) Summary() []ToolSummary {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []ToolSummary
	for _, tool := range d.order {
		td := d.tools[tool]
		s := ToolSummary{Tool: tool, Notes: td.notes, Container: td.container}
		for _, r := range rolesOf(tool) {
			if b, ok := td.bound[r]; ok && (b.Source != FromInputSchema || seedName(tool, r) != b.Name) {
				s.Roles = append(s.Roles, b)
			}
			if c := td.ambiguous[r]; len(c) > 0 {
				s.Ambiguous = append(s.Ambiguous, Ambiguity{Role: r, Candidates: c})
			}
		}
		s.Roles = sortedBySource(s.Roles)
		if len(s.Roles)+len(s.Ambiguous)+len(s.Notes) > 0 || s.Container != "" {
			out = append(out, s)
		}
	}
	return out
}

// Line is the summary as one line of a text report:
// "read_record_field: record id = handle, field = key (inputSchema); offset = skip (printed call)".
func (s ToolSummary) Line() string {
	var parts []string
	for i := 0; i < len(s.Roles); {
		src := s.Roles[i].Source
		var same []string
		for ; i < len(s.Roles) && s.Roles[i].Source == src; i++ {
			same = append(same, fmt.Sprintf("%s = %s", s.Roles[i].Role, s.Roles[i].Name))
		}
		parts = append(parts, strings.Join(same, ", ")+" ("+string(src)+")")
	}
	for _, a := range s.Ambiguous {
		parts = append(parts, fmt.Sprintf("%s = ? (ambiguous: %s)", a.Role, strings.Join(a.Candidates, " or ")))
	}
	if s.Container != "" {
		parts = append(parts, "list at structuredContent."+s.Container+" (--dialect)")
	}
	parts = append(parts, s.Notes...)
	return s.Tool + ": " + strings.Join(parts, "; ")
}

// sortedBySource keeps a summary's roles grouped by source, in role order.
func sortedBySource(bs []Binding) []Binding {
	rank := map[Source]int{FromInputSchema: 0, FromPrintedCall: 1, FromUser: 2}
	slices.SortStableFunc(bs, func(a, b Binding) int { return rank[a.Source] - rank[b.Source] })
	return bs
}

// seedName is the name the seed text gives role r on tool, or "": fetch's
// record id is the search/fetch document contract's id.
func seedName(tool string, r Role) string {
	if tool == "fetch" && r == RecordID {
		return "id"
	}
	return roles[r].seed
}
