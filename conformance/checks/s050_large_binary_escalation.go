package checks

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// S050 inspects large and binary fields of the grant, by their fixture
// values, on the target's data and on the evidence-ladder fixture (notes
// past any single read, blobs and base64 bodies): each shows its size and
// media type when known, as metadata (clause 1), with an explicit read or
// export continuation that works to the end (2), and a cut value is not
// passed off as complete (3): a cut mark read, or else the cut answer
// reads differently from a whole one once the values are set aside. The
// record previews, fetch's document text and large JSON fields are judged.
var s050 = &Check{ID: "S050", Slug: "large-binary-escalation", Mode: ModeBBD, Tools: []string{"query_records", "fetch"}, Run: func(t *T) {
	if probe.FixtureRecords(t) == nil {
		t.SkipFor(CapControlledRS, "finding large and binary fields by value needs the records mcpcheck's fixture RS serves")
	}
	judged := 0
	for v := range probe.EvidenceViews(t) {
		if large, ok := largeField(v); ok {
			judged++
			largePreview(t, v, large)
			largeFetchText(t, v, large)
		}
		for _, rec := range binaryRecords(v) {
			judged++
			binaryPreview(t, v, rec)
		}
	}
	if largeJSONField(t) {
		judged++
	}
	if judged == 0 {
		t.NotApplicable("no record of the target's grant holds a large text or a binary field")
	}
}}

// largeField is a text field over 4,096 characters of a record of the
// grant, by the fixture; its handle is looked for when fetch needs one.
func largeField(t *T) (probe.FieldRead, bool) {
	var best probe.FieldRead
	for _, r := range probe.FixtureRecords(t) {
		f := probe.LongestField(r.Data)
		if n := probe.LongestString(r.Data); n > 4096 && n > utf8.RuneCountInString(best.Value) && probe.InGrant(t, r.Ref) {
			best = probe.FieldRead{Rec: r, Field: f, Value: probe.String(r.Data[f])}
		}
	}
	return best, best.Field != ""
}

// largePreview judges a large text field in its stream's record previews,
// asked for that field alone.
func largePreview(t, v *T, large probe.FieldRead) {
	total := utf8.RuneCountInString(large.Value)
	src := probe.Source{Stream: large.Rec.Ref.Stream, Conn: large.Rec.Ref.Conn}
	q := v.CallRoles("query_records", src.Roles(dialect.Args{dialect.Fields: []string{large.Field}, dialect.Limit: 25}))
	if q.IsError() {
		t.BlockedBy("S031", "query_records(fields) failed: %s", q.Describe())
		return
	}
	line := lineHolding(q.Text(), large.Value)
	if line == "" {
		t.Clause(3, func() {
			t.Skipf("no preview line of %s shows the start of its %d-character %s", large.Rec.Ref, total, large.Field)
		})
		return
	}
	content := append(probe.FixtureStrings(v), large.Value, large.Handle)
	t.Clause(3, func() {
		if !probe.ShownIn(q.Text(), large.Value) {
			judgeCutValueFlags(t, v, q, large.Value, otherFields(large), fmt.Sprintf("the preview of %s's %s", large.Rec.Ref, large.Field))
		}
		if probe.ShownIn(q.Text(), large.Value) || probe.CutLabel.MatchString(line) {
			t.Held()
			return
		}
		// A line of a value shown whole beside it must read differently.
		whole := wholeLine(v, q, large)
		if whole == "" {
			t.Inconclusive("mcpcheck reads no cut mark on the preview of %s's %s, and the page shows no whole value of it to contrast with: %s", large.Rec.Ref, large.Field, clipText(line, 200))
			return
		}
		t.Differs(conformance.Shown("the preview line of "+large.Rec.Ref.String(), line), conformance.Shown("the preview line of a whole value", whole), content,
			"the preview of the %d-character field %s of %s is cut; it must say so, never pass for complete", total, large.Field, large.Rec.Ref)
	})
	t.Clause(1, func() {
		t.Shows(q, read.Size(total), "the preview of the %d-character field %s of %s must show its size", total, large.Field, large.Rec.Ref)
	})
	t.Clause(2, func() { followFieldContinuation(t, v, q, large) })
}

