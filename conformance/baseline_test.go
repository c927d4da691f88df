package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBaselineRejectsBadFiles(t *testing.T) {
	for name, body := range map[string]string{
		"unknown id":    "expected_failures:\n  S999: nope\n",
		"no reason":     "expected_failures:\n  S012: \"\"\n",
		"unknown key":   "expected_failures: {}\nexpectedfailures: {}\n",
		"not YAML":      "expected_failures: [unclosed\n",
		"wrong shapes":  "expected_failures:\n  - S012\n",
		"missing file!": "",
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "b.yml", body)
			if name == "missing file!" {
				path += ".nope"
			}
			_, err := LoadBaseline(path)
			if _, ok := err.(*UsageError); !ok {
				t.Errorf("got %v, want a usage error", err)
			}
		})
	}
}

func TestClassifyToolChanges(t *testing.T) {
	old := `[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"},"z":{"type":"string"}},"required":["x"]}}]`
	now := `[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"integer"},"z":{"type":"string","description":"new"},"w":{"type":"string"},"v":{"type":"string"}},"required":["x","z","v"]}}]`
	got := map[string]bool{}
	for _, c := range classifyToolChanges([]byte(old), []byte(now)) {
		got[c.What] = c.Breaking
	}
	want := map[string]bool{
		"argument x changed type or allowed values": true, "argument y removed": true, "argument z is now required": true,
		"argument z described or constrained differently": false, "argument w added, optional": false, "argument v added, required": true,
	}
	for what, breaking := range want {
		if b, ok := got[what]; !ok || b != breaking {
			t.Errorf("%s: got breaking=%v (present %v), want %v; all %v", what, b, ok, breaking, got)
		}
	}
}

// A change below an argument's top level still changes what it accepts.
func TestClassifyNestedShapeChanges(t *testing.T) {
	arg := func(name, schema string) string {
		return `[{"name":"a","inputSchema":{"type":"object","properties":{"` + name + `":` + schema + `}}}]`
	}
	for name, c := range map[string]struct {
		old, now string
		breaking bool
	}{
		"items type":            {`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"integer"}}`, true},
		"items enum":            {`{"type":"array","items":{"enum":["a","b"]}}`, `{"type":"array","items":{"enum":["a"]}}`, true},
		"items dropped":         {`{"type":"array","items":{"type":"string"}}`, `{"type":"array"}`, true},
		"anyOf branch type":     {`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"string"},{"type":"boolean"}]}`, true},
		"oneOf branch removed":  {`{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"oneOf":[{"type":"string"}]}`, true},
		"const":                 {`{"const":"v1"}`, `{"const":"v2"}`, true},
		"nested property type":  {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"number"}}}`, true},
		"nested property gone":  {`{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string"}}}`, true},
		"deep nested items":     {`{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}}}`, `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`, true},
		"nested description":    {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string","description":"start"}}}`, false},
		"nested optional added": {`{"type":"object","properties":{"from":{"type":"string"}}}`, `{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}`, false},
		"items maxLength":       {`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"string","maxLength":9}}`, false},
	} {
		changes := classifyToolChanges([]byte(arg("x", c.old)), []byte(arg("x", c.now)))
		if len(changes) != 1 || changes[0].Breaking != c.breaking {
			t.Errorf("%s: changes %+v, want one with breaking=%v", name, changes, c.breaking)
		}
	}
}

// 200,000 unknown ids are read in linear time (the YAML library's own
// repeated-key check took 507 s for them) and named in a bounded error.
func TestBaselineWithManyUnknownIDs(t *testing.T) {
	var b strings.Builder
	b.WriteString("expected_failures:\n")
	for i := range 200_000 {
		fmt.Fprintf(&b, "  X%07d: reason\n", i)
	}
	_, err := LoadBaseline(writeFile(t, "b.yml", b.String()))
	if _, ok := err.(*UsageError); !ok {
		t.Fatalf("got %v, want a usage error", err)
	}
	if msg := err.Error(); len(msg) > 4096 || !strings.Contains(msg, "X0000000 names no catalog scenario") || !strings.Contains(msg, "and 199980 more") {
		t.Errorf("error of %d bytes: %.300s", len(msg), msg)
	}
}

func TestBaselineReadsEntriesAndRefusesRepeats(t *testing.T) {
	bl, err := LoadBaseline(writeFile(t, "b.yml", "target: https://x/mcp\nexpected_failures:\n  S012: a reason\n  S029: \"another\"\n"))
	if err != nil || bl.Target != "https://x/mcp" || len(bl.ExpectedFailures) != 2 || bl.ExpectedFailures["S012"] != "a reason" || bl.ExpectedFailures["S029"] != "another" {
		t.Fatalf("got %+v, %v", bl, err)
	}
	if bl, err := LoadBaseline(writeFile(t, "b.yml", "target: x\n")); err != nil || len(bl.ExpectedFailures) != 0 {
		t.Errorf("no entries: %+v, %v", bl, err)
	}
	_, err = LoadBaseline(writeFile(t, "b.yml", "expected_failures:\n  S012: a\n  S012: b\n"))
	if err == nil || !strings.Contains(err.Error(), "S012 is listed twice (line 3)") {
		t.Errorf("a repeated id: %v", err)
	}
	_, err = LoadBaseline(writeFile(t, "b.yml", "expected_failures:\n  S012: ~\n"))
	if err == nil || !strings.Contains(err.Error(), "S012 has no reason") {
		t.Errorf("a null reason: %v", err)
	}
}
