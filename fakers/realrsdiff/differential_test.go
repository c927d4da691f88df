package realrsdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/fakers"
)

// The two sides serve different data: the kit's seed (github, reddit and
// gmail manifests) and the fixture's (gmail, slack, github). Rather than
// copy the kit's manifests and seed into the fixture, each request names
// what it needs by role, and each side binds the roles to its own data:
// the contract under test is status, code, param and shape, which hold for
// any data, and the fixture's data stays what mcpcheck's checks rely on.
//
// Two client tokens play the two grant shapes a real client token has:
// "multi" covers one connector with two connections (the kit's gmail),
// "single" one connector with one connection (the kit's github).
//
// Roles, per token:
//
//	stream        a stream with records on every granted connection
//	conn, conn2   its connections (conn2 only for multi)
//	cursor        the stream's cursor field; other: a field that is not
//	max_field     a field declared for max (multi only)
//	nontext       a field of stream that holds no text
//	text_stream   a stream with a long text field text_field
//	term          a word that lexical search finds in stream
//	time_field    a field declared for group_by_time on stream
//	sum_field     a field declared for sum (multi only)
//	foreign       a stream of another connector, outside the grant
//	record        the first record of stream on conn (read from the side)
//	text_record   the first record of text_stream on conn (read from the side)
type side struct {
	name   string
	base   string
	client *http.Client
	tokens map[string]string
	roles  map[string]map[string]string
}

func realSide(k *kit) *side {
	work, personal, gh := k.conns["gmail_work"], k.conns["gmail_personal"], k.conns["github"]
	return &side{name: "reference RS", base: k.rsURL, client: &http.Client{Timeout: 20 * time.Second},
		tokens: map[string]string{"multi": k.client["gmail"], "single": k.client["github"]},
		roles: map[string]map[string]string{
			"multi": {"stream": "messages", "conn": work.ConnectionID, "conn2": personal.ConnectionID, "cursor": "received_at", "max_field": "received_at", "other": "subject",
				"nontext": "size_bytes", "text_stream": "message_bodies", "text_field": "body_text", "term": "invoice", "time_field": "received_at",
				"sum_field": "size_bytes", "foreign": "issues"},
			"single": {"stream": "issues", "conn": gh.ConnectionID, "cursor": "updated_at", "other": "title", "nontext": "comments",
				"text_stream": "issues", "text_field": "title", "term": "second", "time_field": "created_at", "foreign": "messages"},
		}}
}

func fixtureSide(t *testing.T) *side {
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.RealRS = true
	rs := fakers.New(fx)
	return &side{name: "fixture (real profile)", base: fakers.MockBaseURL, client: &http.Client{Transport: rs.Transport()},
		tokens: map[string]string{"multi": rs.ClientTokenFor("gmail"), "single": rs.ClientTokenFor("github")},
		roles: map[string]map[string]string{
			"multi": {"stream": "messages", "conn": "cin_work", "conn2": "cin_home", "cursor": "sent_at", "max_field": "sent_at", "other": "subject",
				"nontext": "size_bytes", "text_stream": "messages", "text_field": "body", "term": fakers.FanInTerm, "time_field": "sent_at",
				"sum_field": "size_bytes", "foreign": "issues"},
			"single": {"stream": "issues", "conn": "cin_github", "cursor": "created_at", "other": "title", "nontext": "comments",
				"text_stream": "issues", "text_field": "title", "term": "crash", "time_field": "created_at", "foreign": "messages"},
		}}
}

// An answer is what the comparison looks at.
type answer struct {
	status int
	body   any
	raw    string
}

func (s *side) get(t *testing.T, role, path string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+s.tokens[role])
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s GET %s: %v", s.name, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%s GET %s: %d, not JSON: %.300s", s.name, path, resp.StatusCode, raw)
	}
	return answer{status: resp.StatusCode, body: body, raw: string(raw)}
}

