package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Overrides are the user's corrections to an inferred dialect, read from
// a --dialect file:
//
//	arguments:
//	  read_record_field:
//	    record id: handle
//	    field: key
//	  search:
//	    query: text
//	containers:
//	  search: data.items
//
// Containers name, per tool, the dot path in structuredContent of the
// list that holds its hits or records, for an answer whose list mcpcheck
// does not find by what it holds.
type Overrides struct {
	Arguments  map[string]map[string]string `yaml:"arguments"`
	Containers map[string]string            `yaml:"containers"`
}

// LoadOverrides reads a --dialect file. Unknown keys and unknown roles are
// errors that list what is known.
func LoadOverrides(path string) (*Overrides, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--dialect: %w", err)
	}
	o, err := ParseOverrides(b)
	if err != nil {
		return nil, fmt.Errorf("--dialect %s: %w", path, err)
	}
	return o, nil
}

// ParseOverrides reads a dialect file's YAML.
func ParseOverrides(b []byte) (*Overrides, error) {
	var o Overrides
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("not a dialect file (want arguments: {tool: {role: argument}} and containers: {tool: path}): %w", err)
	}
	for tool, path := range o.Containers {
		if strings.TrimSpace(path) == "" || strings.Contains(path, "..") || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") {
			return nil, fmt.Errorf("containers: %s: %q is not a dot path in structuredContent (say data.items)", tool, path)
		}
	}
	for tool, m := range o.Arguments {
		for role, name := range m {
			if _, ok := ParseRole(role); !ok {
				return nil, fmt.Errorf("%s: unknown role %q; roles are %s", tool, role, strings.Join(roleNames(), ", "))
			}
			if strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("%s: role %q names no argument", tool, role)
			}
		}
	}
	return &o, nil
}

// entries are the bindings the file gives tool, in role order.
func (o *Overrides) entries(tool string) []Binding {
	var out []Binding
	for role, name := range o.Arguments[tool] {
		r, _ := ParseRole(role)
		out = append(out, Binding{Role: r, Name: strings.TrimSpace(name), Source: FromUser})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Role < out[j].Role })
	return out
}

func roleNames() []string {
	var out []string
	for r := range roles {
		out = append(out, string(r))
	}
	sort.Strings(out)
	return out
}
