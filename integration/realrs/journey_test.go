package realrs

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestJourneyStdio and TestJourneyHTTP take an agent through every tool and
// every argument tools/list advertises, on every connector's client token.
func TestJourneyStdio(t *testing.T) {
	r := need(t)
	for _, conn := range r.Connectors() {
		t.Run(conn, func(t *testing.T) { newJourney(t, stdioSession(t, r, r.token(t, conn))).run() })
	}
}

func TestJourneyHTTP(t *testing.T) {
	r := need(t)
	endpoint := serve(t, r)
	for _, conn := range r.Connectors() {
		t.Run(conn, func(t *testing.T) { newJourney(t, httpSession(t, endpoint, r.token(t, conn))).run() })
	}
}

// A journey is one agent's session; it records each argument it sent.
type journey struct {
	t       *testing.T
	cs      *mcp.ClientSession
	args    map[string][]string // tools/list: tool -> argument names
	covered map[string]map[string]bool
}

func newJourney(t *testing.T, cs *mcp.ClientSession) *journey {
	j := &journey{t: t, cs: cs, args: advertised(t, cs), covered: map[string]map[string]bool{}}
	for tool := range j.args {
		j.covered[tool] = map[string]bool{}
	}
	return j
}

func (j *journey) call(tool string, args map[string]any) result {
	j.t.Helper()
	for k := range args {
		if j.covered[tool] != nil {
			j.covered[tool][k] = true
		}
	}
	return callTool(j.t, j.cs, tool, args)
}

// ok calls and requires a successful answer.
func (j *journey) ok(tool string, args map[string]any) result {
	j.t.Helper()
	r := j.call(tool, args)
	if r.isError {
		j.t.Errorf("want a result, got an error: %s", r)
	}
	return r
}

// typed calls and requires a result or a typed error: a code, and the
// argument at fault when the answer names one among want.
func (j *journey) typed(tool string, args map[string]any, want ...string) result {
	j.t.Helper()
	r := j.call(tool, args)
	if !r.isError {
		return r
	}
	if strings.Contains(r.text, "-32602") {
		return r // the SDK's typed input validation
	}
	if r.errorField("code") == "" {
		j.t.Errorf("an error must be typed (a code): %s", r)
	}
	if p := r.errorField("param"); len(want) > 0 && p != "" && !slices.Contains(want, p) {
		j.t.Errorf("the error names param %q, want one of %v: %s", p, want, r)
	}
	return r
}

// A stream is one granted stream name with its connector and connections.
type stream struct {
	name, connector string
	conns           []string
}