// bind fills a template's {role} placeholders, first reading the record
// roles from the side's own lists.
func (s *side) bind(t *testing.T, role, tmpl string) string {
	t.Helper()
	roles := s.roles[role]
	firstID := func(stream string) string {
		a := s.get(t, role, "/v1/streams/"+stream+"/records?limit=1&connection_id="+url.QueryEscape(roles["conn"]))
		data, _ := a.body.(map[string]any)["data"].([]any)
		if a.status != http.StatusOK || len(data) == 0 {
			t.Fatalf("%s: no record of %s to bind: %d %.300s", s.name, stream, a.status, a.raw)
		}
		id, _ := data[0].(map[string]any)["id"].(string)
		return id
	}
	out := tmpl
	if strings.Contains(out, "{record}") {
		out = strings.ReplaceAll(out, "{record}", url.PathEscape(firstID(roles["stream"])))
	}
	if strings.Contains(out, "{text_record}") {
		out = strings.ReplaceAll(out, "{text_record}", url.PathEscape(firstID(roles["text_stream"])))
	}
	for k, v := range roles {
		out = strings.ReplaceAll(out, "{"+k+"}", v)
	}
	if i := strings.IndexByte(out, '{'); i >= 0 && strings.IndexByte(out[i:], '}') > 0 {
		t.Fatalf("%s: unbound role in %s", s.name, out)
	}
	return out
}

// A request sent to both sides. ignore lists shape paths that depend on the
// data rather than the contract, each for a stated reason.
type request struct {
	name   string
	path   string
	only   string // "multi" or "single"; "" both
	ignore []string
	// same are paths whose distinct values must also agree, role values
	// abstracted; "#" before a path compares the lengths of the arrays
	// there, "?" only whether it is there.
	same []string
}

// dataDependent are paths whose presence depends on the values served.
var dataDependent = []string{
	".meta.count.value", // present only when a count was asked and there is one
	// Set from the first of sent_at, created_at, updated_at… the record
	// has: the kit's gmail messages have none, the fixture's have sent_at.
	".data[].authored_at",
}

// underDefaultPage: the kit's streams hold fewer records than the default
// page of 25, the fixture's more, so only the fixture's first page has a
// next page.
var underDefaultPage = []string{".next_cursor"}

const rec = "/v1/streams/{stream}/records"
const agg = "/v1/streams/{stream}/aggregate?connection_id={conn}&"
const win = "/v1/streams/{text_stream}/records/{text_record}/field-window?connection_id={conn}&"

