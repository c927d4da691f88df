package adapter

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fuzz targets for the adapter's input parsers and encoders. `go test ./...`
// runs their seed corpora (testdata/fuzz/<Name>/ plus the f.Add seeds);
// docs/FUZZING.md has the long runs and their results.

// oracleUnescape decodes every valid %XX triple and keeps malformed ones,
// as a forgiving server or proxy would. It is the fuzz oracle, written
// apart from the adapter's own decoder on purpose.
func oracleUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && oracleIsHex(s[i+1]) && oracleIsHex(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func oracleIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// traversal reports whether any decoding depth of seg, the raw form
// included, is a dot segment or holds '..', a separator, NUL, CR or LF.
func traversal(seg string) bool {
	for s, prev := seg, ""; s != prev; s, prev = oracleUnescape(s), s {
		if s == "." || strings.Contains(s, "..") || strings.ContainsAny(s, "/\\\x00\r\n") {
			return true
		}
	}
	return false
}

var idSeeds = []struct{ id, conn string }{
	{"cin_work/messages:m007", ""},
	{"messages:m001", "cin_home"},
	{"messages:urn:x:1", ""},
	{"messages:../../etc/passwd", ""},
	{"../messages:m1", ""},
	{"cin/../messages:m1", ""},
	{"messages:%2e%2e", ""},
	{"messages:%2E%2E%2F", ""},
	{"messages:%252e%252e%252f", ""},
	{"messages:%25252e%25252e", ""},
	{"messages:%2e%2e%2f%zz", ""},
	{"messages:%2525252525", ""},
	{"messages:a%5cb", ""},
	{`messages:a\b`, ""},
	{"messages:a%00b", ""},
	{"messages:a\x00b", ""},
	{"messages:a\r\nb", ""},
	{"messages:%0d%0a", ""},
	{"messages:%c0%ae%c0%ae", ""},
	{"messages:.", ""},
	{"./messages:m1", ""},
	{"messages:m1", "../x"},
	{"messages:m1", "%2e%2e"},
	{"a/messages:m1", "b"},
	{"a/b/messages:m1", ""},
	{":m1", ""},
	{"messages:", ""},
	{"pdpp://record/cin_work%2Fmessages%3Am1", ""},
	{"pdpp://record/eyJjb25uZWN0aW9uX2lkIjoiY2luX3dvcmsiLCJzdHJlYW0iOiJtZXNzYWdlcyIsInJlY29yZF9pZCI6Im0xIn0", ""},
	{"pdpp://record/eyJzdHJlYW0iOiJtZXNzYWdlcyIsInJlY29yZF9pZCI6Ii4uLy4uL2V0Yy9wYXNzd2QifQ", ""},
	{"pdpp://record/eyJjb25uZWN0aW9uX2lkIjoiLi4iLCJzdHJlYW0iOiJtZXNzYWdlcyIsInJlY29yZF9pZCI6Im0xIn0", ""},
	{"pdpp://record/messages%3A%252e%252e", ""},
	{"pdpp://record/pdpp%3A%2F%2Frecord%2Fmessages%3Am1", ""},
	{"pdpp://record/", ""},
	{"pdpp://blob/b1", ""},
	{"/messages:m1", ""},
}

// FuzzParseRecordID: no panic; an accepted id has non-empty stream and
// record segments, none of which is traversal at any encoding depth; a
// rejection is a typed error; String() parses back to the same ref.
func FuzzParseRecordID(f *testing.F) {
	for _, s := range idSeeds {
		f.Add(s.id, s.conn)
	}
	f.Fuzz(func(t *testing.T, id, conn string) {
		ref, err := parseRecordID(id, conn)
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) || te.Code == "" || te.Message == "" {
				t.Fatalf("untyped rejection %#v", err)
			}
			switch te.Code {
			case "invalid_id", "invalid_connection_id", "conflicting_connection_id":
			default:
				t.Fatalf("unexpected code %s", te.Code)
			}
			return
		}
		if ref.Stream == "" || ref.RecordID == "" {
			t.Fatalf("accepted %q with an empty segment: %+v", id, ref)
		}
		for _, seg := range []string{ref.ConnectionID, ref.Stream, ref.RecordID} {
			if traversal(seg) {
				t.Fatalf("accepted %q (conn %q): segment %q is traversal once decoded", id, conn, seg)
			}
		}
		if conn != "" && ref.ConnectionID != conn {
			t.Fatalf("connection_id argument %q lost: %+v", conn, ref)
		}
		again, err := parseRecordID((PathIDs{}).Format(ref), "")
		if err != nil {
			t.Fatalf("String() %q does not parse back: %v", (PathIDs{}).Format(ref), err)
		}
		if !strings.ContainsAny(ref.ConnectionID, "/:") && again != ref {
			t.Fatalf("round trip %+v -> %q -> %+v", ref, (PathIDs{}).Format(ref), again)
		}
		// The handle the tools show must name the same record.
		viaURI, err := parseRecordID(RecordURIPrefix+url.PathEscape((PathIDs{}).Format(ref)), "")
		if err != nil {
			t.Fatalf("URI() %q does not parse back: %v", RecordURIPrefix+url.PathEscape((PathIDs{}).Format(ref)), err)
		}
		if viaURI != again {
			t.Fatalf("URI round trip %+v -> %q -> %+v", ref, RecordURIPrefix+url.PathEscape((PathIDs{}).Format(ref)), viaURI)
		}
	})
}

