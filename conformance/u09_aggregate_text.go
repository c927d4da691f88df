package conformance

import (
	"fmt"
	"strings"

	. "github.com/onsi/gomega"
)

var u09 = &Check{ID: "U09", Slug: "aggregate-text", Mode: ModeBBD, Run: func(t *T) {
	_, index := t.schemaIndex()
	var (
		src             source
		groupBy, timeBy string
	)
	for i, s := range sources(index) {
		if i == maxStreamProbes || groupBy != "" {
			break
		}
		_, rows := t.scopedSchema(s.args(nil))
		for _, r := range rows {
			for _, name := range fieldNames(r) {
				for _, tok := range flagTokens(r.FieldCaps[name]) {
					if kinds, ok := strings.CutPrefix(tok, "a="); ok {
						for _, k := range strings.Split(kinds, "|") {
							if k == "group_by" && groupBy == "" {
								src, groupBy = s, name
							}
							if k == "group_by_time" && timeBy == "" {
								timeBy = name
							}
						}
					}
				}
			}
		}
	}
	if groupBy == "" {
		t.Skipf("no stream in the target's grant shows a group_by field")
	}
	scalar := t.Call("aggregate", src.args(map[string]any{"metric": "count"}))
	t.Expect(scalar.IsError()).To(BeFalse(), "aggregate count must succeed: %s", scalar.Describe())
	text := scalar.Text()
	t.Expect(text).To(ContainSubstring("count"), "the text must name the metric")
	t.Expect(containsToken(text, src.stream)).To(BeTrue(), "the text must name the stream %q: %s", src.stream, text)
	if v, ok := scalar.Data()["value"]; ok {
		t.Expect(containsToken(text, fmt.Sprint(v))).To(BeTrue(), "the text must carry the value %v: %s", v, text)
	}

	grouped := t.Call("aggregate", src.args(map[string]any{"metric": "count", "group_by": groupBy, "limit": 2}))
	t.Expect(grouped.IsError()).To(BeFalse(), "a grouped aggregate must succeed: %s", grouped.Describe())
	text = grouped.Text()
	groups, _ := grouped.Data()["groups"].([]any)
	if len(groups) > 0 {
		g, _ := groups[0].(map[string]any)
		t.Expect(text).To(And(ContainSubstring(fmt.Sprint(g["key"])), ContainSubstring(fmt.Sprint(g["count"]))),
			"the text must preview groups with their counts: %s", text)
	}
	if oc, ok := grouped.Data()["other_count"]; ok {
		t.Expect(text).To(ContainSubstring("other_count"), "other_count=%v must be visible in text: %s", oc, text)
		t.Expect(containsToken(text, fmt.Sprint(oc))).To(BeTrue(), "the other_count value %v must be visible: %s", oc, text)
	}

	if timeBy == "" {
		timeBy = groupBy
	}
	on := t
	if t.Target.Has(CapFixture) {
		on = t.On(t.ForkSame())
	}
	both := on.Call("aggregate", src.args(map[string]any{"metric": "count", "group_by": groupBy, "group_by_time": timeBy, "granularity": "day"}))
	t.Expect(both.IsError()).To(BeTrue(), "group_by with group_by_time must be rejected: %s", both.Describe())
	if on != t {
		t.Expect(len(on.Target.RS.RequestsTo("/v1/streams/"))).To(BeZero(), "group_by with group_by_time must be rejected before the RS")
	}
}}
