package checks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Check sources hold none of the reference adapter's own dialect: its
// names for arguments the seeds leave open (read from its recorded
// tools/list through the resolver, so a renamed argument is caught too),
// its id formats, or its container keys. Checks reach those through
// conformance/dialect and by value, so an adapter of another dialect is
// judged in its own.
func TestCheckSourcesHoldNoReferenceDialect(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "dialect", "testdata", "reference.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	banned := map[string]string{}
	for _, s := range dialect.FromToolsList(list.Tools, nil).Summary() {
		for _, b := range s.Roles {
			// the aggregate's field is the RS contract's own name
			if b.Name != "id" && b.Name != "field" {
				banned[`"`+b.Name+`"`] = "the reference adapter's name for the " + string(b.Role) + " of " + s.Tool + ": call by role (dialect." + roleConst(b.Role) + ")"
			}
		}
	}
	if len(banned) < 5 {
		t.Fatalf("the reference tools/list gave only %d names to look for: %v", len(banned), banned)
	}
	patterns := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`"cin_`), "a reference connection id: take ids from the target's answers"},
		{regexp.MustCompile(`\+\s*":"\s*\+`), "an id built in the reference {stream}:{record} format: take ids from the target's answers"},
		{regexp.MustCompile(`\+\s*"/"\s*\+`), "an id built in the reference {conn}/{stream}:{record} format: take ids from the target's answers"},
		{regexp.MustCompile(`"results"`), "the reference adapter's search container key: find hits by value"},
		{regexp.MustCompile(`\.Args\[`), "an argument read back by name: read it by role (Call.Role, roleOf)"},
	}
	// U05 is mcpcheck's own rule about the RS contract's legacy
	// {stream}:{record_id} id, which it builds on purpose.
	// S032 tries that id too: a fetch by it is a source-required read.
	allowed := map[string]string{"u05_self_contained_ids.go": `\+\s*":"\s*\+`, "s032_ambiguous_connection.go": `\+\s*":"\s*\+`}
	var files []string
	for _, glob := range []string{"s0*.go", "u*.go", filepath.Join("..", "probe", "*.go")} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for lit, why := range banned {
				if strings.Contains(line, lit) {
					t.Errorf("%s:%d holds %s, %s", f, i+1, lit, why)
				}
			}
			for _, p := range patterns {
				if p.re.MatchString(line) && allowed[filepath.Base(f)] != p.re.String() {
					t.Errorf("%s:%d: %s: %s", f, i+1, p.why, strings.TrimSpace(line))
				}
			}
		}
	}
}

// roleConst is a role's constant name in package dialect: "record id" is
// RecordID.
func roleConst(r dialect.Role) string {
	switch r {
	case dialect.RecordID:
		return "RecordID"
	case dialect.Before:
		return "Before"
	case dialect.After:
		return "After"
	}
	var b strings.Builder
	for _, w := range strings.Fields(string(r)) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
