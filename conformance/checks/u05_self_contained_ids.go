package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

// malformedIDs are ids every adapter must reject before calling the RS.
var malformedIDs = []string{
	"cin/", "/messages:m1", "cin/messages", "cin/extra/messages:m1", "../messages:m1", "messages:../../etc/passwd",
	"messages:..", "messages:%2e%2e%2fsecret", "messages:%252e%252e%252f", `messages:a\b`, "cin/messages:", "messages:a/b",
}

var u05 = &Check{ID: "U05", Slug: "self-contained-ids", Mode: ModeBBD, Run: func(t *T) {
	_, c, _ := fanInTerm(t)
	if c == nil || len(hits(c)) == 0 {
		t.Skipf("no word from the target's records finds any hit")
	}
	h := hits(c)[0]
	t.Expect(h.ID).To(HavePrefix(h.Conn+"/"), "a hit's id must be self-contained: {connection_id}/{stream}:{record_id}, got %q", h.ID)
	on := t.Private()
	f := on.Call("fetch", map[string]any{"id": h.ID})
	t.Expect(f.IsError()).To(BeFalse(), "fetch(id) needs no other argument: %s", f.Describe())
	legacy := h.Stream + ":" + h.ID[strings.LastIndex(h.ID, ":")+1:]
	l := on.Call("fetch", map[string]any{"id": legacy, "connection_id": h.Conn})
	t.Expect(l.IsError()).To(BeFalse(), "a legacy id with connection_id must work: %s", l.Describe())
	x := on.Call("fetch", map[string]any{"id": h.ID, "connection_id": h.Conn + "_other"})
	t.Expect(x.IsError()).To(BeTrue(), "a connection_id that contradicts the id must be rejected: %s", x.Describe())
	t.Expect(x.ErrorCode()).NotTo(BeEmpty())
	if on != t {
		on.RS().ResetRequests()
	}
	for _, bad := range malformedIDs {
		for _, tool := range []string{"fetch", "read_record_field"} {
			args := map[string]any{"id": bad}
			if tool == "read_record_field" {
				args["field_path"] = "text"
			}
			r := on.Call(tool, args)
			t.Expect(r.IsError()).To(BeTrue(), "%s must reject the malformed id %q: %s", tool, bad, r.Describe())
			t.Expect(r.ErrorCode()).NotTo(BeEmpty(), "%s must reject %q with a typed error", tool, bad)
		}
	}
	if on != t {
		t.Expect(len(on.RS().Requests())).To(BeZero(), "malformed ids must be rejected before any RS call")
	}
}}
