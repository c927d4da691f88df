package probe

import (
	"encoding/json"
	"iter"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// An EvidenceLine is one visible evidence excerpt of a search result.
type EvidenceLine struct {
	ID, FieldPath, Preview, Line string
}

// EvidenceField and EvidenceID read an evidence line's field path and
// record id in the key=value notation.
var (
	EvidenceField = regexp.MustCompile(`field_path=(\S+)`)
	EvidenceID    = regexp.MustCompile(`\bid=(\S+)`)
	evPreviewRe   = regexp.MustCompile(`snippet="((?:[^"\\]|\\.)*)"`)
)

// EvidenceLines reads the visible evidence excerpts of a search text: lines
// that name a field_path and carry a highlighted preview.
func EvidenceLines(text string) []EvidenceLine {
	var out []EvidenceLine
	for _, line := range strings.Split(text, "\n") {
		f := EvidenceField.FindStringSubmatch(line)
		p := evPreviewRe.FindStringSubmatch(line)
		if f == nil || p == nil {
			continue
		}
		e := EvidenceLine{FieldPath: f[1], Line: line}
		_ = json.Unmarshal([]byte(`"`+p[1]+`"`), &e.Preview)
		if m := EvidenceID.FindStringSubmatch(line); m != nil {
			e.ID = strings.TrimRight(m[1], ".,;")
		}
		out = append(out, e)
	}
	return out
}

// HitsWithEvidence are the hits whose structuredContent carries proven
// evidence excerpts.
func HitsWithEvidence(t *conformance.T, c *conformance.Call) []Hit {
	var out []Hit
	for _, h := range Hits(t, c) {
		if ex, _ := h.Raw["evidence_excerpts"].([]any); len(ex) > 0 {
			out = append(out, h)
		}
	}
	return out
}

// ScannedRecord is a record read back from the target: its fetch id, stream,
// connection and canonical data.
type ScannedRecord struct {
	ID, Stream, Conn string
	Data             map[string]any
}

// ScanRecords reads up to 25 records from each of the first streams of the
// index and returns the first that keep accepts.
func ScanRecords(t *conformance.T, keep func(ScannedRecord) bool) (ScannedRecord, bool) {
	for _, r := range SampleRecords(t) {
		if keep(r) {
			return r, true
		}
	}
	return ScannedRecord{}, false
}

// SampleRecords is the target's record sample, read once per target.
func SampleRecords(t *conformance.T) []ScannedRecord {
	return conformance.Discover(t, "record-sample", func() []ScannedRecord {
		var out []ScannedRecord
		eachPage(t, 25, func(s Source, c *conformance.Call) {
			for _, r := range Records(c) {
				data, _ := r["data"].(map[string]any)
				conn := FirstNonEmpty(String(r["connection_id"]), s.Conn)
				// The id the target shows for the record: labelled as an id,
				// else the longest token of its text that holds the RS id,
				// else that id as the target's structuredContent gives it.
				rid := String(r["id"])
				rec := ScannedRecord{ID: ShownID(c, rid), Stream: s.Stream, Conn: conn, Data: data}
				if rec.ID == "" {
					content := recordWords(r)
					toks := slices.DeleteFunc(IDTokens(c.Text(), rid), func(tok string) bool { return slices.Contains(content, tok) })
					rec.ID = FirstNonEmpty(append(toks, rid)...)
				}
				if data != nil {
					out = append(out, rec)
				}
			}
		})
		return out
	})
}

var base64ShapeRe = regexp.MustCompile(`^[A-Za-z0-9+/]{256,}={0,2}$`)

// LooksBinary is mcpcheck's own value-shape test: a long base64 string, or
// a blob reference object.
func LooksBinary(v any) bool {
	switch x := v.(type) {
	case string:
		return len(x)%4 == 0 && base64ShapeRe.MatchString(x)
	case map[string]any:
		_, id := x["blob_id"]
		_, u := x["fetch_url"]
		return id || u
	}
	return false
}

// labelledIDRe finds an id handed out in text: id=X, "id":"X" or id: X.
var labelledIDRe = regexp.MustCompile(`\bid"?\s*[=:]\s*"?([^\s",;{}]+)`)

// ShownID finds, by value, the id a read answer shows for the record
// whose RS id is rid: an object of its structuredContent beside the RS
// envelope that names rid as its record_id, or an id token on the text
// line that shows rid. "" when the answer shows none.
func ShownID(c *conformance.Call, rid string) string {
	if rid == "" {
		return ""
	}
	sc := c.Structured()
	for k, v := range sc {
		if k == "data" {
			continue
		}
		found := ""
		EachObject(v, func(m map[string]any) {
			if found == "" && String(m["record_id"]) == rid && String(m["id"]) != "" && String(m["id"]) != rid {
				found = String(m["id"])
			}
		})
		if found != "" {
			return found
		}
	}
	for _, line := range strings.Split(c.Text(), "\n") {
		if !strings.Contains(line, `"`+rid+`"`) && !strings.Contains(line, "="+rid) {
			continue
		}
		for _, m := range labelledIDRe.FindAllStringSubmatch(line, -1) {
			if id := strings.TrimRight(m[1], ".,;"); id != rid {
				return id
			}
		}
	}
	return ""
}

// EachObject calls f on every JSON object within v, outermost first.
func EachObject(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, e := range x {
			EachObject(e, f)
		}
	case []any:
		for _, e := range x {
			EachObject(e, f)
		}
	}
}

