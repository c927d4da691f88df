package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S035 plays a host that cannot read resources: it never calls
// resources/read. Every pdpp:// handle the target itself shows in a read
// result, on its own data and on the evidence-ladder fixture, must lead to
// the same content through a tool call. A handle that only copies a
// record value is data, not the target's (the fixtures carry none).
// Whether resources/read could serve it is S046's and S047's; whether an
// omission without any handle has a continuation is S033's. A blob's bytes
// have no tool (fetch_blob is off the surface, seed 002 keeps binaries
// metadata-only): a blob handle is reachable by the grant-scoped export
// route seed 002 names, shown beside it (mcpcheck's reading, recommended).
var s035 = &Check{ID: "S035", Slug: "resource-read-unavailable", Mode: ModeBBD, Tools: []string{"fetch", "read_record_field"}, Run: func(t *T) {
	shown := 0
	for v := range probe.EvidenceViews(t) {
		seen := map[string]bool{}
		scan := probe.ReadURIs(v)
		for _, c := range scan.Calls {
			for _, kind := range []string{"record", "field-window"} {
				for _, u := range scan.Emitted(c, kind) {
					if seen[u] {
						continue
					}
					seen[u] = true
					shown++
					t.Clause(1, func() { reachByTool(v, c, u) })
				}
			}
			for _, u := range scan.Emitted(c, "blob") {
				if id := blobIDIn(v, u); id != "" && !seen[u] {
					seen[u] = true
					shown++
					t.Clause(1, func() { reachBlobByRoute(t, c, u, id) })
				}
			}
		}
	}
	if shown == 0 {
		t.NotApplicable("no read result shows a pdpp:// resource URI of the target's own, so no content depends on reading one")
	}
}}

// reachByTool judges one handle a result shows: a tool call reaches the
// content it names, without resources/read. A record handle is a fetch
// id, a field-window handle a read_record_field id (with the field the
// handle names); the content is the handle's own when it says which.
func reachByTool(t *T, from *Call, uri string) {
	if strings.HasPrefix(uri, "pdpp://record/") {
		f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: uri})
		t.Works(f, from, "%s shows %s; a host that cannot read resources must reach that record with a tool (fetch with it as id)", from.Tool, uri)
		return
	}
	var r *Call
	h := probe.HandleJSON(uri)
	for _, field := range append(probe.HandleFields(t, h), "") {
		args := dialect.Args{dialect.RecordID: uri}
		if field != "" {
			args[dialect.Field] = field
		}
		if r = t.CallRoles("read_record_field", args); !r.IsError() {
			break
		}
	}
	t.Works(r, conformance.Answers(from, conformance.Shown("the fields the handle names", strings.Join(probe.HandleFields(t, h), "\n"))),
		"%s shows %s; a host that cannot read resources must reach that field window with a tool (read_record_field with it as id)", from.Tool, uri)
}

// blobIDIn is the fixture blob id that blob handle u names, or "".
func blobIDIn(t *T, u string) string {
	for _, r := range probe.FixtureRecords(t) {
		for _, v := range r.Data {
			if m, ok := v.(map[string]any); ok {
				if id := probe.String(m["blob_id"]); id != "" && strings.Contains(u, id) {
					return id
				}
			}
		}
	}
	return ""
}

// reachBlobByRoute judges a blob handle by the export route seed 002 names
// for stored blobs (GET /v1/blobs/:blob_id), found by value in the answer
// that shows the handle.
func reachBlobByRoute(t *T, from *Call, uri, id string) {
	route := "/v1/blobs/" + id
	t.Advise(read.Find(from.Strings(), read.Text(route)).Seen(),
		"%s shows blob handle %s; a host that cannot read resources reaches no blob by it, and the answer shows no export route %s (seed 002: \"an authorized resource/export continuation … GET /v1/blobs/:blob_id\"; mcpcheck's reading, recommended)", from.Tool, uri, route)
}
