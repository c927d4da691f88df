package main

import (
	"encoding/json"

	"os"
	"path/filepath"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance/checks"
)

// coverage reads any OpenSpec tree, specs and change deltas, and maps each
// scenario to the check that covers it by its text, or says unchecked.
func TestCoverageMapsAnOpenSpecTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("openspec/specs/mcp-adapter/spec.md", `# mcp-adapter Specification

## Purpose
The MCP adapter.

## Requirements

### Requirement: Normal MCP read surface SHALL contain exact read tools
The normal MCP read surface SHALL contain exactly schema, query_records, aggregate, search, and fetch.

#### Scenario: Client lists MCP tools
- **WHEN** a client calls `+"`tools/list`"+` on the recommended MCP endpoint
- **THEN** the response SHALL include exactly schema, query_records, aggregate, search, and fetch
- **AND** it SHALL NOT include list_streams, fetch_blob, or any event-subscription management tool

### Requirement: MCP event subscriptions SHALL be signed
The adapter SHALL sign webhook deliveries.

#### Scenario: Operator rotates the webhook secret
- **WHEN** the operator rotates the signing secret of a webhook
- **THEN** deliveries after the rotation carry the new signature
`)
	write("openspec/changes/unify-read-evidence-surface/specs/mcp-adapter/spec.md", `## MODIFIED Requirements

### Requirement: MCP Adapter Surfaces Resource Links Without Depending On Them
The MCP adapter MAY return MCP resource_link blocks.

#### Scenario: Resource read is unavailable
- **WHEN** an MCP host cannot read a returned pdpp:// resource URI
- **THEN** the same omitted or truncated content SHALL remain reachable through a model-controlled tool path when the active grant authorizes it
`)
	write("openspec/specs/other/spec.md", "# other\n\n## Requirements\n\n### Requirement: X\nIt SHALL.\n\n#### Scenario: Y\n- **WHEN** z\n- **THEN** w\n")
	code, out, stderr := run(t, nil, "coverage", "--openspec", dir, "--capability", "mcp-adapter", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rows []coverageRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"Client lists MCP tools": "S012", "Operator rotates the webhook secret": "", "Resource read is unavailable": "S035"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for _, r := range rows {
		if r.ID != want[r.Scenario] {
			t.Errorf("%s: matched %q (%.2f), want %q", r.Scenario, r.ID, r.Score, want[r.Scenario])
		}
		if (r.ID == "") != (r.Status == "unchecked") {
			t.Errorf("%s: status %s for id %q", r.Scenario, r.Status, r.ID)
		}
	}
	if rows[2].Source != "change unify-read-evidence-surface (MODIFIED)" && rows[0].Source != "change unify-read-evidence-surface (MODIFIED)" {
		t.Errorf("no row names the change and its delta kind: %+v", rows)
	}
	// The catalog itself: every scenario is its own match.
	code, out, _ = run(t, nil, "coverage", "--openspec", "../../scenarios", "--json")
	rows = nil
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("the catalog's own tree: exit %d, %v\n%s", code, err, out)
	}
	entries, err := checks.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(entries) {
		t.Errorf("%d rows for the catalog's %d scenarios", len(rows), len(entries))
	}
	for i, r := range rows {
		if r.ID == "" || r.Score != 1 || i < len(entries) && r.Status != string(entries[i].Status) {
			t.Errorf("the catalog's own scenario %q matched %q (%.2f, %s)", r.Scenario, r.ID, r.Score, r.Status)
		}
	}
	for _, bad := range [][]string{{"coverage"}, {"coverage", "--openspec", filepath.Join(dir, "nope")}, {"coverage", "--openspec", dir, "--capability", "nope"}} {
		if code, _, _ := run(t, nil, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
