package checks

import (
	"maps"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// What a result leaves out is found by value in the fixture, never by a
// marker's wording: records of a page its text does not show, record
// values its text shows only in part, a field window shorter than the
// field, a fetched text shorter than the record's. Each needs a
// continuation in the text (S033.1) that works and stays on the same
// source, stream and field (S033.2). A continuation is a call the text
// prints, or a string of it that the target's read tools take, and is
// followed: one refused, or one that never reaches what was left out, is
// the witness; so is a text that names no tool to go on with at all.
var s033 = &Check{ID: "S033", Slug: "omitted-content-continuation", Mode: ModeBBD, Tools: []string{"query_records", "search", "fetch", "read_record_field"}, Run: func(t *T) {
	if probe.FixtureRecords(t) == nil {
		t.SkipFor(CapControlledRS, "finding what a result leaves out by value needs the records mcpcheck's fixture RS serves")
	}
	judged := 0
	for i, s := range probe.Sources(probe.Grant(t)) {
		if i == probe.MaxStreamProbes {
			break
		}
		c := t.CallRoles("query_records", s.Roles(nil)) // default limits: the preview may hide part of the page
		if c.IsError() {
			continue
		}
		judged += followHiddenRecords(t, c, s)
		judged += followCutValues(t, c, s)
		// A short page, which a target may show in full where a long one
		// is previewed: the values it cuts need their own continuations.
		if i == 0 && t.HasRole("query_records", dialect.Limit) {
			if short := t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 2})); !short.IsError() {
				judged += followCutValues(t, short, s)
			}
		}
	}
	if rec, field, ok := longestValue(t); ok {
		if page, handle := handleShown(t, rec); handle != "" {
			v := probe.String(rec.Data[field])
			judged += followWindows(t, page, handle, field, v)
			judged += followFetchedText(t, page, handle, rec, field, v)
		}
	}
	if term, _, ok := twoStreamWord(t.RS().Fixture()); ok && probe.Serves(t.Target, "search") && probe.Serves(t.Target, "fetch") {
		judged += followHitHandles(t, term)
	}
	if judged == 0 {
		t.Skipf("the target's visible output left out nothing to follow")
	}
}}

// textOnly is a call's content[] text as evidence, for what a host that
// hides structuredContent can follow.
func textOnly(c *Call) conformance.Evidence { return conformance.TextOf(c) }

// continuationTools are the tools a text names when it offers a way on.
func continuationTools(t *T, c *Call) []string {
	out := []string{"read_record_field", "fetch"}
	if name, ok := c.ArgName(dialect.Cursor); ok {
		out = append(out, name)
	}
	return out
}

// followHiddenRecords judges the records a page holds (in
// structuredContent) whose ids its text does not show: the calls of the
// same tool the text prints, followed on, must work and show them.
func followHiddenRecords(t *T, first *Call, s probe.Source) int {
	hidden := hiddenRecords(t, first, s)
	if len(hidden) == 0 {
		return 0
	}
	missing, done := reachHidden(t, first, s, hidden)
	t.Clause(1, func() {
		texts := []conformance.Evidence{textOnly(first)}
		for _, f := range done {
			if t.Works(f.r, textOnly(f.from), "the %s continuation %v shown in the text must work", f.cont.Tool, f.cont.Args) {
				texts = append(texts, textOnly(f.r))
			}
		}
		ids := make([]string, 0, len(missing))
		for _, ref := range missing {
			ids = append(ids, ref.ID)
		}
		t.AssertWith(len(missing) == 0, func() (conformance.Witness, error) { return conformance.AbsentAll(facts(ids...), texts...) },
			"%s shows %d of its %d records in text; the calls its text offers must reach the others, but never show %v:\n%s",
			first.Tool, len(probe.RecordsShown(t, first, s.Stream))-len(hidden), len(probe.RecordsShown(t, first, s.Stream)), ids, clipText(first.Text(), 600))
	})
	for _, f := range done {
		if f.r.IsError() {
			continue
		}
		t.Clause(2, func() { expectInSource(t, f.cont, f.r, s) })
	}
	return 1
}

// hiddenRecords are the records of s a page holds (in structuredContent)
// that its text does not show, by id, values or a handle.
func hiddenRecords(t *T, page *Call, s probe.Source) []probe.RecordRef {
	inPage := probe.RecordsShown(t, page, s.Stream)
	inText := shownInText(t, page, s.Stream, inPage)
	var hidden []probe.RecordRef
	for _, r := range inPage {
		if !slices.Contains(inText, r) {
			hidden = append(hidden, r)
		}
	}
	return hidden
}

