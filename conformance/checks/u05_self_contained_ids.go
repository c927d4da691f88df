package checks

import (
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// malformedIDs are ids every adapter must reject before calling the RS.
var malformedIDs = []string{
	"cin/", "/messages:m1", "cin/messages", "cin/extra/messages:m1", "../messages:m1", "messages:../../etc/passwd",
	"messages:..", "messages:%2e%2e%2fsecret", "messages:%252e%252e%252f", `messages:a\b`, "cin/messages:", "messages:a/b",
}

// The search id is taken as the target writes it (any self-contained
// format); the legacy form is the contract's own {stream}:{record_id}.
var u05 = &Check{ID: "U05", Slug: "self-contained-ids", Mode: ModeBBD, Tools: []string{"fetch", "read_record_field"}, Run: func(t *T) {
	probe.Grant(t)
	_, c, _ := probe.FanInTerm(t)
	if c == nil || len(probe.Hits(t, c)) == 0 {
		t.Skipf("no word from the target's records finds any hit")
	}
	// The hit's handle is what fetch takes for it, learned by following;
	// its stream, connection and record id are the fixture's, by value.
	h := probe.Hits(t, c)[0]
	id := probe.HitHandle(t, c, h)
	if id == "" {
		t.BlockedBy("S024", "fetch takes no string of the first search hit for its record %s: %v", h.Ref, h.Raw)
	}
	on := t.Private()
	t.Clause(1, func() {
		f := on.CallRoles("fetch", dialect.Args{dialect.RecordID: id})
		t.Assert(!f.IsError(), "fetch(id) of a search hit needs no other argument: %s", f.Describe())
	})
	t.Clause(1, func() {
		if h.Ref.Stream == "" || h.Ref.Conn == "" || h.Ref.ID == "" {
			t.Skipf("search hit %s is not a record of the fixture's", id)
		}
		l := on.CallRoles("fetch", dialect.Args{dialect.RecordID: h.Ref.Stream + ":" + h.Ref.ID, dialect.Connection: h.Ref.Conn})
		t.Assert(!l.IsError(), "a legacy {stream}:{record_id} id with connection_id must work: %s", l.Describe())
	})
	t.Clause(2, func() {
		if h.Ref.Conn == "" {
			t.Skipf("search hit %s is not a record of the fixture's", id)
		}
		rejectedBeforeRS(t, on, "fetch", dialect.Args{dialect.RecordID: id, dialect.Connection: h.Ref.Conn + "_other"}, dialect.Connection,
			"a connection_id that contradicts the id")
	})
	t.Clause(2, func() {
		for _, bad := range malformedIDs {
			for _, tool := range []string{"fetch", "read_record_field"} {
				args := dialect.Args{dialect.RecordID: bad}
				if tool == "read_record_field" {
					args[dialect.Field] = "text"
				}
				rejectedBeforeRS(t, on, tool, args, dialect.RecordID, "the malformed id "+bad)
			}
		}
	})
}}

// rejectedBeforeRS requires a call to fail with a typed rejection, and,
// on a target whose RS log mcpcheck reads, without any RS request.
func rejectedBeforeRS(t *T, on *T, tool string, args dialect.Args, role dialect.Role, what string) {
	arg := on.ArgName(tool, role)
	var before int64
	logged := on.Target.Has(CapControlledRS)
	if logged {
		if reqs := on.RS().Requests(); len(reqs) > 0 {
			before = reqs[len(reqs)-1].Seq
		}
	}
	r := on.CallRoles(tool, args)
	t.Assert(probe.TypedRejection(r, arg), "%s must reject %s with a typed error: %s", tool, what, r.Describe())
	if !logged {
		return
	}
	var sent []string
	for _, q := range on.RS().Requests() {
		if q.Seq > before {
			sent = append(sent, q.Path)
		}
	}
	t.Assert(len(sent) == 0, "%s must reject %s before calling the RS, but the RS served %v", tool, what, sent)
}
