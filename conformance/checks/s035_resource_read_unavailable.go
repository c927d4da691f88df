package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S035 plays a host that cannot read resources: it never calls
// resources/read. Every pdpp:// handle the target itself shows in a read
// result, on its own data and on the evidence-ladder fixture, must lead to
// the same content through a tool call. A handle that only copies a
// record value is data, not the target's (the fixtures carry none).
// Whether resources/read could serve it is S046's and S047's; whether an
// omission without any handle has a continuation is S033's.
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
