package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// What a result leaves out is found by value, never by a marker's wording:
// records and hits of the answer whose ids its text does not show, record
// values its text shows only in part, evidence it refers to, a field
// window shorter than the field, a fetched text shorter than the record's.
// Each needs a continuation in the text (S033.1) that works and stays on
// the same source, stream and field (S033.2); every one found is followed.
var s033 = &Check{ID: "S033", Slug: "omitted-content-continuation", Mode: ModeBBD, Tools: []string{"query_records", "search", "fetch", "read_record_field"}, Run: func(t *T) {
	index := probe.ReadsIndex(t)
	judged := 0
	fetched := map[string]*Call{}
	recordsShown := func(c *Call) func(string) bool {
		ids := probe.RecordIDsShown(t, c, fetched)
		return func(id string) bool { return ids[id] != "" }
	}
	var long struct {
		src   probe.Source
		rec   map[string]any
		field string
		page  *Call
	}
	for i, s := range probe.Sources(index) {
		if i == probe.MaxStreamProbes {
			break
		}
		c := t.CallRoles("query_records", s.Roles(nil)) // default limits: the preview may hide part of the page
		if c.IsError() || len(probe.Records(c)) == 0 {
			continue
		}
		judged += followHidden(t, c, probe.RecordIDs, recordsShown, recordScope(t, s))
		judged += followCutValues(t, c, s, probe.RecordIDsShown(t, c, fetched))
		for _, r := range probe.Records(c) {
			data, _ := r["data"].(map[string]any)
			if f := probe.LongestField(data); long.rec == nil && probe.LongestString(data) > 600 {
				long.src, long.rec, long.field, long.page = s, r, f, c
			}
		}
	}
	if term, _, _ := probe.FanInTerm(t); term != "" {
		d := t.CallRoles("search", dialect.Args{dialect.Query: term})
		if !d.IsError() {
			judged += followHidden(t, d, probe.HitIDs, tokensShown, searchScope(t, d))
			judged += followEvidence(t, d)
		}
	}
	if long.rec != nil {
		if id := probe.FetchIDFor(t, long.src, long.rec, long.page); id != "" {
			data, _ := long.rec["data"].(map[string]any)
			v := probe.String(data[long.field])
			judged += followWindows(t, id, long.field, v)
			judged += followFetchedText(t, id, long.field, probe.String(long.rec["id"]), v)
		}
	}
	if judged == 0 {
		t.Skipf("the target's visible output left out nothing to follow")
	}
}}

// A scope judges S033.2 on one followed call: "" when it stayed on the
// source it continues, else why not.
type scope func(cont probe.Continuation, r *Call) string

// recordScope keeps a query_records continuation on one stream and
// connection.
func recordScope(t *T, s probe.Source) scope {
	return func(cont probe.Continuation, r *Call) string {
		if st := probe.String(probe.RoleOf(t, cont, dialect.Stream)); st != s.Stream {
			return fmt.Sprintf("it reads stream %q, not %q", st, s.Stream)
		}
		if conn := probe.String(probe.RoleOf(t, cont, dialect.Connection)); s.Conn != "" && conn != s.Conn {
			return fmt.Sprintf("it reads connection %q, not %q", conn, s.Conn)
		}
		for _, rec := range probe.Records(r) {
			if conn := probe.String(rec["connection_id"]); s.Conn != "" && conn != "" && conn != s.Conn {
				return fmt.Sprintf("it returns record %v of connection %s", rec["id"], conn)
			}
		}
		return ""
	}
}

// searchScope keeps a search continuation on the same query and scope.
func searchScope(t *T, first *Call) scope {
	return func(cont probe.Continuation, _ *Call) string {
		for _, r := range []dialect.Role{dialect.Query, dialect.Connection, dialect.Streams} {
			if got, want := probe.RoleOf(t, cont, r), first.Role(r); fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Sprintf("it searches %s %v, not %v", r, got, want)
			}
		}
		return ""
	}
}

// tokensShown reports which ids a call's text shows as tokens.
func tokensShown(c *Call) func(string) bool {
	text := c.Text()
	return func(id string) bool { return probe.ContainsToken(text, id) }
}

