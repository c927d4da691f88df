package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S050 inspects large and binary fields, on the target's data and on the
// evidence-ladder fixture (notes past any single read, blobs and base64
// bodies): each shows its size and media type when known, as metadata
// (clause 1), with an explicit read or export continuation that works (2),
// and a cut value is labelled as cut, never passed off as complete (3).
// The record previews, fetch's document text and large JSON fields are
// judged; values and sizes are found by value, cut marks in any common
// form.
var s050 = &Check{ID: "S050", Slug: "large-binary-escalation", Mode: ModeBBD, Tools: []string{"query_records", "fetch"}, Run: func(t *T) {
	judged := 0
	for v := range probe.EvidenceViews(t) {
		if large, ok := longestRecord(v); ok {
			judged++
			largePreview(t, v, large)
			largeFetchText(t, v, large)
		}
		if bin, ok := probe.ScanRecords(v, func(r probe.ScannedRecord) bool {
			return slices.ContainsFunc(probe.MapValues(r.Data), probe.LooksBinary)
		}); ok {
			judged++
			binaryPreview(t, v, bin)
		}
	}
	if largeJSONField(t) {
		judged++
	}
	if judged == 0 {
		t.NotApplicable("no record of the target's grant holds a large text or a binary field")
	}
}}

// longestRecord is the sampled record with the longest text field over
// 4,096 characters.
func longestRecord(t *T) (probe.ScannedRecord, bool) {
	var best probe.ScannedRecord
	for _, r := range probe.SampleRecords(t) {
		if probe.LongestString(r.Data) > 4096 && probe.LongestString(r.Data) > probe.LongestString(best.Data) {
			best = r
		}
	}
	return best, best.Data != nil
}

// largePreview judges a large text field in its stream's record previews.
func largePreview(t, v *T, large probe.ScannedRecord) {
	field := probe.LongestField(large.Data)
	value := probe.String(large.Data[field])
	total := utf8.RuneCountInString(value)
	q := v.CallRoles("query_records", probe.Source{Stream: large.Stream, Conn: large.Conn}.Roles(dialect.Args{dialect.Fields: []string{field}, dialect.Limit: 25}))
	if q.IsError() {
		t.BlockedBy("S031", "query_records(fields) failed: %s", q.Describe())
		return
	}
	line := lineHolding(q.Text(), value)
	if line == "" {
		t.Clause(3, func() {
			t.Skipf("no preview line of %s shows the start of its %d-character %s", large.ID, total, field)
		})
		return
	}
	t.Clause(3, func() {
		t.Assert(strings.Contains(probe.Plain(q.Text()), probe.Plain(value)) || probe.CutLabel.MatchString(line),
			"the preview of the %d-character field %s of %s is cut; it must say so, never pass for complete: %s", total, field, large.ID, clipText(line, 300))
	})
	t.Clause(1, func() {
		t.Assert(probe.ShowsSize(q.Text()+string(q.Raw), total), "the preview of the %d-character field %s of %s must show its size", total, field, large.ID)
	})
	t.Clause(2, func() { followFieldContinuation(t, v, q.Tool, q.Text(), field, large.ID) })
}

// largeFetchText judges fetch's document text when it is a large field's
// text: whole, or bounded and labelled as cut in both text and metadata,
// with a continuation that works (issue 20: a cut labelled only in
// metadata, or only in text, is silent to one of its readers).
func largeFetchText(t, v *T, large probe.ScannedRecord) {
	f := v.CallRoles("fetch", dialect.Args{dialect.RecordID: large.ID})
	if f.IsError() {
		t.BlockedBy("S029", "fetch of %s failed: %s", large.ID, f.Describe())
		return
	}
	doc := f.Structured()
	text := probe.String(doc["text"])
	field := ""
	for k, val := range large.Data {
		if s, ok := val.(string); ok && utf8.RuneCountInString(s) > 4096 && len(text) >= 60 && strings.HasPrefix(s, text[:60]) {
			field = k
		}
	}
	if field == "" {
		return // the document's text is not a large field's
	}
	value := probe.String(large.Data[field])
	total := utf8.RuneCountInString(value)
	if strings.Contains(text, value) {
		t.Clause(3, func() { t.Assert(true, "") })
		return
	}
	meta, _ := json.Marshal(doc["metadata"])
	t.Clause(3, func() {
		tail := text[max(0, len(text)-600):]
		t.Assert(probe.CutLabel.MatchString(tail), "fetch of %s cuts the %d-character %s; its text must say so where it ends: %q", large.ID, total, field, clipText(tail, 200))
		t.Assert(probe.CutLabel.MatchString(string(meta)) || probe.ShowsSize(string(meta), total), "fetch of %s cuts the %d-character %s; its metadata must say so too (a cut flag or the whole size): %s", large.ID, total, field, clipText(string(meta), 300))
	})
	t.Clause(1, func() {
		t.Assert(probe.ShowsSize(text+string(meta), total), "fetch of %s cuts the %d-character %s; it must show the whole size", large.ID, total, field)
	})
	t.Clause(2, func() { followFieldContinuation(t, v, "fetch", text, field, large.ID) })
}

