package checks

import (
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Seed 000: "the adapter SHALL enforce the updated capability on the next
// call without any server restart or configuration change": withdrawn,
// the next call is rejected before the RS records endpoint; restored,
// the next one is forwarded again.
var s009 = &Check{ID: "S009", Slug: "expand-live-schema", Mode: ModeCTRL, Needs: []Capability{CapFixture}, Tools: []string{"query_records"}, Run: func(t *T) {
	fx := t.BaseFixture()
	var stream *fakers.Stream
	for _, s := range fx.Streams {
		if len(s.Relationships) > 0 && len(s.Connections) > 0 {
			stream = s
			break
		}
	}
	if stream == nil {
		t.Skipf("the fixture %q has no stream with expand relations to flip", fx.Name)
	}
	rels := stream.Relationships
	et := probe.ExpandTarget{Stream: stream.Name, Conn: stream.Connections[0], Rel: rels[0].Name}
	ft := t.On(t.Fork(fx))
	advertise := func(r []fakers.Relationship) {
		ft.RS().Update(func(f *fakers.Fixture) {
			for _, s := range f.Streams {
				if s.Connector == stream.Connector && s.Name == stream.Name {
					s.Relationships = r
				}
			}
		})
	}
	path := probe.RecordsPath(et.Stream)
	first := ft.CallRoles("query_records", et.Roles(nil))
	advertise(nil)
	mark := probe.LastSeq(ft)
	withdrawn := ft.CallRoles("query_records", et.Roles(nil))
	withdrawnLog := probe.RequestLog(ft, path, mark)
	reached := slices.ContainsFunc(probe.ExpandCalls(ft, et), func(r fakers.Request) bool { return r.Seq > mark })
	advertise(rels)
	mark = probe.LastSeq(ft)
	restored := ft.CallRoles("query_records", et.Roles(nil))
	restoredLog := probe.RequestLog(ft, path, mark)
	forwarded := slices.ContainsFunc(probe.ExpandCalls(ft, et), func(r fakers.Request) bool { return r.Seq > mark })
	// What the target showed of the restored advertisement, asked after
	// the call it must govern.
	shown := conformance.Answers(ft.CallRoles("schema", dialect.Args{dialect.Stream: et.Stream}), probe.GrantNames(t))
	t.Clause(1, func() {
		t.AssertWith(!reached, func() (conformance.Witness, error) { return conformance.Present(et.Rel, withdrawnLog) },
			"after %q stops advertising %q, the very next call must be rejected before the RS records endpoint: %s", et.Stream, et.Rel, withdrawn.Describe())
		t.Shows(withdrawn, read.Text("invalid_expand"), "after the advertisement is withdrawn, the next call must be a typed invalid_expand: %s", withdrawn.Describe())
		if first.IsError() {
			return // expand was never forwarded, even advertised: S007's
		}
		if !t.Works(restored, shown, "after the advertisement returns, the next call must be forwarded again") {
			return
		}
		t.AssertWith(forwarded, func() (conformance.Witness, error) { return conformance.Absent(read.Text(et.Rel), restoredLog) },
			"after the advertisement returns, the next call must reach the RS with expand=%s: %s", et.Rel, restored.Describe())
	})
}}