// followHidden judges the items of an answer (records, hits) whose ids its
// text does not show: calls of the same tool offered in the text must
// reach them, each followed on until every one was shown. shown tells
// which ids of its items a call's text shows.
func followHidden(t *T, first *Call, ids func(*Call) []string, shown func(*Call) func(string) bool, inScope scope) int {
	var hidden []string
	firstShows := shown(first)
	for _, id := range ids(first) {
		if !firstShows(id) {
			hidden = append(hidden, id)
		}
	}
	if len(hidden) == 0 {
		return 0
	}
	type followed struct {
		cont probe.Continuation
		r    *Call
	}
	var done []followed
	t.Clause(1, func() {
		reached := map[string]bool{}
		seen := map[string]bool{}
		queue := []*Call{first}
		for len(queue) > 0 && len(done) < 40 && len(reached) < len(hidden) {
			c := queue[0]
			queue = queue[1:]
			for _, cont := range probe.NextCalls(c) {
				if cont.Tool != first.Tool || seen[probe.CallKey(cont)] {
					continue
				}
				seen[probe.CallKey(cont)] = true
				r := t.Follow(cont)
				done = append(done, followed{cont, r})
				if !t.Assert(!r.IsError(), "the %s continuation %v shown in the text must work: %s", cont.Tool, cont.Args, r.Describe()) {
					continue
				}
				n := len(reached)
				shows := shown(r)
				for _, id := range hidden {
					if shows(id) {
						reached[id] = true
					}
				}
				if len(reached) > n {
					queue = append(queue, r)
				}
			}
		}
		var missing []string
		for _, id := range hidden {
			if !reached[id] {
				missing = append(missing, id)
			}
		}
		t.Assert(len(missing) == 0, "%s shows %d of its %d items in text; the calls its text offers must reach the others, but never show %v:\n%s",
			first.Tool, len(ids(first))-len(hidden), len(ids(first)), missing, clipText(first.Text(), 600))
	})
	for _, f := range done {
		t.Clause(2, func() {
			why := inScope(f.cont, f.r)
			t.Assert(why == "", "the %s continuation %v leaves the source it continues: %s", f.cont.Tool, f.cont.Args, why)
		})
	}
	return 1
}

// followCutValues judges the records a query_records text shows with some
// text value left out or shown only in part (any window, any ellipsis):
// each such field needs a read_record_field call for it in the text, or
// the record a fetch call or a fetch id the text shows. shownIDs maps
// each record to the id the text shows for it.
func followCutValues(t *T, c *Call, s probe.Source, shownIDs map[string]string) int {
	text := c.Text()
	judged := 0
	for _, rec := range probe.Records(c) {
		recID := probe.String(rec["id"])
		data, _ := rec["data"].(map[string]any)
		id := shownIDs[recID]
		if recID == "" || id == "" {
			continue
		}
		var cut []string
		for field, x := range data {
			if v, ok := x.(string); ok && v != "" && v != recID && v != id && !probe.LooksBinary(v) && !probe.ShownIn(text, v) {
				cut = append(cut, field)
			}
		}
		if len(cut) == 0 {
			continue
		}
		sort.Strings(cut)
		judged++
		judgeOfferedFieldReads(t, text, id, recID, data, cut)
		var rest []string
		for _, field := range cut {
			cont, ok := probe.WrittenCall(t, text, "read_record_field", id, field)
			if !ok {
				rest = append(rest, field)
				continue
			}
			followRecordCall(t, cont, t.Follow(cont), s, recID, field, probe.String(data[field]))
		}
		if len(rest) == 0 {
			continue
		}
		cont, r := probe.FetchOffered(t, text, id)
		t.Clause(1, func() {
			t.Assert(r != nil, "record %s shows %v only in part or not at all; the text must offer read_record_field arguments for them or a fetch id for the record:\n%s",
				recID, rest, clipText(text, 600))
		})
		if r != nil {
			followRecordCall(t, cont, r, s, recID, "", "")
		}
	}
	return judged
}

