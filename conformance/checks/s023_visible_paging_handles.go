package checks

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// Every handle of every read envelope is looked for in content[] text by
// its value (the RS's, or the adapter's own where it rewrites one), never
// by a label; then the handles shown are followed from the text alone.
var s023 = &Check{ID: "S023", Slug: "visible-paging-handles", Mode: ModeBBD, Tools: []string{"query_records", "search"}, Run: func(t *T) {
	index := probe.ReadsIndex(t)
	on := t.Private()
	judged := false
	if src, page, env, ok := pagedSource(on, index); ok {
		judged = true
		h := expectHandlesShown(t, page, env)
		t.Clause(2, func() {
			next := followCursor(t, on, page, h, src.Roles(dialect.Args{dialect.Limit: 2}))
			if next != nil {
				expectNoRepeats(t, "query_records", probe.RecordIDs(page), probe.RecordIDs(next))
			}
		})
		ch, chEnv := probe.CallWithEnvelope(on, "query_records", src.Roles(dialect.Args{dialect.Limit: 2, dialect.ChangesSince: "beginning"}), probe.RecordsPath(src.Stream))
		if !ch.IsError() {
			hc := expectHandlesShown(t, ch, chEnv)
			if hc.changes.shown != "" || hc.changes.want != "" {
				t.Clause(2, func() {
					v := hc.changes.shown
					if !t.Assert(v != "", "a client that reads only content[] cannot resume the changes feed: next_changes_since %q is not in the text:\n%s", hc.changes.want, clipText(ch.Text(), 600)) {
						return
					}
					r := on.CallRoles("query_records", src.Roles(dialect.Args{dialect.ChangesSince: v}))
					t.Assert(!r.IsError(), "the next_changes_since shown in text must resume the feed: %s", r.Describe())
				})
			}
		}
	}
	if term, _, _ := probe.FanInTerm(t); term != "" {
		args := dialect.Args{dialect.Query: term, dialect.Limit: 2}
		s, env := probe.CallWithEnvelope(on, "search", args, "/v1/search")
		if !s.IsError() && len(probe.Hits(s)) > 0 {
			judged = true
			h := expectHandlesShown(t, s, env)
			t.Clause(2, func() {
				if next := followCursor(t, on, s, h, args); next != nil {
					expectNoRepeats(t, "search", probe.HitIDs(s), probe.HitIDs(next))
				}
			})
		}
	}
	if !judged {
		t.Skipf("no read in the target's grant has a page with more after it")
	}
}}

// A shownHandle is one handle of an envelope: the value wanted (the RS's,
// or the adapter's own rewrite of it) and the value the text shows ("" when
// it shows none).
type shownHandle struct{ want, shown string }

type shownHandles struct{ cursor, changes, count shownHandle }

// expectHandlesShown judges S023.1 on one read: each handle its RS
// envelope has must appear in content[] text, found by value.
func expectHandlesShown(t *T, c *Call, env map[string]any) shownHandles {
	rs, own := probe.HandlesOf(env), probe.HandlesOf(c.Data())
	text := c.Text()
	find := func(contains func(string, string) bool, vals ...string) shownHandle {
		h := shownHandle{want: probe.FirstNonEmpty(vals...)}
		for _, v := range vals {
			if v != "" && contains(text, v) {
				h.shown = v
				break
			}
		}
		return h
	}
	out := shownHandles{
		cursor:  find(strings.Contains, rs.Cursor, own.Cursor),
		changes: find(strings.Contains, rs.Changes, own.Changes),
		count:   find(probe.ContainsToken, rs.Count, own.Count),
	}
	for _, h := range []struct {
		name string
		h    shownHandle
	}{{"next_cursor", out.cursor}, {"next_changes_since", out.changes}, {"count", out.count}} {
		if h.h.want == "" {
			continue
		}
		t.Clause(1, func() {
			t.Assert(h.h.shown != "", "%s: the envelope's %s %q must appear in content[] text for hosts that hide structuredContent:\n%s",
				c.Tool, h.name, h.h.want, clipText(text, 600))
		})
	}
	return out
}

// followCursor pages forward from text alone: args plus the next_cursor
// the text of c shows. Nil when there is nothing to follow or the call
// failed (recorded against the clause being judged).
func followCursor(t *T, on *T, c *Call, h shownHandles, args dialect.Args) *Call {
	if h.cursor.want == "" {
		return nil
	}
	if !t.Assert(h.cursor.shown != "", "a client that reads only content[] cannot page %s: next_cursor %q is not in the text:\n%s", c.Tool, h.cursor.want, clipText(c.Text(), 600)) {
		return nil
	}
	next := dialect.Args{dialect.Cursor: h.cursor.shown}
	for k, v := range args {
		next[k] = v
	}
	r := on.CallRoles(c.Tool, next)
	if !t.Assert(!r.IsError(), "the next_cursor shown in the %s text must page forward: %s", c.Tool, r.Describe()) {
		return nil
	}
	return r
}

// expectNoRepeats requires a next page to hold items, none of the last one's.
func expectNoRepeats(t *T, tool string, first, next []string) {
	t.Assert(len(next) > 0, "%s: the page after next_cursor is empty", tool)
	seen := map[string]bool{}
	for _, id := range first {
		seen[id] = true
	}
	for _, id := range next {
		t.Assert(!seen[id], "%s: the page after next_cursor repeats %s of the page before", tool, id)
	}
}

// pagedSource finds a source whose first page of two records has more
// after it, read with an exact count, with its RS envelope.
func pagedSource(t *T, index []probe.SchemaRow) (probe.Source, *Call, map[string]any, bool) {
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		c, env := probe.CallWithEnvelope(t, "query_records", s.Roles(dialect.Args{dialect.Limit: 2, dialect.Count: "exact"}), probe.RecordsPath(s.Stream))
		if !c.IsError() && (env["has_more"] == true || probe.HandlesOf(env).Cursor != "") {
			return s, c, env, true
		}
	}
	return probe.Source{}, nil, nil, false
}