// otherFields are the names of the record's fields other than the large
// one: a flag named for one of them is not about the large field.
func otherFields(large probe.FieldRead) []string {
	var out []string
	for k := range large.Rec.Data {
		if k != large.Field {
			out = append(out, k)
		}
	}
	return out
}

// wholeLine is the preview line of another record of q whose value of the
// field it shows whole, or "".
func wholeLine(t *T, q *Call, large probe.FieldRead) string {
	for _, ref := range probe.RecordsShown(t, q, large.Rec.Ref.Stream) {
		rec, _ := probe.FindRecord(t, ref)
		if s, ok := rec.Data[large.Field].(string); ok && ref != large.Rec.Ref && len(s) >= 8 && probe.ShownIn(q.Text(), s) {
			return lineHolding(q.Text(), s)
		}
	}
	return ""
}

// largeFetchText judges fetch's document text when it is a large field's
// text: whole, or bounded and not passed off as complete in text or
// metadata, with a continuation that works.
func largeFetchText(t, v *T, large probe.FieldRead) {
	src := probe.Source{Stream: large.Rec.Ref.Stream, Conn: large.Rec.Ref.Conn}
	if page := v.CallRoles("query_records", src.Roles(dialect.Args{dialect.Limit: 100})); !page.IsError() {
		large.Handle, large.Page = probe.HandlesInText(v, page, []probe.RecordRef{large.Rec.Ref})[large.Rec.Ref], page
	}
	if large.Handle == "" {
		t.BlockedBy("S034", "no query_records text shows a handle fetch takes for %s", large.Rec.Ref)
	}
	f := v.CallRoles("fetch", dialect.Args{dialect.RecordID: large.Handle})
	if f.IsError() {
		t.BlockedBy("S029", "fetch of %s failed: %s", large.Rec.Ref, f.Describe())
		return
	}
	doc := f.Structured()
	text := probe.String(doc["text"])
	total := utf8.RuneCountInString(large.Value)
	t.Clause(1, func() { judgeStatedTotal(t, f, large.Field, total) })
	if !probe.PartShown(text, large.Value) {
		return // the document's text is not this field's
	}
	if probe.ShownIn(text, large.Value) {
		t.Clause(3, func() { t.Held() })
		return
	}
	t.Clause(3, func() {
		judgeCutValueFlags(t, v, f, large.Value, otherFields(large), fmt.Sprintf("fetch's text of %s's %s", large.Rec.Ref, large.Field))
		tail := text[max(0, len(text)-600):]
		meta := probe.CompactJSON(doc["metadata"])
		if probe.CutLabel.MatchString(tail) && (probe.CutLabel.MatchString(meta) || read.Find([]string{meta}, read.Size(total)).Exact) {
			t.Held()
			return
		}
		// The document of a record whose text is whole must read
		// differently, its values set aside.
		small, ok := probe.FindFieldRead(v, func(k, s string) bool {
			return k == large.Field && utf8.RuneCountInString(s) < 2000 && strings.Count(s, " ") > 3
		})
		if !ok {
			t.Inconclusive("mcpcheck reads no cut mark in fetch's cut text of %s, and has no whole document to contrast it with", large.Rec.Ref)
			return
		}
		w := v.CallRoles("fetch", dialect.Args{dialect.RecordID: small.Handle})
		if w.IsError() {
			t.Inconclusive("a fetch to contrast the cut document with failed: %s", w.Describe())
			return
		}
		t.Differs(f, w, append(probe.FixtureStrings(v), large.Value, small.Value, large.Handle, small.Handle),
			"fetch of %s cuts the %d-character %s; it must say so, in text and metadata, never pass for complete: it reads as a whole document does", large.Rec.Ref, total, large.Field)
	})
	t.Clause(1, func() {
		t.Shows(f, read.Size(total), "fetch of %s cuts the %d-character %s; it must show the whole size", large.Rec.Ref, total, large.Field)
	})
	t.Clause(2, func() {
		conts := slices.DeleteFunc(documentCalls(doc), func(c probe.Continuation) bool { return c.Tool != "read_record_field" && c.Tool != "fetch" })
		if !t.AssertWith(len(conts) > 0, func() (conformance.Witness, error) {
			return conformance.AbsentAll(facts("read_record_field", "fetch"), conformance.Shown("fetch's document", probe.CompactJSON(doc)))
		},
			"fetch cuts %s of %s but its document gives no read_record_field or fetch continuation for it", large.Field, large.Rec.Ref) {
			return
		}
		followToEnd(t, v, conts[0], conformance.Shown("fetch's document", probe.CompactJSON(doc)), large, utf8.RuneCountInString(text))
	})
}