var requests = []request{
	{name: "schema compact", path: "/v1/schema?view=compact", same: []string{".connectors[].source.id", ".connectors[].connector_key",
		".connectors[].streams[].primary_key", ".connectors[].streams[].field_capabilities.*", ".connectors[].streams[].expand_capabilities",
		"#.connectors[].granted_connections", "#.connectors"}, ignore: []string{
		// The fixture's gmail attachments stream lives on one of the two
		// connections, so its row keeps its own granted_connections; every
		// stream of the kit's gmail lives on both.
		".connectors[].streams[].granted_connections"}},
	{name: "schema full", path: "/v1/schema", same: []string{".connectors[].source.id", ".connectors[].streams[].query",
		".connectors[].streams[].field_capabilities.*", ".connectors[].streams[].primary_key"}},
	{name: "schema of a stream", path: "/v1/schema?stream={stream}"},
	{name: "schema of an unknown stream", path: "/v1/schema?stream=no_such_stream"},
	{name: "schema of an unknown connection", path: "/v1/schema?connection_id=cin_no_such_connection"},
	{name: "schema detail full", path: "/v1/schema?stream={stream}&detail=full"},
	{name: "schema detail full on a connection", path: "/v1/schema?stream={stream}&detail=full&connection_id={conn}"},
	{name: "schema detail full without stream", path: "/v1/schema?detail=full"},
	{name: "streams", path: "/v1/streams", ignore: []string{".data[].freshness.captured_at"}}, // unknown freshness (an empty stream) has no time
	{name: "streams of an unknown connection", path: "/v1/streams?connection_id=cin_no_such_connection"},
	{name: "stream detail", path: "/v1/streams/{stream}"},
	{name: "stream detail outside the grant", path: "/v1/streams/{foreign}"},
	{name: "stream detail unknown connection", path: "/v1/streams/{stream}?connection_id=cin_no_such_connection"},
	{name: "records", path: rec + "?limit=3", same: []string{"#.data", ".has_more", "?.next_cursor", ".meta.warnings[].code", ".meta.warnings[].param"}},
	{name: "records on a connection", path: rec + "?limit=3&connection_id={conn}"},
	{name: "records fields", path: rec + "?limit=2&connection_id={conn}&fields=id,{cursor}"},
	{name: "records empty fields", path: rec + "?limit=2&connection_id={conn}&fields="},
	{name: "records sort cursor desc", path: rec + "?limit=2&connection_id={conn}&sort=-{cursor}", same: []string{"#.data", ".has_more"}},
	{name: "records sort cursor asc", path: rec + "?limit=2&connection_id={conn}&sort={cursor}"},
	{name: "records sort and order disagree", path: rec + "?limit=2&connection_id={conn}&sort={cursor}&order=desc"},
	{name: "records sort and order agree", path: rec + "?limit=2&connection_id={conn}&sort=-{cursor}&order=desc"},
	{name: "records order alone", path: rec + "?limit=2&connection_id={conn}&order=asc"},
	{name: "records bad order", path: rec + "?limit=2&connection_id={conn}&order=sideways"},
	{name: "records sort on another field", path: rec + "?limit=2&connection_id={conn}&sort={other}"},
	{name: "records sort on two fields", path: rec + "?limit=2&connection_id={conn}&sort=-{cursor},id"},
	{name: "records filter", path: rec + "?limit=2&connection_id={conn}&filter[{cursor}][gte]=2026-01-01T00:00:00Z"},
	{name: "records expand", path: rec + "?limit=2&connection_id={conn}&expand=attachments"},
	{name: "records expand_limit", path: rec + "?limit=2&connection_id={conn}&expand_limit[attachments]=2"},
	{name: "records unknown field", path: rec + "?limit=2&connection_id={conn}&fields=no_such_field"},
	{name: "records bad cursor", path: rec + "?limit=2&connection_id={conn}&cursor=not-a-cursor"},
	{name: "records unknown parameter", path: rec + "?limit=2&connection_id={conn}&bogus=1"},
	{name: "records view", path: rec + "?limit=2&view=summary"},
	{name: "records unknown connection", path: rec + "?limit=2&connection_id=cin_no_such_connection"},
	{name: "records count exact", path: rec + "?limit=2&connection_id={conn}&count=exact"},
	{name: "records bad count", path: rec + "?limit=2&connection_id={conn}&count=bogus"},
	{name: "records limit 0", path: rec + "?limit=0&connection_id={conn}", ignore: underDefaultPage},
	{name: "records limit not a number", path: rec + "?limit=abc&connection_id={conn}", ignore: underDefaultPage},
	{name: "records limit over the cap", path: rec + "?limit=5000&connection_id={conn}"},
	{name: "records changes since the beginning", path: rec + "?limit=2&connection_id={conn}&changes_since=beginning"},
	{name: "records changes over connections", path: rec + "?limit=2&changes_since=beginning"},
	{name: "records changes with sort", path: rec + "?limit=2&connection_id={conn}&changes_since=beginning&sort=-{cursor}"},
	{name: "records outside the grant", path: "/v1/streams/{foreign}/records?limit=2"},
	{name: "records of an unknown stream", path: "/v1/streams/no_such_stream/records?limit=2"},
	{name: "record detail", path: rec + "/{record}?connection_id={conn}", same: []string{".connector_key"}},
	{name: "record detail fields", path: rec + "/{record}?connection_id={conn}&fields=id,{cursor}"},
	{name: "record detail unknown field", path: rec + "/{record}?connection_id={conn}&fields=id,no_such_field"},
	{name: "record detail without connection", path: rec + "/{record}"}, // ids are unique across connections on both sides
	{name: "record detail unknown", path: rec + "/no-such-record?connection_id={conn}"},
	{name: "record detail expand", path: rec + "/{record}?connection_id={conn}&expand=attachments"},
	{name: "field window", path: win + "field={text_field}&limit_chars=40"},
	{name: "field window default", path: win + "field={text_field}"},
	{name: "field window clamped", path: win + "field={text_field}&limit_chars=99999"},
	{name: "field window no field", path: win},
	{name: "field window unknown field", path: win + "field=no_such_field"},
	{name: "field window negative offset", path: win + "field={text_field}&offset_chars=-1"},
	{name: "field window offset not a number", path: win + "field={text_field}&offset_chars=x"},
	{name: "field window q not found", path: win + "field={text_field}&q=zzqqzzqq"},
	{name: "field window q with offset", path: win + "field={text_field}&q={term}&offset_chars=3"},
	{name: "field window before without q", path: win + "field={text_field}&before_chars=3"},
	{name: "field window unknown record", path: "/v1/streams/{text_stream}/records/no-such-record/field-window?connection_id={conn}&field={text_field}"},
	{name: "field window not text", path: rec + "/{record}/field-window?connection_id={conn}&field={nontext}"},
	{name: "aggregate count", path: agg + "metric=count"},
	{name: "aggregate count over connections", path: "/v1/streams/{stream}/aggregate?metric=count"},
	{name: "aggregate no metric", path: agg},
	{name: "aggregate bad metric", path: agg + "metric=bogus"},
	{name: "aggregate count with field", path: agg + "metric=count&field={nontext}"},
	{name: "aggregate sum without field", path: agg + "metric=sum"},
	{name: "aggregate max", path: agg + "metric=max&field={max_field}", only: "multi"},
	{name: "aggregate sum", path: agg + "metric=sum&field={sum_field}", only: "multi"},
	{name: "aggregate sum over connections", path: "/v1/streams/{stream}/aggregate?metric=sum&field={sum_field}", only: "multi"},
	{name: "aggregate unknown field", path: agg + "metric=max&field=no_such_field"},
	{name: "aggregate undeclared", path: agg + "metric=sum&field={other}"},
	{name: "aggregate undeclared count_distinct", path: agg + "metric=count_distinct&field={other}"},
	{name: "aggregate group_by undeclared", path: agg + "metric=count&group_by={other}"},
	{name: "aggregate by month", path: agg + "metric=count&group_by_time={time_field}&granularity=month"},
	{name: "aggregate by time without granularity", path: agg + "metric=count&group_by_time={time_field}"},
	{name: "aggregate granularity alone", path: agg + "metric=count&granularity=day"},
	{name: "aggregate bad granularity", path: agg + "metric=count&group_by_time={time_field}&granularity=fortnight"},
	{name: "aggregate bad time zone", path: agg + "metric=count&group_by_time={time_field}&granularity=day&time_zone=Mars/Base"},
	{name: "aggregate time zone alone", path: agg + "metric=count&time_zone=UTC"},
	{name: "aggregate limit ungrouped", path: agg + "metric=count&limit=3"},
	{name: "aggregate limit 0", path: agg + "metric=count&group_by_time={time_field}&granularity=month&limit=0"},
	{name: "aggregate sum grouped", path: agg + "metric=sum&field={nontext}&group_by_time={time_field}&granularity=month"},
	{name: "aggregate unknown parameter", path: agg + "metric=count&bogus=1"},
	{name: "aggregate filter", path: agg + "metric=count&filter[{cursor}][gte]=2026-01-01T00:00:00Z"},
	{name: "search", path: "/v1/search?q={term}&limit=1", same: []string{".data[].connector_id", ".data[].object"}},
	{name: "search one stream", path: "/v1/search?q={term}&streams[]={stream}&limit=1"},
	{name: "search one connection", path: "/v1/search?q={term}&connection_id={conn}&limit=1"},
	{name: "search limit 0", path: "/v1/search?q={term}&limit=0"},
	{name: "search limit over the cap", path: "/v1/search?q={term}&streams[]={stream}&limit=500"},
	{name: "search filter", path: "/v1/search?q={term}&streams[]={stream}&filter[{cursor}][gte]=2026-01-01T00:00:00Z"},
	{name: "search expand", path: "/v1/search?q={term}&expand=attachments"},
	{name: "search fields", path: "/v1/search?q={term}&fields=id"},
	{name: "search unknown parameter", path: "/v1/search?q={term}&bogus=1"},
	{name: "search bad cursor", path: "/v1/search?q={term}&cursor=not-a-cursor"},
	{name: "search unknown connection", path: "/v1/search?q={term}&connection_id=cin_no_such_connection"},
	{name: "search no query", path: "/v1/search?limit=3"},
	{name: "search outside the grant", path: "/v1/search?q={term}&streams[]={foreign}"},
}