// EvidenceView is t on a fork serving the evidence-ladder fixture, whose
// data has every shape the evidence scenarios are about (long primary
// texts, undeclared text-like fields, binary fields with and without a
// blob route, pdpp:// handles in records), with that fixture. A target
// that cannot fork gives t on its own data, and a nil fixture.
func EvidenceView(t *conformance.T) (*conformance.T, *fakers.Fixture) {
	if !t.Target.Has(conformance.CapFixture) {
		return t, nil
	}
	fx, err := conformance.LoadFixture(fakers.EvidenceFixture)
	if err != nil {
		t.Skipf("load the %s fixture: %v", fakers.EvidenceFixture, err)
	}
	return t.On(t.Fork(fx)), fx
}

// EvidenceViews yields t, then the evidence-ladder fork of it when the
// target takes fixtures: the views a check judges. The fork opens only
// after t is judged, since a controlled URL target's fork replaces the
// data its RS serves.
func EvidenceViews(t *conformance.T) iter.Seq[*conformance.T] {
	return func(yield func(*conformance.T) bool) {
		if !yield(t) {
			return
		}
		if ev, fx := EvidenceView(t); fx != nil {
			yield(ev)
		}
	}
}

// Plain is text as a reader compares it: highlight tags and common
// entities gone, whitespace folded, lower case.
func Plain(s string) string {
	s = Entities.Replace(HighlightTag.ReplaceAllString(s, ""))
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// DeepEvidenceSearch searches the evidence fork for a phrase that occurs
// deep inside its longest primary text, found by value in the fixture:
// the fork, the search, and that text. A nil call when the target takes no
// fixture, or the fixture has no such phrase.
func DeepEvidenceSearch(t *conformance.T) (*conformance.T, *conformance.Call, string) {
	ev, fx := EvidenceView(t)
	if fx == nil {
		return t, nil, ""
	}
	whole := ""
	for _, st := range fx.Streams {
		for _, f := range st.Fields {
			if f.Role != "primary-text" {
				continue
			}
			for _, r := range st.Records {
				if v, _ := r.Data[f.Name].(string); len(v) > len(whole) {
					whole = v
				}
			}
		}
	}
	// The phrase must sit past any preview bound to exercise a long text.
	if i := strings.Index(whole, fakers.EvidencePhrase); i < 4096 {
		return ev, nil, ""
	}
	return ev, ev.CallRoles("search", dialect.Args{dialect.Query: fakers.EvidencePhrase, dialect.Limit: 10}), whole
}