func (j *journey) run() {
	t := j.t
	idx := j.ok("schema", map[string]any{})
	streams := schemaStreams(idx.structured)
	if len(streams) == 0 {
		t.Fatalf("schema() names no stream: %s", idx)
	}
	s, recs := j.streamWithRecords(streams)
	conn := s.conns[0]
	base := func(extra map[string]any) map[string]any {
		a := map[string]any{"stream": s.name, "connection_id": conn}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	rec, _ := recs[0].(map[string]any)
	data, _ := rec["data"].(map[string]any)
	recID := str(rec, "id")
	textFields, timeFields := fieldsOf(data)

	// schema: scoped, by connection, exhaustive.
	j.typed("schema", map[string]any{"stream": s.name}, "connection_id")
	scoped := j.ok("schema", map[string]any{"stream": s.name, "connection_id": conn})
	if !hasWord(scoped.text, "order=asc|desc") && !regexp.MustCompile(`sort=\S+\|-`).MatchString(scoped.text) {
		t.Errorf("schema(stream) text must say how to order records: %s", scoped)
	}
	j.ok("schema", map[string]any{"stream": s.name, "connection_id": conn, "detail": "full"})

	// query_records: every argument.
	page := j.ok("query_records", base(map[string]any{"limit": 1, "count": "exact"}))
	if next := str(page.structured, "data", "next_cursor"); next != "" {
		j.ok("query_records", base(map[string]any{"limit": 1, "cursor": next}))
	} else {
		t.Errorf("a one-record page of %d records must carry next_cursor: %s", len(recs), page)
	}
	if len(textFields) > 0 {
		p := j.ok("query_records", base(map[string]any{"fields": textFields[:1], "limit": 1}))
		if hasWord(p.text, `"`+textFields[len(textFields)-1]+`"`) && len(textFields) > 1 {
			t.Errorf("fields must narrow the preview to %v: %s", textFields[:1], p)
		}
	}
	j.ok("query_records", base(map[string]any{"order": "asc", "limit": 1}))
	j.sortByCursorField(base, timeFields)
	j.ok("query_records", base(map[string]any{"changes_since": "beginning", "limit": 1}))
	if len(textFields) > 0 {
		f := j.typed("query_records", base(map[string]any{"filter": map[string]any{textFields[0]: str(data, textFields[0])}, "limit": 1}), "filter")
		if f.isError && f.errorField("grant_limit") == "filter" && !hasWord(f.text, "search") {
			t.Errorf("a grant that cannot filter must be told what it can do instead: %s", f)
		}
	}
	j.typed("query_records", base(map[string]any{"expand": []string{"related"}, "expand_limit": map[string]any{"related": 1}}), "expand", "expand_limit")
	unscoped := j.typed("query_records", map[string]any{"stream": s.name, "limit": 1}, "connection_id")
	if len(s.conns) > 1 && unscoped.errorField("code") != "ambiguous_connection" {
		t.Errorf("a read without connection_id over %d connections must ask which one: %s", len(s.conns), unscoped)
	}

	// aggregate: count always; the declared aggregations the manifest may hold.
	j.ok("aggregate", base(map[string]any{"metric": "count"}))
	for _, f := range timeFields {
		g := j.typed("aggregate", base(map[string]any{"metric": "count", "group_by_time": f, "granularity": "month", "time_zone": "UTC", "limit": 5}), "group_by_time", "granularity")
		if !g.isError {
			break
		}
	}
	if len(textFields) > 0 {
		j.typed("aggregate", base(map[string]any{"metric": "count_distinct", "field": textFields[0]}), "field", "metric")
		j.typed("aggregate", base(map[string]any{"metric": "count", "group_by": textFields[0]}), "group_by")
		j.typed("aggregate", base(map[string]any{"metric": "count", "filter": map[string]any{textFields[0]: "x"}}), "filter")
	}

	// search: a word of the stream's own records, then fetch what it finds.
	hit, word := j.searchOwnWord(s, recs)
	if hit == nil {
		t.Fatalf("no word of %s's records finds a hit", s.name)
	}
	j.ok("search", map[string]any{"q": word, "streams": []string{s.name}, "connection_id": str(hit, "connection_id"), "limit": 1})
	if next := str(j.ok("search", map[string]any{"q": word, "limit": 1}).structured, "data", "next_cursor"); next != "" {
		j.ok("search", map[string]any{"q": word, "limit": 1, "cursor": next})
	} else {
		j.call("search", map[string]any{"q": word, "limit": 1, "cursor": "0"}) // cursor is advertised: a single hit has no next page
	}
	doc := j.ok("fetch", map[string]any{"id": str(hit, "id")})
	if key := str(doc.structured, "metadata", "connector_key"); key != s.connector {
		t.Errorf("fetch metadata.connector_key = %q, want the grant's %q: %s", key, s.connector, doc)
	}
	if len(textFields) > 0 {
		j.ok("fetch", map[string]any{"id": str(hit, "id"), "fields": textFields[:1]})
	}
	j.typed("fetch", map[string]any{"id": str(hit, "id"), "expand": []string{"related"}}, "expand")
	j.ok("fetch", map[string]any{"id": s.name + ":" + recID, "connection_id": conn})

	// read_record_field: windows by offset, cursor and q.
	if len(textFields) > 0 {
		id, f := s.name+":"+recID, textFields[0] // the longest value
		j.ok("read_record_field", map[string]any{"id": id, "connection_id": conn, "field_path": f, "offset_chars": 0, "limit_chars": 8})
		j.ok("read_record_field", map[string]any{"id": id, "connection_id": conn, "field_path": f, "cursor": "4", "limit_chars": 8})
		if q := firstWord(str(data, f)); q != "" {
			j.ok("read_record_field", map[string]any{"id": id, "connection_id": conn, "field_path": f, "q": q, "before_chars": 4, "after_chars": 4})
		}
	}
	for tool, args := range j.args {
		for _, a := range args {
			if !j.covered[tool][a] {
				t.Errorf("the journey never sent %s's advertised argument %q: add it", tool, a)
			}
		}
	}
}

// streamWithRecords is the first granted stream (in index order) whose
// first connection holds at least two records.
func (j *journey) streamWithRecords(streams []stream) (stream, []any) {
	for _, s := range streams {
		if len(s.conns) == 0 {
			continue
		}
		r := j.ok("query_records", map[string]any{"stream": s.name, "connection_id": s.conns[0], "limit": 3})
		if recs := list(r.structured, "data", "data"); len(recs) >= 2 {
			return s, recs
		}
	}
	j.t.Fatalf("no granted stream holds two records")
	return stream{}, nil
}

// sortByCursorField finds the stream's sortable field among its time
// fields (the RS sorts by the cursor field only) and checks that an
// agent's sort+order reads as the canonical -field.
func (j *journey) sortByCursorField(base func(map[string]any) map[string]any, timeFields []string) {
	for _, f := range timeFields {
		canon := j.call("query_records", base(map[string]any{"sort": "-" + f, "limit": 3}))
		if canon.isError {
			continue
		}
		folded := j.ok("query_records", base(map[string]any{"sort": f, "order": "desc", "limit": 3}))
		if ids(canon) != ids(folded) {
			j.t.Errorf("sort %s with order desc must read as sort -%s:\n%s\n%s", f, f, canon, folded)
		}
		return
	}
	j.t.Logf("no time field of %v is sortable on this RS", timeFields)
}

func ids(r result) string {
	var out []string
	for _, rec := range list(r.structured, "data", "data") {
		out = append(out, str(rec, "id"))
	}
	return strings.Join(out, ",")
}

// searchOwnWord searches words of the records' string values until one
// finds a hit in stream s.
func (j *journey) searchOwnWord(s stream, recs []any) (map[string]any, string) {
	tries := 0
	for _, rec := range recs {
		data, _ := rec.(map[string]any)["data"].(map[string]any)
		fields, _ := fieldsOf(data)
		for _, f := range fields {
			w := firstWord(str(data, f))
			if w == "" {
				continue
			}
			if tries++; tries > 8 {
				return nil, ""
			}
			r := j.ok("search", map[string]any{"q": w, "streams": []string{s.name}})
			for _, h := range list(r.structured, "results") {
				if hm, _ := h.(map[string]any); str(hm, "stream") == s.name {
					return hm, w
				}
			}
		}
	}
	return nil, ""
}

var wordRe = regexp.MustCompile(`\pL{5,}`)

func firstWord(s string) string { return wordRe.FindString(s) }

// fieldsOf lists a record's plain string fields (longest value first) and
// its timestamp fields.
func fieldsOf(data map[string]any) (text, times []string) {
	for k, v := range data {
		s, ok := v.(string)
		switch {
		case !ok || s == "":
		case regexp.MustCompile(`^\d{4}-\d\d-\d\dT`).MatchString(s):
			times = append(times, k)
		case wordRe.MatchString(s) && !strings.Contains(s, "://"):
			text = append(text, k)
		}
	}
	sort.Slice(text, func(a, b int) bool {
		if la, lb := len(str(data, text[a])), len(str(data, text[b])); la != lb {
			return la > lb
		}
		return text[a] < text[b]
	})
	sort.Strings(times)
	return text, times
}

// schemaStreams reads the stream rows of schema()'s structuredContent.
func schemaStreams(sc map[string]any) []stream {
	var out []stream
	doc, _ := sc["data"].(map[string]any)
	for _, c := range list(doc, "connectors") {
		cm, _ := c.(map[string]any)
		for _, s := range list(cm, "streams") {
			sm, _ := s.(map[string]any)
			conns := list(sm, "granted_connections")
			if conns == nil {
				conns = list(cm, "granted_connections")
			}
			st := stream{name: str(sm, "name"), connector: str(cm, "connector_key")}
			for _, gc := range conns {
				st.conns = append(st.conns, str(gc, "connection_id"))
			}
			out = append(out, st)
		}
	}
	return out
}