func TestFixtureRealProfileMatchesReferenceRS(t *testing.T) {
	k := needKit(t)
	real, fix := realSide(k), fixtureSide(t)
	for _, role := range []string{"multi", "single"} {
		for _, rq := range requests {
			if rq.only != "" && rq.only != role {
				continue
			}
			t.Run(role+"/"+rq.name, func(t *testing.T) {
				rp, fp := real.bind(t, role, rq.path), fix.bind(t, role, rq.path)
				ra, fa := real.get(t, role, rp), fix.get(t, role, fp)
				problems := compare(ra, fa, append(rq.ignore, dataDependent...))
				if wm, gm := real.abstract(role, messageOf(ra)), fix.abstract(role, messageOf(fa)); wm != gm {
					problems = append(problems, fmt.Sprintf("message %q, want %q", gm, wm))
				}
				for _, p := range rq.same {
					if wv, gv := real.valuesAt(role, ra.body, p), fix.valuesAt(role, fa.body, p); wv != gv {
						problems = append(problems, fmt.Sprintf("%s is %s, want %s", p, gv, wv))
					}
				}
				if len(problems) > 0 {
					t.Errorf("GET %s\n  reference RS: %s\n  fixture:      %s\n  (fixture sent %s)\n%s", rp, summary(ra), summary(fa), fp,
						"  - "+strings.Join(problems, "\n  - "))
				}
			})
		}
	}
}

