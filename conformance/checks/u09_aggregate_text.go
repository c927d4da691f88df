package checks

import (
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// maxPreviewGroups is the bucket preview a grouped aggregate's text may show.
const maxPreviewGroups = 5

var (
	truncationSignalRe = regexp.MustCompile(`\b(more_groups|other_count)\b`)
	// manyGroups has one stream whose field_5 takes far more than five values.
	manyGroups = fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: 6, Records: 60}
)

var u09 = &Check{ID: "U09", Slug: "aggregate-text", Mode: ModeBBD, Run: func(t *T) {
	desc, found := "", false
	for _, tool := range t.Target.Tools {
		if tool.Name == "aggregate" {
			desc, found = tool.Description, true
		}
	}
	if !found {
		t.Skipf("the target has no aggregate tool")
	}
	t.Expect(desc).To(ContainSubstring("other_count"), "the aggregate description must name other_count as the signal that groups were cut: %q", desc)

	_, index := schemaIndex(t)
	var (
		src             source
		groupBy, timeBy string
	)
	for i, s := range sources(index) {
		if i == maxStreamProbes || groupBy != "" {
			break
		}
		_, rows := scopedSchema(t, s.args(nil))
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

	many := t.Call("aggregate", src.args(map[string]any{"metric": "count", "group_by": groupBy, "limit": 20}))
	t.Expect(many.IsError()).To(BeFalse(), "a grouped aggregate must succeed: %s", many.Describe())
	switch all, _ := many.Data()["groups"].([]any); {
	case len(all) > maxPreviewGroups:
		expectBoundedBuckets(t, many)
	case t.Target.Has(CapFixture):
		fx, err := fakers.Scale(manyGroups)
		t.Expect(err).NotTo(HaveOccurred())
		fx.SpecClientReads = true
		wide := t.On(t.Fork(fx))
		c := wide.Call("aggregate", map[string]any{"stream": fx.Streams[0].Name, "metric": "count", "group_by": "field_5", "limit": 20})
		t.Expect(c.IsError()).To(BeFalse(), "a grouped aggregate over the many-groups fixture must succeed: %s", c.Describe())
		expectBoundedBuckets(t, c)
	default:
		t.Record("bucket preview", fmt.Sprintf("not exercised: stream %q has %d group(s), and %s", src.stream, len(all), CapFixture.SkipReason()))
	}

	if timeBy == "" {
		timeBy = groupBy
	}
	on := t.Private()
	for _, bad := range []struct {
		what string
		args map[string]any
	}{
		{"group_by with group_by_time", map[string]any{"group_by": groupBy, "group_by_time": timeBy, "granularity": "day"}},
		{"group_by_time without granularity", map[string]any{"group_by_time": timeBy}},
		{"granularity without group_by_time", map[string]any{"granularity": "day"}},
	} {
		bad.args["metric"] = "count"
		c := on.Call("aggregate", src.args(bad.args))
		t.Expect(c.IsError()).To(BeTrue(), "%s must be rejected: %s", bad.what, c.Describe())
		t.Expect(c.ErrorCode()).NotTo(BeEmpty(), "%s must be rejected with a typed error code: %s", bad.what, c.Describe())
		if on != t {
			t.Expect(len(on.RS().RequestsTo("/v1/streams/"))).To(BeZero(), "%s must be rejected before the RS", bad.what)
		}
	}
}}

// expectBoundedBuckets holds a grouped aggregate with more than
// maxPreviewGroups groups to a bounded preview plus a truncation signal.
func expectBoundedBuckets(t *T, c *Call) {
	text := c.Text()
	all, _ := c.Data()["groups"].([]any)
	shown := 0
	for _, g := range all {
		gm, _ := g.(map[string]any)
		if k := fmt.Sprint(gm["key"]); k != "" && containsToken(text, k) {
			shown++
		}
	}
	t.Record("aggregate groups returned / shown in text", fmt.Sprintf("%d / %d", len(all), shown))
	t.Expect(shown).To(BeNumerically("<=", maxPreviewGroups), "the text must preview at most %d of %d groups:\n%s", maxPreviewGroups, len(all), clipText(text, 800))
	t.Expect(shown).To(BeNumerically(">", 0), "the text must preview some groups with their counts:\n%s", clipText(text, 800))
	t.Expect(truncationSignalRe.MatchString(text)).To(BeTrue(), "a cut preview must say so (more_groups or other_count):\n%s", clipText(text, 800))
}
