package checks

import (
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var s009 = &Check{ID: "S009", Slug: "expand-live-schema", Mode: ModeCTRL, Needs: []Capability{CapFixture}, Run: func(t *T) {
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
	et := expandTarget{stream: stream.Name, conn: stream.Connections[0], rel: rels[0].Name}
	fork := t.Fork(fx)
	ft := t.On(fork)
	set := func(r []fakers.Relationship) {
		t.On(fork).RS().Update(func(f *fakers.Fixture) {
			for _, s := range f.Streams {
				if s.Connector == stream.Connector && s.Name == stream.Name {
					s.Relationships = r
				}
			}
		})
	}

	c := ft.Call("query_records", et.args(nil))
	t.Expect(c.IsError()).To(BeFalse(), "while %q advertises %q, expand must work: %s", et.stream, et.rel, c.Describe())
	before := len(expandCalls(t.On(fork), et))

	set(nil)
	c = ft.Call("query_records", et.args(nil))
	t.Expect(c.IsError()).To(BeTrue(), "after the advertisement is withdrawn, the very next call must be rejected: %s", c.Describe())
	t.Expect(c.ErrorCode()).To(Equal("invalid_expand"))
	t.Expect(len(expandCalls(t.On(fork), et))).To(Equal(before), "the withdrawn relation must be rejected by the adapter, before the RS records endpoint")

	set(rels)
	c = ft.Call("query_records", et.args(nil))
	t.Expect(c.IsError()).To(BeFalse(), "after the advertisement returns, the next call must be forwarded again: %s", c.Describe())
}}
