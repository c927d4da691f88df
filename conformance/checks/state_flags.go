package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Shared by S023, S048 and S049: explicit completion flags held to the
// fixture.

// judgeStateFlags holds each explicit completion flag an answer c shows
// (probe.StateClaims), in its text and in its structuredContent apart, to
// the fixture: whole says the answer serves all there is (a whole field, a
// last page) or not. value, the fixture's own text in it, is set aside
// first, so only what the target says of it counts. keys, when given,
// are the only flags read (a page's "complete" may be its search recall's).
func judgeStateFlags(t *T, c *Call, value string, whole bool, what string, keys ...string) {
	parts := []struct {
		where, s string
	}{{"text", c.Text()}, {"structuredContent", probe.CompactJSON(c.Structured())}}
	truth := map[bool]string{true: "all there is", false: "not all there is"}[whole]
	for _, p := range parts {
		s := p.s
		if value != "" {
			s = strings.ReplaceAll(s, value, "")
		}
		in := conformance.Shown(fmt.Sprintf("the %s of %s", p.where, c.Describe()), s)
		for _, claim := range probe.StateClaims(s) {
			if len(keys) > 0 && !slices.Contains(keys, claim.Key) {
				continue
			}
			t.AssertWith(claim.Whole == whole, func() (conformance.Witness, error) { return conformance.Present(claim.Excerpt, in) },
				"%s, which the fixture says is %s: its %s says otherwise (%s)", what, truth, p.where, claim.Excerpt)
		}
	}
}

// judgeCutValueFlags holds the completion flags shown with a value cut
// short (a preview or a fetched text of a long field) to the fixture: the
// value is not whole, so a flag saying it is is false (seed 004: never
// "as if complete"). Read are the flags on each text line showing the
// value's start (a text that is a JSON object is read as structure), and
// those of each structuredContent object holding part of the value, with
// its metadata. A page's or window's own keys (has_more, more_*) and keys
// naming another field (others) are not the value's. on is the view
// whose fixture holds the value.
func judgeCutValueFlags(t, on *T, c *Call, value string, others []string, what string) {
	head := valueHead(value)
	for _, s := range probe.FixtureStrings(on) {
		if s != value && strings.Contains(s, head) {
			return // the value's start is not its own
		}
	}
	shown := string([]rune(value)[:probe.ShownPrefix(c.Text(), value)])
	var doc map[string]any
	if probe.IsJSONObject(c.Text()) && json.Unmarshal([]byte(c.Text()), &doc) == nil {
		judgeCutObjects(t, doc, value, head, others, conformance.Shown("the text of "+c.Describe(), c.Text()), what)
	} else {
		for _, l := range strings.Split(c.Text(), "\n") {
			if head == "" || !strings.Contains(l, head) {
				continue
			}
			in := conformance.Shown("the text line showing "+what, l)
			for _, claim := range probe.StateClaims(strings.ReplaceAll(l, shown, "")) {
				if !valueFlagKey(claim.Key, others) {
					continue
				}
				t.AssertWith(!claim.Whole, func() (conformance.Witness, error) { return conformance.Present(claim.Excerpt, in) },
					"%s is cut short of the field's %d characters, but its text line says %s", what, utf8.RuneCountInString(value), claim.Excerpt)
			}
		}
	}
	judgeCutObjects(t, c.Structured(), value, head, others, conformance.Shown("the structuredContent of "+c.Describe(), probe.CompactJSON(c.Structured())), what)
}

// judgeCutObjects judges the whole-flags of each object of v holding part
// of value (its head, in a string shorter than value) and of its metadata.
func judgeCutObjects(t *T, v any, value, head string, others []string, in conformance.Evidence, what string) {
	if head == "" {
		return
	}
	probe.EachObject(v, func(m map[string]any) {
		holds := false
		for _, x := range m {
			if s, ok := x.(string); ok && len(s) < len(value) && strings.Contains(s, head) {
				holds = true
			}
		}
		if !holds {
			return
		}
		objs := []map[string]any{m}
		for k, x := range m {
			if meta, ok := x.(map[string]any); ok && strings.Contains(strings.ToLower(k), "meta") {
				objs = append(objs, meta)
			}
		}
		for _, o := range objs {
			for _, k := range slices.Sorted(maps.Keys(o)) {
				if !valueFlagKey(k, others) {
					continue
				}
				if said, ok := wholeFlag(k, o[k]); ok && said {
					fact := strings.TrimPrefix(strings.TrimSuffix(probe.CompactJSON(map[string]any{k: o[k]}), "}"), "{")
					t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(fact, in) },
						"%s is cut short of the field's %d characters, but the object holding it says %s", what, utf8.RuneCountInString(value), fact)
				}
			}
		}
	})
}

// valueFlagKey reports whether a flag's key may be about a cut value: not
// a page's or window's (more, has_*, more_*), nor one naming another field.
func valueFlagKey(key string, others []string) bool {
	k := strings.ToLower(key)
	if k == "more" || strings.Contains(k, "has_") || strings.Contains(k, "more_") || strings.Contains(k, "page") || strings.Contains(k, "recall") {
		return false
	}
	for _, o := range others {
		if o != "" && strings.Contains(k, strings.ToLower(o)) {
			return false
		}
	}
	return true
}