// A followedCall is a call a text printed, followed, with the answer
// whose text printed it.
type followedCall struct {
	cont probe.Continuation
	r    *Call
	from *Call
}

// reachHidden follows the calls of first's tool that first's text prints,
// and those the answers that show hidden records print in turn (breadth
// first, at most 40), until every hidden record is shown: missing are
// those none showed.
func reachHidden(t *T, first *Call, s probe.Source, hidden []probe.RecordRef) (missing []probe.RecordRef, done []followedCall) {
	reached := map[probe.RecordRef]bool{}
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
			r := followOnce(t, cont)
			done = append(done, followedCall{cont, r, c})
			if r.IsError() {
				continue
			}
			n := len(reached)
			for _, ref := range shownInText(t, r, s.Stream, hidden) {
				if slices.Contains(hidden, ref) {
					reached[ref] = true
				}
			}
			if len(reached) > n {
				queue = append(queue, r)
			}
		}
	}
	for _, ref := range hidden {
		if !reached[ref] {
			missing = append(missing, ref)
		}
	}
	return missing, done
}

// followHitHandles searches a word two streams hold and follows, for the
// first hit of each stream after the first hit's, the string it holds
// where the first hit holds the handle fetch took for it (learned by
// following): it must fetch that hit's own record (S033.1), not one of
// another stream or source (S033.2). Every hit of the page a fan-in
// search's cursor reaches is followed the same way. It returns the hits
// followed.
func followHitHandles(t *T, term string) int {
	c := t.CallRoles("search", dialect.Args{dialect.Query: term, dialect.Limit: 10})
	n := judgeHitHandleOwners(t, c)
	if key := hitHandleKey(t, c); key != "" {
		n += followHitsUnder(t, c, probe.Hits(t, c)[1:], key, true)
	}
	if first, next := searchPageTwo(t); next != nil {
		if key := hitHandleKey(t, first); key != "" {
			n += followHitsUnder(t, next, probe.Hits(t, next), key, false)
		}
	}
	return n
}

// hitHandleKey is the key under which the first hit of search answer c
// holds the handle fetch takes for it, learned by following; "" when none.
func hitHandleKey(t *T, c *Call) string {
	hs := probe.Hits(t, c)
	if c.IsError() || len(hs) < 2 {
		return ""
	}
	handle := probe.HitHandle(t, c, hs[0])
	for _, k := range slices.Sorted(maps.Keys(hs[0].Raw)) {
		if hs[0].Raw[k] == handle && handle != "" {
			return k
		}
	}
	return "" // the first hit's own handle is S029's
}

// followHitsUnder follows the string each hit of hs holds under key: it
// must fetch that hit's own record. otherStreams follows only the first
// hit of each stream not yet seen (the first hit's stream counts seen).
func followHitsUnder(t *T, c *Call, hs []probe.Hit, key string, otherStreams bool) int {
	streams := map[string]bool{}
	if first := probe.Hits(t, c); otherStreams && len(first) > 0 {
		streams[first[0].Ref.Stream] = true
	}
	n := 0
	for _, h := range hs {
		v := probe.String(h.Raw[key])
		if otherStreams && streams[h.Ref.Stream] || v == "" {
			continue
		}
		streams[h.Ref.Stream] = true
		n++
		f := probe.Follow(t, v)
		refused := func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessCall, Fact: v, In: []string{f.Call.Describe(), "built from hit " + h.Ref.String() + " of " + c.Describe()}}, nil
		}
		t.Clause(1, func() {
			t.AssertWith(f.OK, refused, "hit %s of %s shows %s under %s, where the first hit of a search shows the id fetch takes; fetch must take it", h.Ref, c.Describe(), v, key)
		})
		if f.OK {
			t.Clause(2, func() {
				t.AssertWith(f.Ref == h.Ref, refused, "hit %s's %s %s fetches %s, another record", h.Ref, key, v, f.Ref)
			})
		}
	}
	return n
}