// binaryPreview judges a record's binary fields in its stream's previews:
// each named, with its media type when the data says it, and its route
// when it has one.
func binaryPreview(t, v *T, rec probe.ScannedRecord) {
	q := v.CallRoles("query_records", probe.Source{Stream: rec.Stream, Conn: rec.Conn}.Roles(dialect.Args{dialect.Limit: 5}))
	if q.IsError() {
		t.BlockedBy("S031", "query_records failed: %s", q.Describe())
		return
	}
	for _, name := range slices.Sorted(maps.Keys(rec.Data)) {
		val := rec.Data[name]
		if !probe.LooksBinary(val) {
			continue
		}
		obj, _ := val.(map[string]any)
		t.Clause(1, func() {
			t.Assert(strings.Contains(q.Text(), name) && binaryWordRe.MatchString(q.Text()), "the preview must show the binary field %s of %s as binary metadata", name, rec.ID)
			if mt := probe.String(obj["mime_type"]); mt != "" {
				t.Assert(strings.Contains(q.Text(), mt), "the preview must show the media type %s of %s (%s)", mt, name, rec.ID)
			}
		})
		if route := probe.String(obj["fetch_url"]); route != "" {
			t.Clause(2, func() {
				t.Assert(strings.Contains(q.Text(), route), "the preview must give %s's export route %s (%s)", name, route, rec.ID)
			})
		}
	}
}

// lineHolding is the text line that shows the start of value.
func lineHolding(text, value string) string {
	head := probe.Plain(clipRunes(value, 40))
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(probe.Plain(line), head) {
			return line
		}
	}
	return ""
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

// followFieldContinuation follows the continuation a result gives for a
// cut field: a read_record_field (or fetch) call in text that names the
// field; it must work and go on from where the text stopped.
func followFieldContinuation(t, v *T, tool, text, field, id string) {
	for _, k := range probe.ContinuationsIn(text) {
		if !namesField(t, k, field) {
			continue
		}
		r := v.Follow(k)
		t.Assert(!r.IsError(), "the continuation %s %v for %s of %s must work: %s", k.Tool, k.Args, field, id, r.Describe())
		return
	}
	t.Fail("%s cuts %s of %s but its text gives no read_record_field or fetch continuation for it", tool, field, id)
}

var jsonMarkerRe = regexp.MustCompile(`(?i)json`)