// judgeOfferedFieldReads judges S033.2 on the field reads the text itself
// offers for a record it shows in part: each must stay on a field the text
// cut, never a field it shows whole or one the record does not have. A
// fetch of the whole record is no excuse for a field read that leaves
// its field.
func judgeOfferedFieldReads(t *T, text, id, recID string, data map[string]any, cut []string) {
	for _, c := range probe.ContinuationsIn(text) {
		if c.Tool != "read_record_field" || !probe.RefersTo(c, id) {
			continue
		}
		field := probe.String(probe.RoleOf(t, c, dialect.Field))
		if field == "" || slices.Contains(cut, field) {
			continue // a cut field's read is followed and judged by value
		}
		v, has := data[field]
		s, isString := v.(string)
		nested := !has && slices.ContainsFunc(mapKeysOf(data), func(k string) bool { return strings.HasPrefix(field, k+".") })
		if nested || (has && (!isString || probe.LooksBinary(s))) {
			continue // a nested path, or a field shown as metadata: not a cut text
		}
		t.Clause(2, func() {
			if has {
				t.Fail("the text offers read_record_field %v for record %s, whose %s it shows whole; a continuation must stay on a field it cut (%v)", c.Args, recID, field, cut)
				return
			}
			t.Fail("the text offers read_record_field %v for record %s, which has no field %s; a continuation must stay on a field it cut (%v)", c.Args, recID, field, cut)
		})
	}
}

func mapKeysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// followRecordCall judges one followed call for a record's field: it works
// (S033.1) and reads that record, and that field when it names one (S033.2).
func followRecordCall(t *T, cont probe.Continuation, r *Call, s probe.Source, recID, field, v string) {
	t.Clause(1, func() {
		t.Assert(!r.IsError(), "the continuation %s %v of record %s must work: %s", cont.Tool, cont.Args, recID, r.Describe())
	})
	if !r.IsError() {
		t.Clause(2, func() { expectSameRecord(t, cont, r, s, recID, field, v) })
	}
}

// expectSameRecord judges S033.2 on a followed read of one record's field:
// a window shows part of that field; a fetched document names the record's
// connection and stream.
func expectSameRecord(t *T, cont probe.Continuation, r *Call, s probe.Source, recID, field, v string) {
	all := r.Text() + "\n" + string(r.Raw)
	switch {
	case cont.Tool == "read_record_field" && v != "":
		t.Assert(probe.PartShown(all, v), "read_record_field %v must read record %s's %s, but shows none of it:\n%s", cont.Args, recID, field, clipText(r.Text(), 400))
	default:
		vals := probe.StringValues(r.Structured())
		ok := probe.ContainsToken(all, recID) && (s.Conn == "" || probe.ContainsToken(all, s.Conn)) && probe.ContainsToken(all, s.Stream)
		t.Assert(ok, "%s %v must read record %s of %s/%s: %s", cont.Tool, cont.Args, recID, s.Conn, s.Stream, clipText(strings.Join(vals, " "), 300))
	}
}

// followEvidence judges the evidence a search text refers to: for each
// hit whose evidence preview the text shows, the text must offer a read of
// that field (read_record_field arguments, or the hit's id and field path
// with the tool named), which is followed.
func followEvidence(t *T, d *Call) int {
	text := d.Text()
	judged := 0
	seen := map[string]bool{}
	for _, h := range probe.HitsWithEvidence(d) {
		ex, _ := h.Raw["evidence_excerpts"].([]any)
		for _, x := range ex {
			xm, _ := x.(map[string]any)
			field, preview := probe.FieldIn(t, xm), probe.WithoutMarks(probe.String(xm["preview_text"]))
			if field == "" || !probe.PartShown(text, preview) || seen[h.ID+"\x00"+field] {
				continue
			}
			seen[h.ID+"\x00"+field] = true
			var cont *probe.Continuation
			for _, c := range probe.ContinuationsIn(text) {
				if c.Tool == "read_record_field" && probe.RefersTo(c, h.ID) {
					probe.LearnFrom(t, c, dialect.Args{dialect.RecordID: h.ID, dialect.Field: field})
				}
				if c.Tool == "read_record_field" && probe.RoleOf(t, c, dialect.Field) == field && probe.RefersTo(c, h.ID) {
					cont = &c
					break
				}
			}
			if cont == nil && strings.Contains(text, "read_record_field") && probe.LineWith(text, h.ID, field) {
				cont = &probe.Continuation{Tool: "read_record_field", Args: t.ArgsFor("read_record_field", dialect.Args{dialect.RecordID: h.ID, dialect.Field: field})}
			}
			if cont == nil {
				continue // evidence the text shows apart from its hit's id: S043's
			}
			judged++
			r := t.Follow(*cont)
			t.Clause(1, func() {
				t.Assert(!r.IsError(), "the evidence of hit %s (%s) shown in the search text must be readable with %v: %s", h.ID, field, cont.Args, r.Describe())
			})
			if !r.IsError() {
				t.Clause(2, func() {
					all := r.Text() + "\n" + string(r.Raw)
					rec := probe.FirstNonEmpty(h.Record, h.ID)
					t.Assert(probe.ContainsToken(all, rec) && probe.ContainsToken(all, field), "reading hit %s's evidence must stay on its record and field %s: %s", h.ID, field, r.Describe())
				})
			}
		}
	}
	return judged
}