// judgeHitHandleOwners follows the handle-like strings of each of the
// first hits' objects: a hit whose object holds no string that fetches its
// own record (its stated record, found in the fixture), but one that
// fetches another hit's record of the page, carries its neighbour's handle
// (S033.2). It returns the hits judged.
func judgeHitHandleOwners(t *T, c *Call) int {
	hs := probe.Hits(t, c)
	if c.IsError() || len(hs) < 2 {
		return 0
	}
	others := map[probe.RecordRef]bool{}
	for _, h := range hs {
		others[h.Ref] = true
	}
	n := 0
	for _, h := range hs[:min(len(hs), 4)] {
		if _, ok := probe.FindRecord(t, h.Ref); !ok {
			continue
		}
		var own, neighbour []probe.Followed
		for _, v := range handleLike(h) {
			switch f := probe.Follow(t, v); {
			case !f.OK:
			case f.Ref == h.Ref:
				own = append(own, f)
			case others[f.Ref]:
				neighbour = append(neighbour, f)
			}
		}
		if len(own) > 0 || len(neighbour) == 0 {
			continue
		}
		n++
		f := neighbour[0]
		t.Clause(2, func() {
			t.AssertWith(false, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessCall, Fact: f.Handle, In: []string{f.Call.Describe(), "built from hit " + h.Ref.String() + " of " + c.Describe()}}, nil
			}, "hit %s (its stated record) holds %s, which fetches %s, another hit of the page, and nothing in it fetches its own record", h.Ref, f.Handle, f.Ref)
		})
	}
	return n
}

// handleLike are the strings of a hit's object that could be a handle:
// single tokens other than its source's names, those that hold its record
// id first, at most twelve.
func handleLike(h probe.Hit) []string {
	var holding, rest []string
	for _, v := range probe.StringValues(h.Raw) {
		if len(v) < 3 || len(v) > 300 || strings.ContainsAny(v, " \n") || slices.Contains([]string{h.Conn, h.Key, h.Stream, h.Label, h.Title}, v) || slices.Contains(holding, v) || slices.Contains(rest, v) {
			continue
		}
		if h.Ref.ID != "" && strings.Contains(v, h.Ref.ID) {
			holding = append(holding, v)
		} else {
			rest = append(rest, v)
		}
	}
	out := append(holding, rest...)
	return out[:min(len(out), 12)]
}

// shownInText are the records of want a call's text shows: by their ids
// and values, or by an opaque handle it shows, which following names.
func shownInText(t *T, c *Call, stream string, want []probe.RecordRef) []probe.RecordRef {
	out := probe.RecordsShownIn(t, c.Text(), stream)
	var rest []probe.RecordRef
	for _, r := range want {
		if !slices.Contains(out, r) {
			rest = append(rest, r)
		}
	}
	for r := range probe.HandlesInText(t, c, rest) {
		out = append(out, r)
	}
	return out
}

// expectInSource judges S033.2 on a followed call of a source: every
// record it shows is of that stream and connection.
func expectInSource(t *T, cont probe.Continuation, r *Call, s probe.Source) {
	for _, ref := range probe.RecordsSeen(t, r) {
		t.AssertWith(ref.Stream == s.Stream && (s.Conn == "" || ref.Conn == s.Conn), func() (conformance.Witness, error) {
			w, err := conformance.Present(ref.ID, r)
			w.Fact = ref.String()
			return w, err
		}, "the %s continuation %v must stay on %s/%s; it shows record %s", cont.Tool, cont.Args, s.Conn, s.Stream, ref)
	}
}

// followOnce follows a printed call once per check.
func followOnce(t *T, cont probe.Continuation) *Call {
	return conformance.Discover(t, "follow-call:"+probe.CallKey(cont), func() *Call { return t.Follow(cont) })
}

// longestValue is the fixture record with the longest text value (over
// 600 characters) and its field.
func longestValue(t *T) (probe.FixtureRecord, string, bool) {
	var best probe.FixtureRecord
	field, n := "", 600
	for _, r := range probe.FixtureRecords(t) {
		if f := probe.LongestField(r.Data); probe.LongestString(r.Data) > n && probe.InGrant(t, r.Ref) {
			best, field, n = r, f, probe.LongestString(r.Data)
		}
	}
	return best, field, field != ""
}

// handleShown is a page of rec's source and the handle its text shows for
// rec (found by following), or "".
func handleShown(t *T, rec probe.FixtureRecord) (*Call, string) {
	src := probe.Source{Stream: rec.Ref.Stream, Conn: rec.Ref.Conn}
	for _, args := range []dialect.Args{src.Roles(dialect.Args{dialect.Limit: 100}), src.Roles(nil)} {
		page := t.CallRoles("query_records", args)
		if page.IsError() {
			continue
		}
		if h := probe.Handles(t, page, []probe.RecordRef{rec.Ref})[rec.Ref]; h != "" {
			return page, h
		}
	}
	return nil, ""
}

