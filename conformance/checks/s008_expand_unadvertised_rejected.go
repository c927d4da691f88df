package checks

import (
	"regexp"

	. "github.com/onsi/gomega"
)

// The message must point at both the endpoint and the field to read there.
var schemaPointerRes = []*regexp.Regexp{regexp.MustCompile(`GET /v1/schema\b`), regexp.MustCompile(`\bexpand_capabilities\b`)}

var s008 = &Check{ID: "S008", Slug: "expand-unadvertised-rejected", Mode: ModeBBD, Run: func(t *T) {
	et, ok := findExpand(t, false)
	if !ok {
		t.Skipf("every probed stream advertises expand relations; none to test the gate on")
	}
	on := t.Private()
	c := on.Call("query_records", et.args(nil))
	expectInvalidExpand(t, c, et.stream)
	if rec := firstRecordRef(on, et); rec != "" {
		args := map[string]any{"id": rec, "expand": []string{et.rel}}
		if et.conn != "" {
			args["connection_id"] = et.conn
		}
		f := on.Call("fetch", args)
		expectInvalidExpand(t, f, et.stream)
	}
	if on != t {
		t.Expect(len(expandCalls(on, et))).To(BeZero(), "the RS records endpoint must not be called with an unadvertised expand")
	}
}}

func expectInvalidExpand(t *T, c *Call, stream string) {
	t.Expect(c.IsError()).To(BeTrue(), "expand on stream %q, which advertises no expand_capabilities, must be rejected: %s", stream, c.Describe())
	t.Expect(c.ErrorCode()).To(Equal("invalid_expand"), "the rejection must be typed invalid_expand: %s", c.Describe())
	msg, _ := c.ErrorObject()["message"].(string)
	t.Expect(containsToken(msg, stream)).To(BeTrue(), "the message must name the stream %q: %q", stream, msg)
	for _, re := range schemaPointerRes {
		t.Expect(re.MatchString(msg)).To(BeTrue(), "the message must point to GET /v1/schema (expand_capabilities); %q is missing: %q", re.String(), msg)
	}
}

// firstRecordRef returns a fetchable legacy id "stream:record_id" of the
// stream's first record, or "" when the stream is empty.
func firstRecordRef(t *T, et expandTarget) string {
	args := map[string]any{"stream": et.stream, "limit": 1}
	if et.conn != "" {
		args["connection_id"] = et.conn
	}
	c := t.Call("query_records", args)
	if c.IsError() {
		return ""
	}
	recs, _ := c.Data()["data"].([]any)
	if len(recs) == 0 {
		return ""
	}
	rm, _ := recs[0].(map[string]any)
	id, _ := rm["id"].(string)
	if id == "" {
		return ""
	}
	return et.stream + ":" + id
}