// judgeStatedTotal holds the size an answer states for a cut field to
// the fixture's (total characters): a total, size or length key of an
// object that names the field, in structuredContent, and a cut mark's
// "N of N" in text, which claims the shown part is all of it.
func judgeStatedTotal(t *T, f *Call, field string, total int) {
	in := conformance.Shown("the structuredContent of "+f.Describe(), probe.CompactJSON(f.Structured()))
	probe.EachObject(f.Structured(), func(m map[string]any) {
		if !namesField(m, field) {
			return
		}
		for k, v := range m {
			n, isNum := v.(float64)
			if !isNum || !totalKeyRe.MatchString(k) || partKeyRe.MatchString(k) || int(n) == total || int(n) <= 0 {
				continue
			}
			if float64(total)/n > 1.5 { // a byte count runs a little over the characters; a cut length far under
				fact := fmt.Sprintf("%q:%v", k, v)
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(fact, in) },
					"the answer states %s's size as %s=%v, but the field holds %d characters", field, k, v, total)
			}
		}
	})
	for _, m := range sameOfRe.FindAllStringSubmatch(f.Text(), -1) {
		if m[1] == m[2] {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 && float64(total)/float64(n) > 1.5 {
				t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(m[0], conformance.TextOf(f)) },
					"the text says %q of the cut %s, which holds %d characters: it claims the shown part is the whole", m[0], field, total)
			}
		}
	}
}

var (
	totalKeyRe = regexp.MustCompile(`(?i)total|size|length|chars|bytes`)
	partKeyRe  = regexp.MustCompile(`(?i)preview|shown|served|window|limit|offset|start|end|returned|clip|cut|max`)
	sameOfRe   = regexp.MustCompile(`\b(\d+)\s+(?:of|/)\s+(\d+)\b`)
)

// namesField reports whether an object is about field: the field's name
// as one of its keys' string values (field_path: body, attr: body).
func namesField(m map[string]any, field string) bool {
	for _, v := range m {
		if s, ok := v.(string); ok && s == field {
			return true
		}
	}
	return false
}

// followFieldContinuation judges the continuation a preview gives for a
// cut field: a call it prints that reads that field (a record's handle
// alone is no explicit read of one field); it must work and go on from
// where the preview stopped.
func followFieldContinuation(t, v *T, q *Call, large probe.FieldRead) {
	reads := fieldReadsFor(v, q, large.Rec)
	for _, fr := range reads {
		if fr.field == large.Field {
			followToEnd(t, v, fr.cont, conformance.TextOf(q), large, probe.ShownPrefix(q.Text(), large.Value))
			return
		}
	}
	t.AssertWith(false, func() (conformance.Witness, error) { return noFieldRead(q, large, reads) },
		"%s cuts %s of %s but its text gives no read_record_field continuation for it", q.Tool, large.Field, large.Rec.Ref)
}

