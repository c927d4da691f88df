package checks

import (
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
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
	first := ft.CallRoles("query_records", et.Roles(nil))
	advertise(nil)
	before := len(probe.ExpandCalls(ft, et))
	withdrawn := ft.CallRoles("query_records", et.Roles(nil))
	reached := len(probe.ExpandCalls(ft, et)) > before
	advertise(rels)
	before = len(probe.ExpandCalls(ft, et))
	restored := ft.CallRoles("query_records", et.Roles(nil))
	forwarded := len(probe.ExpandCalls(ft, et)) > before
	t.Clause(1, func() {
		t.Assert(!reached, "after %q stops advertising %q, the very next call must be rejected before the RS records endpoint: %s", et.Stream, et.Rel, withdrawn.Describe())
		t.Assert(withdrawn.IsError() && probe.CarriesCode(withdrawn, "invalid_expand"), "after the advertisement is withdrawn, the next call must be a typed invalid_expand: %s", withdrawn.Describe())
		if first.IsError() {
			return // expand was never forwarded, even advertised: S007's
		}
		t.Assert(forwarded && !restored.IsError(), "after the advertisement returns, the next call must be forwarded again: %s", restored.Describe())
	})
}}