// followWindows reads a long field in small windows: each incomplete
// window's text must offer the call that reads on (S033.1), which goes on
// in the same field where the last window ended (S033.2).
func followWindows(t *T, page *Call, handle, field, v string) int {
	w := t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: handle, dialect.Field: field, dialect.Length: 200})
	if w.IsError() {
		return 0 // S047 and S036 own a field read that fails
	}
	end := probe.ShownPrefix(w.Text(), v)
	if end == 0 || end >= len([]rune(v)) {
		return 0
	}
	var next []probe.Continuation
	for _, c := range probe.NextCalls(w) {
		if c.Tool == "read_record_field" {
			next = append(next, c)
		}
	}
	t.Clause(1, func() {
		t.AssertWith(len(next) > 0, func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts(continuationTools(t, w)...), textOnly(w))
		}, "a window of %d of %d characters of %s must show the call that reads on:\n%s", end, len([]rune(v)), field, clipText(w.Text(), 400))
	})
	want := nextPiece(v, end, end/2)
	for _, c := range next {
		r := followOnce(t, c)
		t.Clause(1, func() { t.Works(r, textOnly(w), "the next window %v must be readable", c.Args) })
		if r.IsError() {
			continue
		}
		t.Clause(2, func() {
			t.AssertWith(probe.ShownIn(r.Text(), want), func() (conformance.Witness, error) {
				return conformance.Undelivered(r, read.Text(want), textOnly(w))
			}, "the next window %v must go on in the same field where the last one ended (%q):\n%s", c.Args, want, clipText(r.Text(), 400))
		})
	}
	return 1
}

// followFetchedText fetches a record with a long text: when the document
// shows only part of it, it must offer the read that continues it (in its
// text or metadata), and that read goes on in the same field.
func followFetchedText(t *T, page *Call, handle string, rec probe.FixtureRecord, field, v string) int {
	f := t.CallRoles("fetch", dialect.Args{dialect.RecordID: handle})
	if f.IsError() {
		return 0
	}
	doc := f.Structured()
	shown := probe.String(doc["text"])
	if shown == "" {
		shown = f.Text()
	}
	if !probe.PartShown(shown, v) || probe.ShownIn(shown, v) {
		return 0 // not this field's text, or all of it
	}
	end := probe.ShownPrefix(shown, v)
	var conts []probe.Continuation
	// A text that is the document's JSON mirror is read decoded.
	calls := documentCalls(doc)
	if !probe.IsJSONObject(f.Text()) {
		calls = append(calls, probe.ContinuationsIn(f.Text())...)
	}
	for _, c := range calls {
		if c.Tool == "read_record_field" && !slices.ContainsFunc(conts, func(o probe.Continuation) bool { return probe.CallKey(o) == probe.CallKey(c) }) {
			conts = append(conts, c)
		}
	}
	t.Clause(1, func() {
		t.AssertWith(len(conts) > 0, func() (conformance.Witness, error) {
			return conformance.Absent(read.Text("read_record_field"), f)
		}, "fetch shows %d of the %d characters of %s's %s; the document must offer the read_record_field call that continues it:\n%s",
			end, len([]rune(v)), rec.Ref, field, clipText(f.Text(), 400))
	})
	want := nextPiece(v, end, end/2)
	for _, c := range conts {
		r := followOnce(t, c)
		t.Clause(1, func() { t.Works(r, f, "the continuation %v of the fetched text must work", c.Args) })
		if r.IsError() {
			continue
		}
		// Continuing the cut text in its field is what makes it a
		// continuation of it.
		t.Clause(2, func() {
			if t.AssertWith(probe.ShownIn(r.Text(), want), func() (conformance.Witness, error) {
				return conformance.Undelivered(r, read.Text(want), f)
			}, "the continuation %v must go on in %s where the fetched text ended (%q):\n%s", c.Args, field, want, clipText(r.Text(), 400)) {
				readOnToTheEnd(t, t, r, v, field, end+probe.ShownPrefix(r.Text(), string([]rune(v)[end:])))
			}
		})
	}
	return 1
}

// nextPiece is the text of v from rune end on that a continuation must
// start with: long enough to occur in v only there (a text of repeated
// sentences repeats short pieces, so any window would show one), up to
// max runes, never under probe.ChunkRunes.
func nextPiece(v string, end, max int) string {
	r := []rune(v)
	for n := probe.ChunkRunes; ; n += probe.ChunkRunes {
		p := string(r[end:min(len(r), end+n)])
		if end+n >= len(r) || n >= max || strings.Count(v, p) == 1 {
			return p
		}
	}
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
			} else if args, ok := x["arguments"].(map[string]any); ok {
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