// noFieldRead witnesses a text that prints no read of a cut field: the
// tool named nowhere in it, or every read it prints for the record (read
// in its own notation) of another field.
func noFieldRead(c *Call, large probe.FieldRead, reads []fieldRead) (conformance.Witness, error) {
	if len(reads) == 0 {
		return conformance.Absent(read.Text("read_record_field"), conformance.TextOf(c))
	}
	var fields []string
	for _, fr := range reads {
		fields = append(fields, fr.field)
	}
	return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a read_record_field call for " + large.Field + " of " + large.Rec.Ref.String(),
		In: []string{c.Describe()}, Excerpt: "the reads it prints for the record are of " + strings.Join(fields, ", ")}, nil
}

// followToEnd follows a field continuation: it must work and show the
// value past where it was cut, and the reads each answer prints after it
// must go on in the field to its end (readOnToTheEnd).
func followToEnd(t, v *T, c probe.Continuation, from conformance.Evidence, large probe.FieldRead, shown int) {
	r := followOnce(v, c)
	if !t.Works(r, from, "the continuation %s %v for %s of %s must work", c.Tool, c.Args, large.Field, large.Rec.Ref) {
		return
	}
	rest := []rune(large.Value)[min(shown, len([]rune(large.Value))):]
	if len(rest) == 0 {
		return
	}
	want := wordsHead(rest)
	if want == "" {
		return
	}
	if !t.AssertWith(probe.ShownIn(strings.Join(r.Strings(), "\n"), want) || probe.PartShown(r.Text(), string(rest)), func() (conformance.Witness, error) {
		return conformance.Undelivered(r, read.Text(want), from)
	}, "the continuation %s %v must go on in %s of %s where the text stopped", c.Tool, c.Args, large.Field, large.Rec.Ref) {
		return
	}
	if c.Tool != "read_record_field" || !probe.ShownIn(r.Text(), want) {
		return
	}
	served := probe.ShownPrefix(r.Text(), string(rest))
	// A window that stops well short of the field's end must not pass
	// for the whole of it (S050.3); near the end, where the prefix read
	// may miss a normalised character, nothing is claimed.
	if total := len([]rune(large.Value)); shown+served < total-200 {
		t.Clause(3, func() {
			judgeStateFlags(t, r, string(rest[:served]), false, fmt.Sprintf("the read of %s of %s from character %d, which shows it up to %d of %d", large.Field, large.Rec.Ref, shown, shown+served, total))
		})
	}
	readOnToTheEnd(t, v, r, large.Value, large.Field, shown+served)
}

// binaryRecords are the fixture records of the grant with a binary value
// (a blob reference or a long base64 string) that a page of five records
// of their source shows in text, each with that page.
func binaryRecords(t *T) []probe.FieldRead {
	pages := map[probe.Source]*Call{}
	var out []probe.FieldRead
	for _, r := range probe.FixtureRecords(t) {
		if !probe.InGrant(t, r.Ref) || !slices.ContainsFunc(probe.MapValues(r.Data), probe.LooksBinary) {
			continue
		}
		src := probe.Source{Stream: r.Ref.Stream, Conn: r.Ref.Conn}
		page, seen := pages[src]
		if !seen {
			if len(pages) == probe.MaxStreamProbes {
				break
			}
			page = t.CallRoles("query_records", src.Roles(dialect.Args{dialect.Limit: 5}))
			pages[src] = page
		}
		if page.IsError() {
			continue
		}
		if slices.Contains(probe.RecordsShownIn(t, page.Text(), r.Ref.Stream), r.Ref) || len(probe.HandlesInText(t, page, []probe.RecordRef{r.Ref})) > 0 {
			out = append(out, probe.FieldRead{Rec: r, Page: page})
		}
	}
	return out
}