// largeJSONField judges JSON object fields (not blob references, which
// are binary) over the preview bound on a fork
// whose records hold them at two sizes: one that fetch(fields) can return
// whole and one beyond any single read. Each marker shows the size and the
// media type, and its continuation, followed, yields the whole value.
func largeJSONField(t *T) bool {
	if !t.Target.Has(CapFixture) {
		return false
	}
	fx := t.BaseFixture()
	var stream, conn, field string
	for _, st := range fx.Streams {
		for _, f := range st.Fields {
			blobs := slices.ContainsFunc(st.Records, func(r fakers.Record) bool { return probe.LooksBinary(r.Data[f.Name]) })
			if f.Type == "object" && field == "" && len(st.Records) > 0 && !blobs {
				stream, conn, field = st.Name, st.Records[0].ConnectionID, f.Name
				for i, r := range st.Records {
					r.Data[field] = bigObject(i, 2000)
				}
			}
		}
	}
	if field == "" {
		return false
	}
	on := t.On(t.Fork(fx))
	args := dialect.Args{dialect.Stream: stream, dialect.Connection: conn, dialect.Fields: []string{field}, dialect.Limit: 5}
	shown := map[string]int{}
	for i, r := range probe.Records(on.CallRoles("query_records", args)) {
		shown[probe.String(r["id"])] = i
	}
	// Every other record of the first page grows past any single read.
	on.RS().Update(func(fx *fakers.Fixture) {
		for _, st := range fx.StreamsNamed(stream) {
			for i, r := range st.Records {
				if at, ok := shown[r.ID]; ok && r.ConnectionID == conn && at%2 == 0 {
					r.Data[field] = bigObject(i, 20000)
				}
			}
		}
	})
	q := on.CallRoles("query_records", args)
	if q.IsError() {
		t.BlockedBy("S031", "query_records(fields) failed: %s", q.Describe())
		return true
	}
	want := map[string]any{}
	for _, r := range probe.Records(q) {
		d, _ := r["data"].(map[string]any)
		want[probe.ShownID(q, probe.String(r["id"]))] = d[field]
	}
	for _, line := range strings.Split(q.Text(), "\n") {
		at := strings.Index(line, `"`+field+`":`)
		m := probe.EvidenceID.FindStringSubmatch(line)
		if at < 0 || m == nil {
			continue
		}
		v, ok := want[strings.TrimRight(m[1], ".,;")]
		if !ok {
			continue
		}
		marker := clipText(line[at:], 120)
		size := utf8.RuneCountInString(probe.CompactJSON(v))
		t.Clause(1, func() {
			// The marker may be clipped with its line: the size and media
			// type may also be on the field's continuation line.
			t.Assert(jsonMarkerRe.MatchString(marker), "the preview of a %d-character JSON field must name its media type: %s", size, marker)
			t.Assert(probe.ShowsSize(marker, size) || probe.ShowsSize(q.Text()+string(q.Raw), size), "the preview of a %d-character JSON field must show its size: %s", size, marker)
		})
	}
	followed := 0
	for _, c := range probe.ContinuationsIn(q.Text()) {
		id := probe.String(probe.RoleOf(t, c, dialect.RecordID))
		v, ok := want[id]
		if !ok || !namesField(t, c, field) {
			continue
		}
		followed++
		t.Clause(2, func() {
			got, err := readWholeJSON(on, c, field)
			if t.Assert(err == nil, "following %s %v must yield the whole JSON field %s: %v", c.Tool, c.Args, field, err) {
				t.Assert(reflect.DeepEqual(got, v), "following %s %v must yield the whole JSON field %s of %s", c.Tool, c.Args, field, id)
			}
		})
	}
	t.Clause(2, func() {
		t.Assert(followed >= 2, "each large JSON field must come with a continuation in text:\n%s", clipText(q.Text(), 800))
	})
	return true
}

// readWholeJSON follows a continuation for a JSON field to its end: a fetch
// document whose text is the projection, or read_record_field windows.
func readWholeJSON(t *T, c probe.Continuation, field string) (any, error) {
	var text strings.Builder
	for step := 0; step < 20; step++ {
		r := t.Follow(c)
		if r.IsError() {
			return nil, fmt.Errorf("%s failed: %s", c.Tool, r.Describe())
		}
		if c.Tool == "fetch" {
			var doc struct{ Text string }
			if err := json.Unmarshal([]byte(r.Text()), &doc); err != nil {
				return nil, fmt.Errorf("fetch text is not the document: %w", err)
			}
			var proj map[string]any
			if err := json.Unmarshal([]byte(doc.Text), &proj); err != nil {
				return nil, fmt.Errorf("fetch(fields:[%s]) text is not the field as JSON: %s", field, clipText(doc.Text, 200))
			}
			return proj[field], nil
		}
		w, _ := r.Structured()["window"].(map[string]any)
		text.WriteString(probe.String(w["text"]))
		c = probe.Continuation{}
		for _, n := range probe.ContinuationsIn(r.Text()) {
			if n.Tool == "read_record_field" && probe.NextLabel.MatchString(n.At) {
				c = n
			}
		}
		if c.Tool == "" {
			break
		}
	}
	var v any
	if err := json.Unmarshal([]byte(text.String()), &v); err != nil {
		return nil, fmt.Errorf("the windows of %s do not join into the whole JSON value: %w", field, err)
	}
	return v, nil
}

func bigObject(seed, chars int) map[string]any {
	m := map[string]any{}
	for i, size := 0, 2; size < chars; i++ { // size: the compact JSON's bytes, "{}" and each "k":"v",
		k, v := fmt.Sprintf("k%04d", i), fmt.Sprintf("value %d of record %d", i, seed)
		m[k] = v
		size += len(k) + len(v) + 6
	}
	return m
}

// namesField reports a continuation that reads field: a field read of it,
// or a projection to it alone.
func namesField(t *T, k probe.Continuation, field string) bool {
	return probe.String(probe.RoleOf(t, k, dialect.Field)) == field || fmt.Sprint(probe.RoleOf(t, k, dialect.Fields)) == "["+field+"]"
}
