package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

func TestReportSchemaPrintsTheEmbeddedSchema(t *testing.T) {
	code, out, _ := run(t, nil, "report-schema")
	var schema struct {
		Properties struct {
			Schema struct{ Const string } `json:"schema"`
		} `json:"properties"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &schema) != nil || schema.Properties.Schema.Const != conformance.ReportSchema {
		t.Errorf("exit %d; output is not the %s schema:\n%.200s", code, conformance.ReportSchema, out)
	}
}

func TestReportSchemaValidatesTheCLIsOwnJSONReport(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	if code, out, stderr := run(t, nil, "S001", "S012", "--json", report); code != conformance.ExitPass && code != conformance.ExitIncomplete {
		t.Fatalf("report run: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out, stderr := run(t, nil, "report-schema", "--validate", report); code != 0 || !strings.Contains(out, "valid "+conformance.ReportSchema) {
		t.Errorf("valid report: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"schema":"mcpcheck.report/v2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Every violation is listed, not only the first: this one lacks seven
	// required members.
	code, out, stderr := run(t, nil, "report-schema", "--validate", broken)
	if code != conformance.ExitFail || !strings.Contains(stderr, "not a valid "+conformance.ReportSchema+" report") {
		t.Errorf("broken report: exit %d, stderr %q; want 1 and the reason", code, stderr)
	}
	for _, member := range []string{"tool", "target", "target_kind", "started", "duration_ns", "scenarios", "totals"} {
		if !strings.Contains(out, "'"+member+"'") {
			t.Errorf("the violations do not name the missing %s:\n%s", member, out)
		}
	}
	notJSON := filepath.Join(dir, "not.json")
	if err := os.WriteFile(notJSON, []byte("<html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "report-schema", "--validate", notJSON); code != conformance.ExitUsage || !strings.Contains(stderr, "not JSON") {
		t.Errorf("a file that is not JSON: exit %d, stderr %q; want 2", code, stderr)
	}
	if code, _, _ := run(t, nil, "report-schema", "--validate", filepath.Join(dir, "missing.json")); code != conformance.ExitUsage {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}