// A base64 JSON record handle either names exactly the record its fields
// give, or is refused with a typed error: its fields never shift.
func FuzzRecordHandleFields(f *testing.F) {
	for _, s := range [][3]string{{"cin_work", "messages", "m001"}, {"c", "s:x", "r"}, {"c/d", "s", "r"}, {"", "s", "r:1"}, {"c", "s", "../r"}, {"c", "%2e%2e", "r"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, conn, stream, record string) {
		raw, _ := json.Marshal(map[string]string{"connection_id": conn, "stream": stream, "record_id": record})
		var sent map[string]string // what the handle says, after JSON's UTF-8 repair
		_ = json.Unmarshal(raw, &sent)
		conn, stream, record = sent["connection_id"], sent["stream"], sent["record_id"]
		ref, err := parseRecordID(RecordURIPrefix+base64.RawURLEncoding.EncodeToString(raw), "")
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) || te.Code != "invalid_id" {
				t.Fatalf("untyped rejection %#v", err)
			}
			return
		}
		if ref.ConnectionID != conn || ref.Stream != stream || ref.RecordID != record {
			t.Fatalf("handle {%q %q %q} parsed as %+v", conn, stream, record, ref)
		}
	})
}

// decodeFilter parses an encoded query back into the typed filter it came
// from: field -> scalar string, or field -> op -> scalar string.
func decodeFilter(t *testing.T, encoded string) map[string]any {
	t.Helper()
	q, err := url.ParseQuery(encoded)
	if err != nil {
		t.Fatalf("encoded query %q does not parse: %v", encoded, err)
	}
	out := map[string]any{}
	for k, vs := range q {
		if len(vs) != 1 {
			t.Fatalf("key %q has %d values", k, len(vs))
		}
		rest, ok := strings.CutPrefix(k, "filter[")
		if !ok {
			t.Fatalf("stray key %q (a bare filter= must never be sent)", k)
		}
		field, tail, ok := strings.Cut(rest, "]")
		switch {
		case !ok:
			t.Fatalf("key %q is not filter[field]", k)
		case tail == "":
			out[field] = vs[0]
		case strings.HasPrefix(tail, "[") && strings.HasSuffix(tail, "]"):
			ops, _ := out[field].(map[string]string)
			if ops == nil {
				if _, exact := out[field]; exact {
					t.Fatalf("field %q is both exact and a range", field)
				}
				ops = map[string]string{}
				out[field] = ops
			}
			ops[tail[1:len(tail)-1]] = vs[0]
		default:
			t.Fatalf("key %q has a malformed operator", k)
		}
	}
	return out
}

