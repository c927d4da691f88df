package checks

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// maxExpandProbes bounds how many streams a check asks schema(stream) about
// while looking for one with (or without) expand relations.
const maxExpandProbes = 20

// expandTarget is a stream, one of its connections, and a relation.
type expandTarget struct {
	stream, conn, rel string
}

// findExpand looks through scoped schemas for a stream row whose
// expand_capabilities advertise a usable relation (want) or whose rows
// advertise none (!want).
func findExpand(t *T, want bool) (expandTarget, bool) {
	type found struct {
		et expandTarget
		ok bool
	}
	f := conformance.Discover(t, fmt.Sprint("expand-", want), func() found { et, ok := findExpandNow(t, want); return found{et, ok} })
	return f.et, f.ok
}

func findExpandNow(t *T, want bool) (expandTarget, bool) {
	_, index := schemaIndex(t)
	for i, name := range streamNames(index) {
		if i == maxExpandProbes {
			break
		}
		_, rows := scopedSchema(t, map[string]any{"stream": name})
		any := false
		for _, r := range rows {
			if len(r.Expand) > 0 {
				any = true
				if want {
					et := expandTarget{stream: name, rel: r.Expand[0]}
					if len(r.Connections) > 0 {
						et.conn = r.Connections[0]
					}
					return et, true
				}
			}
		}
		if !want && !any && len(rows) > 0 {
			et := expandTarget{stream: name, rel: "mcpcheck_unadvertised"}
			if len(rows[0].Connections) > 0 {
				et.conn = rows[0].Connections[0]
			}
			return et, true
		}
	}
	return expandTarget{}, false
}

func (e expandTarget) args(extra map[string]any) map[string]any {
	a := map[string]any{"stream": e.stream, "expand": []string{e.rel}, "limit": 2}
	if e.conn != "" {
		a["connection_id"] = e.conn
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

var s007 = &Check{ID: "S007", Slug: "expand-advertised-forwarded", Mode: ModeBBD, Run: func(t *T) {
	et, ok := findExpand(t, true)
	if !ok {
		t.Skipf("no stream in the target's grant advertises expand_capabilities")
	}
	if !t.Target.Has(CapFixture) {
		c := t.Call("query_records", et.args(nil))
		t.Expect(c.IsError()).To(BeFalse(), "advertised expand must be forwarded: %s", c.Describe())
		return
	}
	// On a private fixture RS the forwarded request can be inspected.
	fork := t.ForkSame()
	ft := t.On(fork)
	c := ft.Call("query_records", et.args(nil))
	t.Expect(c.IsError()).To(BeFalse(), "advertised expand must be forwarded: %s", c.Describe())
	calls := expandCalls(t.On(fork), et)
	t.Expect(len(calls)).To(Equal(1), "the RS records endpoint must receive the call once, with expand=%s", et.rel)
	status, body := t.On(fork).RS().Replay(calls[0])
	t.Expect(status).To(Equal(200))
	var want, got any
	_ = json.Unmarshal(body, &want)
	raw, _ := json.Marshal(c.Structured()["data"])
	_ = json.Unmarshal(raw, &got)
	t.Expect(reflect.DeepEqual(got, want)).To(BeTrue(), "the RS response must reach the client unchanged in structuredContent.data")

	// Fail-open: when the schema cannot be fetched, the adapter defers to the RS.
	t.On(fork).RS().InjectFault("/v1/schema", fakers.Fault{Status: 503})
	c = ft.Call("query_records", et.args(nil))
	t.Expect(c.IsError()).To(BeFalse(), "with GET /v1/schema failing, the expand gate must fail open and forward: %s", c.Describe())
	t.Expect(len(expandCalls(t.On(fork), et))).To(Equal(2), "with GET /v1/schema failing, the RS records endpoint must still be called")
}}

// expandCalls are the RS record-list or record-detail requests of a stream
// that carried expand, on t's target.
func expandCalls(t *T, et expandTarget) []fakers.Request {
	var out []fakers.Request
	for _, r := range t.RS().RequestsTo("/v1/streams/" + url.PathEscape(et.stream) + "/records") {
		q, _ := url.ParseQuery(r.RawQuery)
		for _, k := range []string{"expand", "expand[]"} {
			for _, v := range q[k] {
				if strings.EqualFold(v, et.rel) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}
