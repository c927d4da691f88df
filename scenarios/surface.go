package scenarios

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// A Surface is the expected normal tool surface, kept as data in surface.json.
type Surface struct {
	Tools                 []string `json:"tools"`
	ForbiddenTools        []string `json:"forbidden_tools"`
	ForbiddenToolPatterns []string `json:"forbidden_tool_patterns"`
	ConnectionIDTools     []string `json:"connection_id_tools"`
	DeprecatedArguments   []string `json:"deprecated_arguments"`
	BudgetBytes           int      `json:"budget_bytes"`
	InstructionsWindow    int      `json:"instructions_window"`
	// Result budgets bound whole tool results (content and structuredContent).
	// The global schema index may take SchemaIndexBaseBytes plus
	// SchemaIndexBytesPerStream for each granted stream.
	SchemaIndexBaseBytes      int `json:"schema_index_base_bytes"`
	SchemaIndexBytesPerStream int `json:"schema_index_bytes_per_stream"`
	ScopedFullBudgetBytes     int `json:"scoped_full_budget_bytes"`
}

// LoadSurface reads the embedded surface.json.
func LoadSurface() (*Surface, error) {
	data, err := files.ReadFile("surface.json")
	if err != nil {
		return nil, err
	}
	var s Surface
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("scenarios/surface.json: %w", err)
	}
	for _, p := range s.ForbiddenToolPatterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("scenarios/surface.json: forbidden_tool_patterns: %w", err)
		}
	}
	return &s, nil
}

// Forbidden reports whether a tool name is outside the normal surface by rule,
// and why.
func (s *Surface) Forbidden(name string) (string, bool) {
	for _, f := range s.ForbiddenTools {
		if f == name {
			return "listed in forbidden_tools", true
		}
	}
	for _, p := range s.ForbiddenToolPatterns {
		if regexp.MustCompile(p).MatchString(name) {
			return "matches forbidden pattern " + p, true
		}
	}
	return "", false
}

// SchemaIndexBudget is the bound on a whole global schema() result over a
// grant of streams stream rows (S017.4, mcpcheck's own rule).
func (s *Surface) SchemaIndexBudget(streams int) int {
	return s.SchemaIndexBaseBytes + streams*s.SchemaIndexBytesPerStream
}