// expectedFilter is what a valid typed filter should encode to, derived from
// the JSON alone; ok is false when the filter should be rejected.
func expectedFilter(raw []byte) (map[string]any, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil, false
	}
	scalar := func(r json.RawMessage) (string, bool) {
		var v any
		if json.Unmarshal(r, &v) != nil {
			return "", false
		}
		switch x := v.(type) {
		case string:
			return x, true
		case bool:
			return strconv.FormatBool(x), true
		case float64:
			return string(r), true
		}
		return "", false
	}
	out := map[string]any{}
	for field, v := range m {
		if field == "" || strings.ContainsAny(field, "[]&=") {
			return nil, false
		}
		var ops map[string]json.RawMessage
		if json.Unmarshal(v, &ops) == nil && ops != nil {
			if len(ops) == 0 {
				return nil, false
			}
			enc := map[string]string{}
			for op, ov := range ops {
				switch op {
				case "gte", "gt", "lte", "lt":
				default:
					return nil, false
				}
				s, ok := scalar(ov)
				if !ok {
					return nil, false
				}
				enc[op] = s
			}
			out[field] = enc
			continue
		}
		s, ok := scalar(v)
		if !ok {
			return nil, false
		}
		out[field] = s
	}
	return out, true
}

// FuzzEncodeFilter: no panic; a rejection is invalid_filter and never a
// bare filter=; an accepted filter round-trips: parsing the encoded query
// back recovers the typed filter exactly.
func FuzzEncodeFilter(f *testing.F) {
	for _, s := range []string{
		`{"label":"inbox"}`,
		`{"label":"inbox","size":1.50,"sent_at":{"gte":"2026-01-01","lt":"2026-02-01"},"flagged":true}`,
		`{"a b":"c&d=e","é":"%2e%2e/","x":{"lte":-0,"gt":1e3}}`,
		`{"n":-1.5E-7,"t":false}`,
		`"filter[a]=1"`, `{}`, `{"a[b]":"x"}`, `{"a":{}}`, `{"a":{"between":5}}`,
		`{"a":[1,2]}`, `{"a":null}`, `{"a":{"gte":{"x":1}}}`, `{"":1}`, `{"a":1e999}`,
		`{"a":"x","a":{"gt":1}}`, `null`, `[]`, `{"a":"\u0000\r\n"}`, `{"a]":1}`, `{"a":1} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		q := url.Values{}
		err := encodeFilter(q, raw)
		want, valid := expectedFilter(raw)
		if len(raw) == 0 || string(raw) == "null" {
			if err != nil || len(q) != 0 {
				t.Fatalf("absent filter: err %v, query %q", err, q.Encode())
			}
			return
		}
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) || te.Code != "invalid_filter" || te.Param != "filter" {
				t.Fatalf("rejection is not a typed invalid_filter: %#v", err)
			}
			if valid {
				t.Fatalf("valid filter %s rejected: %v", raw, err)
			}
			if q.Has("filter") {
				t.Fatalf("forwarded a bare filter=")
			}
			return
		}
		if !valid {
			t.Fatalf("invalid filter %s accepted as %q", raw, q.Encode())
		}
		got := decodeFilter(t, q.Encode())
		if !reflect.DeepEqual(normalizeFilter(got), normalizeFilter(want)) {
			t.Fatalf("round trip of %s:\n got %v\nwant %v", raw, got, want)
		}
	})
}

func normalizeFilter(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if ops, ok := v.(map[string]string); ok {
			out[k] = ops
			continue
		}
		out[k] = v
	}
	return out
}

// FuzzEncodeExpand: no panic; a rejection is invalid_expand; an accepted
// expand and expand_limit round-trip: expand=rel in order, and
// expand_limit[rel]=N back to the same map.
func FuzzEncodeExpand(f *testing.F) {
	for _, s := range [][2]string{
		{`["thread"]`, `{"thread":5}`},
		{`["thread","labels"]`, `{"thread":1,"labels":100}`},
		{`["a b","é"]`, `{"a b":2}`},
		{`[]`, `null`},
		{`["a[0]"]`, ``},
		{`[""]`, ``},
		{`["x"]`, `"expand_limit[x]=5"`},
		{`["x"]`, `{}`},
		{`["x"]`, `{"x":1.5}`},
		{`["x"]`, `{"x":2.0,"y":1e2}`},
		{`["x"]`, `{"x":1e300}`},
		{`["x"]`, `{"x":99999999999999999999}`},
		{`["x"]`, `{"x&y=1":2}`},
		{`["x"]`, `{"x":-3}`},
		{`["x","x"]`, `{"x":1,"x":2}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, rawExpand, rawLimits []byte) {
		var expand []string
		if json.Unmarshal(rawExpand, &expand) != nil {
			return // the tool's argument decoding rejects it first
		}
		q := url.Values{}
		err := encodeExpand(q, expand, rawLimits)
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) || te.Code != "invalid_expand" || (te.Param != "expand" && te.Param != "expand_limit") {
				t.Fatalf("rejection is not a typed invalid_expand: %#v", err)
			}
			if q.Has("expand_limit") {
				t.Fatalf("forwarded a bare expand_limit=")
			}
			return
		}
		back, perr := url.ParseQuery(q.Encode())
		if perr != nil {
			t.Fatalf("encoded query %q does not parse: %v", q.Encode(), perr)
		}
		if got := back["expand"]; !reflect.DeepEqual(got, nilIfEmpty(expand)) {
			t.Fatalf("expand round trip: got %q want %q", got, expand)
		}
		for _, rel := range expand {
			if rel == "" || strings.ContainsAny(rel, "[]&=") {
				t.Fatalf("accepted relation %q", rel)
			}
		}
		want := map[string]int{}
		if len(rawLimits) > 0 && string(rawLimits) != "null" {
			var floats map[string]float64
			if err := json.Unmarshal(rawLimits, &floats); err != nil {
				t.Fatalf("accepted expand_limit %s that does not decode: %v", rawLimits, err)
			}
			for k, v := range floats {
				if v != float64(int(v)) {
					t.Fatalf("accepted expand_limit[%s]=%v, not an integer", k, v)
				}
				want[k] = int(v)
			}
		}
		got := map[string]int{}
		for k, vs := range back {
			if k == "expand" {
				continue
			}
			rel, ok := strings.CutPrefix(k, "expand_limit[")
			if !ok || !strings.HasSuffix(rel, "]") || strings.ContainsAny(rel[:len(rel)-1], "[]") || len(vs) != 1 {
				t.Fatalf("stray key %q=%q", k, vs)
			}
			n, err := strconv.Atoi(vs[0])
			if err != nil {
				t.Fatalf("%s=%q is not an integer", k, vs[0])
			}
			got[rel[:len(rel)-1]] = n
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("expand_limit round trip of %s: got %v want %v", rawLimits, got, want)
		}
	})
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// toolArgTypes decodes a tool's arguments the way dispatch does.
var toolArgTypes = map[string]func(json.RawMessage) error{
	"schema":            decodeOnly[schemaArgs],
	"query_records":     decodeOnly[queryArgs],
	"aggregate":         decodeOnly[aggregateArgs],
	"search":            decodeOnly[searchArgs],
	"fetch":             decodeOnly[fetchArgs],
	"read_record_field": decodeOnly[fieldArgs],
}