// binaryPreview judges a record's binary fields in its stream's previews:
// each named as binary, with its media type when the data says it, and
// its route when it has one.
func binaryPreview(t, v *T, b probe.FieldRead) {
	rec, q := b.Rec, b.Page
	// The text about the record: from the line showing it to the line
	// showing the page's next record, in any layout.
	var others []string
	for _, r := range probe.RecordsShownIn(t, q.Text(), rec.Ref.Stream) {
		others = append(others, r.ID)
	}
	block := conformance.Shown("the text about "+rec.Ref.ID+" (from its line to the next record's)", probe.Segment(q.Text(), rec.Ref.ID, others))
	if len(block.Strings()[0]) == 0 {
		block = conformance.TextOf(q)
	}
	served := probe.RSRecord(v, rec.Ref)
	for _, name := range slices.Sorted(maps.Keys(rec.Data)) {
		val := rec.Data[name]
		if !probe.LooksBinary(val) {
			continue
		}
		obj, _ := val.(map[string]any)
		if s, ok := served[name].(map[string]any); ok {
			obj = s // the RS adds the blob's route where it serves it
		}
		t.Clause(1, func() {
			t.Shows(block, read.Text(name), "the preview must show the binary field %s of %s as metadata", name, rec.Ref)
			t.AssertWith(binaryWordRe.MatchString(q.Text()), func() (conformance.Witness, error) {
				return conformance.AbsentAll(facts("binary", "blob", "base64", "bytes", "not inline", "withheld", "omitted"), conformance.TextOf(q))
			}, "the preview must show the binary field %s of %s as binary metadata", name, rec.Ref)
			// By the record it describes: a media type elsewhere on the
			// page may be another blob's.
			if mt := probe.String(obj["mime_type"]); mt != "" {
				t.Shows(block, read.Text(mt), "the preview must show the media type %s of %s (%s)", mt, name, rec.Ref)
			}
			if n, err := strconv.Atoi(probe.String(obj["size_bytes"])); err == nil && n > 0 {
				t.Shows(block, read.Size(n), "the preview must show the size of %s of %s: %d bytes, as the data says", name, rec.Ref, n)
			}
		})
		if route := probe.String(obj["fetch_url"]); route != "" {
			t.Clause(2, func() {
				t.Shows(conformance.TextOf(q), read.Text(route), "the preview must give %s's export route %s (%s)", name, route, rec.Ref)
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

// largeJSONField judges JSON object fields (not blob references, which
// are binary) over the preview bound on a fork whose records hold them at
// two sizes: one that a read can return whole and one beyond any single
// read. Each record's preview shows the field's size and media type, and
// the continuation its text gives, followed to its end, shows every value
// of the object.
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
					if r.ConnectionID == conn {
						r.Data[field] = bigObject(i, 2000)
						if i%2 == 0 {
							r.Data[field] = bigObject(i, 20000)
						}
					}
				}
			}
		}
	}
	if field == "" {
		return false
	}
	on := t.On(t.Fork(fx))
	q := on.CallRoles("query_records", dialect.Args{dialect.Stream: stream, dialect.Connection: conn, dialect.Fields: []string{field}, dialect.Limit: 5})
	if q.IsError() {
		t.BlockedBy("S031", "query_records(fields) failed: %s", q.Describe())
		return true
	}
	judged := 0
	for _, ref := range probe.RecordsShown(on, q, stream) {
		rec, _ := probe.FindRecord(on, ref)
		obj, _ := rec.Data[field].(map[string]any)
		if obj == nil || strings.Contains(q.Text(), probe.CompactJSON(obj)) {
			continue
		}
		judged++
		size := utf8.RuneCountInString(probe.CompactJSON(obj))
		block := conformance.Shown("the text blocks showing "+ref.ID, probe.BlocksWith(q.Text(), ref.ID))
		t.Clause(1, func() {
			t.AssertWith(jsonMarkerRe.MatchString(block.Strings()[0]) || jsonMarkerRe.MatchString(q.Text()), func() (conformance.Witness, error) {
				return conformance.Absent(read.Text("json"), conformance.TextOf(q))
			},
				"the preview of a %d-character JSON field must name its media type", size)
			t.Shows(q, read.Size(size), "the preview of a %d-character JSON field must show its size", size)
		})
		t.Clause(2, func() { followJSON(t, on, q, rec, field, obj) })
		if judged == 2 {
			break
		}
	}
	return judged > 0
}

