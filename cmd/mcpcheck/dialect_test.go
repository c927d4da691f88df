package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// --dialect corrects the inferred roles, and the report's head says so; a
// file that names an unknown role is a usage error naming the known ones.
func TestDialectFlag(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("arguments:\n  read_record_field:\n    offset: offset_chars\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("arguments:\n  search:\n    querry: q\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dialect", good, "--no-footprint", "S012")
	if code != conformance.ExitPass || !strings.Contains(out, "offset = offset_chars (--dialect)") || !strings.Contains(out, "field = field_path") {
		t.Errorf("--dialect good.yaml: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dialect", bad, "S012")
	if code != conformance.ExitUsage || !strings.Contains(stderr, `unknown role "querry"`) || !strings.Contains(stderr, "record id") {
		t.Errorf("--dialect bad.yaml: exit %d, want %d naming the role\n%s\n%s", code, conformance.ExitUsage, out, stderr)
	}
}