func decodeOnly[In any](raw json.RawMessage) error {
	_, err := decodeThen(raw, func(In) (*mcp.CallToolResult, error) { return nil, nil })
	return err
}

// FuzzToolArguments: for every tool in surface(), no panic; check agrees
// with the whole advertised input schema (accepts exactly what a JSON
// Schema validator accepts); a rejection is a typed error with a known
// code; and arguments check accepts always decode into the tool's inputs.
func FuzzToolArguments(f *testing.F) {
	tools := surface()
	type compiled struct {
		name  string
		check *argSchema
		whole *jsonschema.Resolved
	}
	var all []compiled
	for _, ts := range tools {
		a, err := compileArgs(ts.schema)
		if err != nil {
			f.Fatal(err)
		}
		var root jsonschema.Schema
		if err := json.Unmarshal([]byte(ts.schema), &root); err != nil {
			f.Fatal(err)
		}
		r, err := root.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, compiled{ts.name, a, r})
	}
	for i, s := range []string{
		`{}`, `{"stream":"messages","detail":"full"}`,
		`{"stream":"messages","connection_id":"cin_work","fields":["subject"],"filter":{"label":"inbox","sent_at":{"gte":"2026-01-01"}},"limit":100,"cursor":"c1","order":"desc","count":"exact","expand":["thread"],"expand_limit":{"thread":3}}`,
		`{"stream":"messages","metric":"count","group_by":"label","limit":5}`,
		`{"q":"budget","streams":["messages"],"limit":4}`,
		`{"id":"cin_work/messages:m007","fields":["body"]}`,
		`{"id":"cin_work/messages:m007","field_path":"body","cursor":"120","limit_chars":16384}`,
		`{"stream":"messages","limit":1.0}`, `{"stream":"messages","limit":101}`, `{"stream":1}`,
		`{"id":"x","field_path":"body","offset_chars":1e300}`, `{"stream":"m","expand":["x"],"expand_limit":{"x":2.0}}`,
		`{"q":""}`, `{"bogus":1}`, `[]`, `"x"`, `null`, `{"a":`,
		`{"stream":"m","filter":"filter[a]=1"}`, `{"":1}`, `{"a\nb":1}`, `{"detail":"x\ny"}`, `{"stream":"m","order":"a\r\nb"}`, `{"stream":"m","expand_limit":{"x":0}}`, `{"id":"x","field_path":"b","cursor":"-1"}`,
	} {
		for j := range all {
			_ = i
			f.Add(uint8(j), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		c := all[int(which)%len(all)]
		te := c.check.check(raw)
		var inst any
		jsonErr := json.Unmarshal(raw, &inst)
		trimmed := strings.TrimSpace(string(raw))
		absent := trimmed == "" || trimmed == "null"
		if te != nil {
			switch te.Code {
			case "invalid_arguments", "unknown_argument", "missing_argument", "invalid_filter", "invalid_expand":
			default:
				t.Fatalf("%s: unknown code %s", c.name, te.Code)
			}
			if te.Message == "" || (te.Param == "" && te.Code != "invalid_arguments" && !strings.Contains(string(raw), `""`)) {
				t.Fatalf("%s: rejection without message or param: %+v", c.name, te)
			}
			if strings.ContainsAny(te.Message, "\r\n") {
				t.Fatalf("%s: the message is not one line: %q", c.name, te.Message)
			}
			if !utf8.ValidString(te.Message) && utf8.Valid(raw) {
				t.Fatalf("%s: message is not UTF-8: %q", c.name, te.Message)
			}
			if jsonErr == nil && !absent {
				if err := c.whole.Validate(inst); err == nil {
					t.Fatalf("%s: check rejects %s (%s) but the advertised schema accepts it", c.name, raw, te.Message)
				}
			}
			return
		}
		if !absent {
			if jsonErr != nil {
				t.Fatalf("%s: check accepts non-JSON %q", c.name, raw)
			}
			if err := c.whole.Validate(inst); err != nil {
				t.Fatalf("%s: check accepts %s but the advertised schema rejects it: %v", c.name, raw, err)
			}
		}
		if err := toolArgTypes[c.name](raw); err != nil {
			// Only an integer beyond Go's int may fail, and then as a typed
			// error naming the argument (offset_chars has no maximum).
			var te *toolError
			if !errors.As(err, &te) || te.Code != "invalid_arguments" || te.Param == "" || !strings.Contains(te.Message, "out of range") {
				t.Fatalf("%s: check accepts %s but decoding fails: %v", c.name, raw, err)
			}
		}
	})
}