var jsonMarkerRe = regexp.MustCompile(`(?i)json`)

// followJSON follows the continuation a page's text gives for a record's
// JSON field to its end (at most 20 calls along printed next calls): the
// answers must show every value of the object.
func followJSON(t, on *T, q *Call, rec probe.FixtureRecord, field string, obj map[string]any) {
	var conts []probe.Continuation
	for _, fr := range fieldReadsFor(on, q, rec) {
		if fr.field == field {
			conts = append(conts, fr.cont)
		}
	}
	for _, c := range probe.ContinuationsIn(q.Text()) {
		if c.Tool == "fetch" && (probe.RefersTo(c, rec.Ref.ID) || namesByHandle(on, c, rec.Ref)) {
			conts = append(conts, c)
		}
	}
	if !t.AssertWith(len(conts) > 0, func() (conformance.Witness, error) {
		return conformance.AbsentAll(facts("read_record_field", "fetch"), conformance.TextOf(q))
	},
		"each large JSON field must come with a continuation in text (%s of %s)", field, rec.Ref) {
		return
	}
	values := probe.StringValues(obj)
	var seen []string
	c, from := conts[0], conformance.Evidence(conformance.TextOf(q))
	var last *Call
	for step := 0; step < 20 && c.Tool != ""; step++ {
		r := followOnce(on, c)
		if !t.Works(r, from, "following %s %v must yield the JSON field %s of %s", c.Tool, c.Args, field, rec.Ref) {
			return
		}
		seen = append(seen, strings.Join(r.Strings(), "\n"))
		last, from = r, conformance.TextOf(r)
		c = probe.Continuation{}
		for _, n := range probe.ContinuationsIn(r.Text()) {
			if n.Tool == "read_record_field" && probe.NextLabel.MatchString(n.At) {
				c = n
			}
		}
	}
	for _, v := range values {
		if !shownAcrossWindows(seen, v) {
			w, err := conformance.Undelivered(last, read.Text(v), from)
			t.FailWith(w, err, "following %s's continuation to its end must yield the whole JSON field %s of %s; %q never shows", q.Tool, field, rec.Ref, v)
			return
		}
	}
	t.Held()
}

// shownAcrossWindows reports whether a series of window answers shows v:
// whole in one, or cut at a window's edge, its head ending one answer's
// text of it (not followed there by the rest) and its tail starting the
// next's (not preceded there by the head).
func shownAcrossWindows(answers []string, v string) bool {
	for i, a := range answers {
		if strings.Contains(a, v) {
			return true
		}
		if i+1 == len(answers) {
			break
		}
		next := answers[i+1]
		for k := 1; k < len(v); k++ {
			if cutAfter(a, v[:k], v[k]) && cutBefore(next, v[k:], v[k-1]) {
				return true
			}
		}
	}
	return false
}

// cutAfter reports an occurrence of head in s not followed by c.
func cutAfter(s, head string, c byte) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], head)
		if i < 0 {
			return false
		}
		end := from + i + len(head)
		if end == len(s) || s[end] != c {
			return true
		}
		from += i + 1
	}
}

// cutBefore reports an occurrence of tail in s not preceded by c.
func cutBefore(s, tail string, c byte) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], tail)
		if i < 0 {
			return false
		}
		at := from + i
		if at == 0 || s[at-1] != c {
			return true
		}
		from += i + 1
	}
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