// compare checks status, error code, error param and shape.
func compare(want, got answer, ignore []string) []string {
	var out []string
	if want.status != got.status {
		out = append(out, fmt.Sprintf("status %d, want %d", got.status, want.status))
	}
	we, ge := errorOf(want.body), errorOf(got.body)
	if we["code"] != ge["code"] {
		out = append(out, fmt.Sprintf("error code %v, want %v", ge["code"], we["code"]))
	}
	if we["param"] != ge["param"] {
		out = append(out, fmt.Sprintf("error param %v, want %v", ge["param"], we["param"]))
	}
	return append(out, diff(shapeOf(want.body), shapeOf(got.body), ignore)...)
}

// valuesAt renders the values at a shape path (see request.same), with
// the side's role values abstracted.
func (s *side) valuesAt(role string, body any, path string) string {
	count, presence := strings.HasPrefix(path, "#"), strings.HasPrefix(path, "?")
	vals := []any{body}
	for _, seg := range strings.Split(strings.TrimLeft(path, "#?."), ".") {
		name, each := strings.CutSuffix(seg, "[]")
		var next []any
		for _, v := range vals {
			m, _ := v.(map[string]any)
			var children []any
			if name == "*" {
				for _, k := range sortedKeys(m) {
					children = append(children, m[k])
				}
			} else if c, ok := m[name]; ok {
				children = []any{c}
			}
			for _, c := range children {
				if arr, ok := c.([]any); ok && each {
					next = append(next, arr...)
				} else {
					next = append(next, c)
				}
			}
		}
		vals = next
	}
	if count {
		n := []int{}
		for _, v := range vals {
			arr, _ := v.([]any)
			n = append(n, len(arr))
		}
		return fmt.Sprint(n)
	}
	if presence {
		return fmt.Sprint(len(vals) > 0)
	}
	distinct := map[string]bool{}
	for _, v := range vals {
		raw, _ := json.Marshal(v)
		distinct[s.abstract(role, string(raw))] = true
	}
	var out []string
	for v := range distinct {
		out = append(out, v)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func messageOf(a answer) string {
	m, _ := errorOf(a.body)["message"].(string)
	return m
}

// abstract replaces the side's role values in an error message by their
// role names, longest first, so that the two sides' texts compare.
func (s *side) abstract(role, msg string) string {
	type kv struct{ k, v string }
	var pairs []kv
	for k, v := range s.roles[role] {
		pairs = append(pairs, kv{k, v})
	}
	sort.Slice(pairs, func(i, j int) bool { // roles sharing a value: the first name wins on both sides
		if len(pairs[i].v) != len(pairs[j].v) {
			return len(pairs[i].v) > len(pairs[j].v)
		}
		return pairs[i].k < pairs[j].k
	})
	for _, p := range pairs {
		msg = strings.ReplaceAll(msg, p.v, "{"+p.k+"}")
	}
	return msg
}

func errorOf(body any) map[string]any {
	m, _ := body.(map[string]any)
	e, _ := m["error"].(map[string]any)
	return e
}

func summary(a answer) string {
	if e := errorOf(a.body); e != nil {
		return fmt.Sprintf("%d %v param=%v %q", a.status, e["code"], e["param"], e["message"])
	}
	return fmt.Sprintf("%d", a.status)
}