// followWindows reads a long field in small windows: each incomplete
// window's text must offer the next (S033.1), which starts where it ended
// (S033.2).
func followWindows(t *T, id, field, v string) int {
	w := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: id, dialect.Field: field, dialect.Length: 200})
	if w.IsError() {
		return 0 // S047 and S036 own a field read that fails
	}
	end := probe.ShownPrefix(w.Text(), v)
	if end == 0 || end >= len([]rune(v)) {
		return 0
	}
	var next []probe.Continuation
	for _, c := range probe.NextCalls(w) {
		if c.Tool == "read_record_field" && probe.RoleOf(t, c, dialect.Field) == field {
			next = append(next, c)
		}
	}
	t.Clause(1, func() {
		t.Assert(len(next) > 0, "a window of %d of %d characters of %s must show the call that reads on:\n%s", end, len([]rune(v)), field, clipText(w.Text(), 400))
	})
	for _, c := range next {
		r := t.Follow(c)
		t.Clause(1, func() { t.Assert(!r.IsError(), "the next window %v must be readable: %s", c.Args, r.Describe()) })
		if r.IsError() {
			continue
		}
		t.Clause(2, func() {
			rest := []rune(v)[end:]
			want := string(rest[:min(len(rest), probe.ChunkRunes)])
			t.Assert(probe.ShownIn(r.Text(), want), "the next window %v must go on in the same field where the last one ended (%q):\n%s", c.Args, want, clipText(r.Text(), 400))
		})
	}
	return 1
}

// followFetchedText fetches a record with a long text: when the document
// shows only part of it, it must offer the read that continues it (in its
// text or metadata), and that read goes on in the same field.
func followFetchedText(t *T, id, field, recID, v string) int {
	f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: id})
	if f.IsError() {
		return 0
	}
	doc := f.Structured()
	shown := probe.String(doc["text"])
	if !probe.PartShown(shown, v) || probe.ShownIn(shown, v) {
		return 0 // not this field's text, or all of it
	}
	end := probe.ShownPrefix(shown, v)
	var conts []probe.Continuation
	for _, c := range documentCalls(doc) {
		if c.Tool == "read_record_field" && (probe.RefersTo(c, id) || probe.RefersTo(c, recID)) {
			conts = append(conts, c)
		}
	}
	t.Clause(1, func() {
		t.Assert(len(conts) > 0, "fetch shows %d of the %d characters of %s's %s; the document must offer the read_record_field call that continues it:\n%s",
			end, len([]rune(v)), recID, field, clipText(f.Text(), 400))
	})
	for _, c := range conts {
		r := t.Follow(c)
		t.Clause(1, func() {
			t.Assert(!r.IsError(), "the continuation %v of the fetched text must work: %s", c.Args, r.Describe())
		})
		if r.IsError() {
			continue
		}
		t.Clause(2, func() {
			t.Assert(probe.RoleOf(t, c, dialect.Field) == field, "the continuation %v of the fetched text must stay on its field %s", c.Args, field)
		})
		// Continuing the cut text is what makes it a working continuation.
		t.Clause(1, func() {
			rest := []rune(v)[end:]
			want := string(rest[:min(len(rest), probe.ChunkRunes)])
			t.Assert(probe.RoleOf(t, c, dialect.Field) != field || probe.ShownIn(r.Text(), want), "the continuation %v must go on in %s where the fetched text ended (%q):\n%s", c.Args, field, want, clipText(r.Text(), 400))
		})
	}
	return 1
}

// documentCalls are the calls a fetch document offers: objects of a tool
// and its args anywhere in it, and calls written into its strings.
func documentCalls(v any) []probe.Continuation {
	var out []probe.Continuation
	switch x := v.(type) {
	case map[string]any:
		if tool, ok := x["tool"].(string); ok {
			if args, ok := x["args"].(map[string]any); ok {
				out = append(out, probe.Continuation{Tool: tool, Args: args})
			}
		}
		for _, e := range x {
			out = append(out, documentCalls(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, documentCalls(e)...)
		}
	case string:
		out = append(out, probe.ContinuationsIn(x)...)
	}
	return out
}
