package probe

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Identity by following: a handle is a string from a tool result that
// the target's own read tool accepts; which record it names is learnt by
// following it and matching the answer to the fixture, never by parsing
// its format or picking a key named like id.

// A RecordRef names one record of the fixture.
type RecordRef struct{ Conn, Stream, ID string }

// String is for reports only: a record is never called by it.
func (r RecordRef) String() string { return fmt.Sprintf("%s/%s:%s", r.Conn, r.Stream, r.ID) }

// A FixtureRecord is one record of the fixture the target reads, with the
// stream it belongs to.
type FixtureRecord struct {
	Ref    RecordRef
	Stream *fakers.Stream
	Data   map[string]any
}

// FixtureRecords are the records of the fixture the target's RS serves
// now, in stream and record order; the judgement is not exercised where
// mcpcheck controls no RS.
func FixtureRecords(t *conformance.T) []FixtureRecord {
	t.RS() // records are judged by value only against mcpcheck's own fixture
	return conformance.Discover(t, "fixture-records", func() []FixtureRecord {
		var out []FixtureRecord
		for _, s := range t.RS().Fixture().Streams {
			for _, r := range s.Records {
				out = append(out, FixtureRecord{RecordRef{r.ConnectionID, s.Name, r.ID}, s, r.Data})
			}
		}
		return out
	})
}

// FixtureRecord finds a fixture record by its reference.
func FindRecord(t *conformance.T, ref RecordRef) (FixtureRecord, bool) {
	for _, r := range FixtureRecords(t) {
		if r.Ref == ref {
			return r, true
		}
	}
	return FixtureRecord{}, false
}

// distinctiveValues are a record's string values long enough, and unique
// enough in the fixture, to recognise it by: at most their first 40
// characters, cut at a word's end as a text shows a preview, and found in
// no other record's values.
func distinctiveValues(recs []FixtureRecord, r FixtureRecord) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(r.Data)) {
		s, ok := r.Data[k].(string)
		if !ok || len(s) < 8 || LooksBinary(s) {
			continue
		}
		head := clipWords(s, 40)
		if len(head) >= 8 && !heldElsewhere(recs, r, head) {
			out = append(out, head)
		}
	}
	return out
}

// DistinctiveValues are the values that tell rec from the fixture's other
// records, as a preview shows them.
func DistinctiveValues(t *conformance.T, rec FixtureRecord) []string {
	return distinct(t)[rec.Ref]
}

// distinct is every fixture record's distinctive values, worked out once
// per target (each record is compared with every other).
func distinct(t *conformance.T) map[RecordRef][]string {
	return conformance.Discover(t, "distinctive-values", func() map[RecordRef][]string {
		recs := FixtureRecords(t)
		out := make(map[RecordRef][]string, len(recs))
		for _, r := range recs {
			out[r.Ref] = distinctiveValues(recs, r)
		}
		return out
	})
}

// heldElsewhere reports whether a record other than r holds v in one of
// its string values.
func heldElsewhere(recs []FixtureRecord, r FixtureRecord, v string) bool {
	for _, o := range recs {
		if o.Ref == r.Ref {
			continue
		}
		for _, x := range o.Data {
			if s, ok := x.(string); ok && strings.Contains(s, v) {
				return true
			}
		}
	}
	return false
}

// clipWords is s cut to at most n runes at the end of a word, so that it
// still stands as a token of a text that shows more of it.
func clipWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexAny(cut, " ,;.:"); i > n/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;.:")
}

// RecordIn names the fixture record an answer shows: the one whose id
// stands in it as a token, with its connection where records share the
// id, and whose own distinctive values it shows most; false when none is
// shown or two tie.
func RecordIn(t *conformance.T, c *conformance.Call) (RecordRef, bool) {
	return RecordInStrings(t, c.Strings())
}

// RecordInStrings is RecordIn on the strings of part of an answer (one
// hit's object, say).
func RecordInStrings(t *conformance.T, strs []string) (RecordRef, bool) {
	recs := FixtureRecords(t)
	joined := strings.Join(strs, "\n")
	type scored struct {
		ref   RecordRef
		score int
	}
	var best []scored
	for _, r := range recs {
		if !strings.Contains(joined, r.Ref.ID) || !read.ContainsToken(joined, r.Ref.ID) {
			continue
		}
		score := 1
		if read.Find(strs, read.Text(r.Ref.Conn)).Exact {
			score += 2
		}
		for _, v := range distinct(t)[r.Ref] {
			if strings.Contains(joined, v) && read.ContainsToken(joined, v) {
				score += 3
			}
		}
		best = append(best, scored{r.Ref, score})
	}
	if len(best) == 0 {
		return RecordRef{}, false
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].score > best[j].score })
	if len(best) > 1 && best[0].score == best[1].score {
		return RecordRef{}, false
	}
	return best[0].ref, true
}

// A Followed is what following one handle with fetch gave: the answer,
// and the fixture record it shows.
type Followed struct {
	Handle string
	Call   *conformance.Call
	Ref    RecordRef
	OK     bool // fetch took the handle and the answer shows one record
}

// Follow fetches a handle (once per target) and learns the record it
// names from the answer.
func Follow(t *conformance.T, handle string) Followed {
	return conformance.Discover(t, "follow:"+handle, func() Followed {
		f := Followed{Handle: handle}
		if !t.Target.Has(conformance.CapControlledRS) || !Serves(t.Target, "fetch") {
			return f
		}
		f.Call = t.CallRoles("fetch", dialect.Args{dialect.RecordID: handle})
		if f.Call.IsError() {
			return f
		}
		f.Ref, f.OK = RecordIn(t, f.Call)
		return f
	})
}

// HandleCandidates are the strings of an answer that may be handles of
// its records, best first: strings of a tool result (never an error,
// never a description), other than mcpcheck's own arguments, placeholder
// templates and the fixture's own content; those that hold a wanted
// record's id first, then opaque tokens, then bare ids.
func HandleCandidates(t *conformance.T, c *conformance.Call, want []RecordRef) []string {
	return handleCandidates(t, c, want, true)
}

func handleCandidates(t *conformance.T, c *conformance.Call, want []RecordRef, structured bool) []string {
	if c.IsError() {
		return nil
	}
	content := fixtureContent(t)
	var ids []string
	for _, w := range want {
		ids = append(ids, w.ID)
	}
	seen := map[string]bool{}
	var holding, opaque, bare []string
	add := func(s string) {
		s = strings.Trim(s, ".,;:\"'`()[]{}<>…")
		if s == "" || seen[s] || len(s) < 3 || len(s) > 512 || strings.ContainsAny(s, " \t\n<>") {
			return
		}
		seen[s] = true
		switch {
		case slices.Contains(ids, s):
			bare = append(bare, s)
		case content[s] || argValue(c, s):
		case slices.ContainsFunc(ids, func(id string) bool { return strings.Contains(s, id) }):
			holding = append(holding, s)
		case slices.ContainsFunc(ids, func(id string) bool { return read.Find([]string{s}, read.Text(id)).Seen() }):
			// An opaque token that decodes to hold the id comes first; which
			// record it names is still learnt by following it.
			holding = append(holding, s)
		case len(s) >= 12 && strings.ContainsAny(s, "0123456789"):
			opaque = append(opaque, s)
		}
	}
	for _, tok := range idTokenRe.FindAllString(c.Text(), -1) {
		if _, v, ok := strings.Cut(tok, "="); ok && !strings.HasPrefix(tok, "pdpp:") {
			tok = v
		}
		add(tok)
	}
	if structured {
		for _, s := range StringValues(c.Structured()) {
			add(s)
		}
	}
	sort.SliceStable(holding, func(i, j int) bool { return len(holding[i]) > len(holding[j]) })
	return slices.Concat(holding, opaque, bare)
}

// argValue reports whether s is a value mcpcheck itself sent in the call.
func argValue(c *conformance.Call, s string) bool {
	for _, v := range c.Args {
		if fmt.Sprint(v) == s {
			return true
		}
	}
	return false
}

// fixtureContent is every data value, field name, stream name, connection
// id, connector key and label of the fixture: what a handle is not (a
// record's own id may be).
func fixtureContent(t *conformance.T) map[string]bool {
	if !t.Target.Has(conformance.CapControlledRS) {
		return map[string]bool{}
	}
	return conformance.Discover(t, "fixture-content", func() map[string]bool {
		out := map[string]bool{}
		fx := t.RS().Fixture()
		for _, c := range fx.Connectors {
			out[c.Key], out[c.DisplayName] = true, true
			for _, cn := range c.Connections {
				out[cn.ID], out[cn.DisplayName] = true, true
			}
		}
		for _, s := range fx.Streams {
			out[s.Name] = true
			for _, f := range s.Fields {
				out[f.Name] = true
			}
			for _, r := range s.Records {
				out[r.EmittedAt] = true // the envelope's timestamp is content too, never a handle
				for _, v := range StringValues(r.Data) {
					out[v] = true
				}
			}
		}
		return out
	})
}

// orderCandidates orders strings (of one hit's object, say) as
// HandleCandidates orders an answer's: those holding a wanted id, then
// opaque tokens, then bare ids; fixture content and mcpcheck's own
// arguments are left out.
func orderCandidates(t *conformance.T, c *conformance.Call, strs []string, want []RecordRef) []string {
	content := fixtureContent(t)
	var holding, opaque, bare []string
	for _, s := range strs {
		s = strings.Trim(s, ".,;:\"'`()[]{}<>…")
		switch {
		case s == "" || len(s) < 3 || len(s) > 512 || strings.ContainsAny(s, " \t\n<>"):
		case slices.ContainsFunc(want, func(w RecordRef) bool { return w.ID == s }):
			bare = append(bare, s)
		case content[s] || argValue(c, s):
		case slices.ContainsFunc(want, func(w RecordRef) bool { return strings.Contains(s, w.ID) }):
			holding = append(holding, s)
		case len(s) >= 12 && strings.ContainsAny(s, "0123456789"):
			opaque = append(opaque, s)
		}
	}
	return slices.Concat(holding, opaque, bare)
}

// ConnectionLabel is the display name of a fixture connection, or "".
func ConnectionLabel(t *conformance.T, conn string) string {
	if !t.Target.Has(conformance.CapControlledRS) {
		return ""
	}
	for _, c := range t.RS().Fixture().Connectors {
		for _, cn := range c.Connections {
			if cn.ID == conn {
				return cn.DisplayName
			}
		}
	}
	return ""
}

// connectorOf is the fixture's connector of key.
func connectorOf(t *conformance.T, key string) fakers.Connector {
	for _, c := range t.RS().Fixture().Connectors {
		if c.Key == key {
			return c
		}
	}
	return fakers.Connector{}
}

// Handles finds, by following, the handle an answer shows for each wanted
// record: a string of the answer that fetch takes and whose answer shows
// that record. At most len(want)+12 follows; a record no followed string
// names has no entry.
func Handles(t *conformance.T, c *conformance.Call, want []RecordRef) map[RecordRef]string {
	return handles(t, c, want, true)
}

// HandlesInText is Handles on a call's content[] text alone: the handles a
// host that hides structuredContent can follow.
func HandlesInText(t *conformance.T, c *conformance.Call, want []RecordRef) map[RecordRef]string {
	return handles(t, c, want, false)
}

// RefusedInText is a fetch of a string of c's content[] text that names
// ref (holds its id) and that fetch refuses: the witness that the text's
// identity of ref does not work. At most four are followed.
func RefusedInText(t *conformance.T, c *conformance.Call, ref RecordRef) (*conformance.Call, bool) {
	tried := 0
	cands := handleCandidates(t, c, []RecordRef{ref}, false)
	// The bare id first; a mail address that holds the id is a value, not
	// a handle the text offers.
	slices.SortStableFunc(cands, func(a, b string) int { return cmpBool(a != ref.ID, b != ref.ID) })
	for _, cand := range cands {
		if tried == 4 {
			break
		}
		if !strings.Contains(cand, ref.ID) || mailAddressRe.MatchString(cand) {
			continue
		}
		tried++
		if f := Follow(t, cand); f.Call != nil && f.Call.IsError() {
			return f.Call, true
		}
	}
	return nil, false
}

// mailAddressRe is a mail address: a local part, @, and a dotted domain.
var mailAddressRe = regexp.MustCompile(`^[^@/\s]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`)

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func handles(t *conformance.T, c *conformance.Call, want []RecordRef, structured bool) map[RecordRef]string {
	out := map[RecordRef]string{}
	budget := len(want) + 12
	for _, cand := range handleCandidates(t, c, want, structured) {
		if len(out) == len(want) || budget == 0 {
			break
		}
		budget--
		f := Follow(t, cand)
		if f.OK && slices.Contains(want, f.Ref) && out[f.Ref] == "" {
			out[f.Ref] = cand
		}
	}
	return out
}

// FixtureStrings are the fixture's own names and values (connector keys,
// connection ids and labels, stream and field names, record values):
// what a contrast sets aside, and what is no count in a text.
func FixtureStrings(t *conformance.T) []string {
	var out []string
	for s := range fixtureContent(t) {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// mixWord is the word SourceMixContrast plants in two records.
const mixWord = "zqsourcemixprobe"

// SourceMixContrast searches two forks of the target for a word planted in
// two records of one stream: on one connection in the first, on two
// connections in the second. Their answers differ only in where the hits
// come from; content is what to set aside when comparing them. ok is
// false when the target cannot be forked or the fixture has no stream on
// two connections with a searchable field.
func SourceMixContrast(t *conformance.T) (one, two *conformance.Call, content []string, ok bool) {
	if !t.Target.Has(conformance.CapFixture) {
		return nil, nil, nil, false
	}
	plant := func(spread bool) (*conformance.Call, bool) {
		fx := t.BaseFixture()
		for _, s := range fx.Streams {
			field := ""
			for _, f := range s.Fields {
				if f.Lexical && f.Type == "string" {
					field = f.Name
					break
				}
			}
			if field == "" || len(s.Connections) < 2 {
				continue
			}
			var picked []int
			for i, r := range s.Records {
				first := len(picked) == 0
				switch {
				case first && r.ConnectionID == s.Connections[0]:
					picked = append(picked, i)
				case !first && len(picked) == 1 && (spread && r.ConnectionID == s.Connections[1] || !spread && r.ConnectionID == s.Connections[0]):
					picked = append(picked, i)
				}
			}
			if len(picked) < 2 {
				continue
			}
			for _, i := range picked {
				s.Records[i].Data[field] = fmt.Sprint(s.Records[i].Data[field]) + " " + mixWord
			}
			on := t.On(t.Fork(fx))
			return on.CallRoles("search", dialect.Args{dialect.Query: mixWord, dialect.Limit: 10}), true
		}
		return nil, false
	}
	one, ok1 := plant(false)
	two, ok2 := plant(true)
	if !ok1 || !ok2 || one.IsError() || two.IsError() {
		return nil, nil, nil, false
	}
	return one, two, append(FixtureStrings(t), mixWord), true
}

// FieldShown is the field of rec whose value an answer shows the most of
// (by the fixture's value, in chunks), among the fields whose value no
// other record of the fixture holds; "" when it shows none of them.
func FieldShown(t *conformance.T, c *conformance.Call, rec FixtureRecord) string {
	all := strings.Join(c.Strings(), "\n")
	unique := map[string]bool{}
	for _, v := range distinct(t)[rec.Ref] {
		unique[v] = true
	}
	best, most := "", 0
	for _, f := range slices.Sorted(maps.Keys(rec.Data)) {
		v, ok := rec.Data[f].(string)
		if !ok || len(v) < 8 || v == rec.Ref.ID || LooksBinary(v) || !unique[clipWords(v, 40)] {
			continue
		}
		if n := ShownPrefix(all, v); n > most {
			best, most = f, n
		} else if most == 0 && best == "" && PartShown(all, v) {
			best = f
		}
	}
	return best
}

// InGrant reports whether the grant holds ref's stream on its connection.
func InGrant(t *conformance.T, ref RecordRef) bool {
	for _, r := range RowsNamed(Grant(t), ref.Stream) {
		if len(r.Connections) == 0 || slices.Contains(r.Connections, ref.Conn) {
			return true
		}
	}
	return false
}

// RSRecord is the record as the fixture RS serves it to the client bearer
// (its data with what the RS adds, such as a blob's fetch_url), or nil.
func RSRecord(t *conformance.T, ref RecordRef) map[string]any {
	if !t.Target.Has(conformance.CapControlledRS) {
		return nil
	}
	return conformance.Discover(t, "rs-record:"+ref.String(), func() map[string]any {
		rs := t.RS()
		status, body := rs.Replay(fakers.Request{Method: "GET", Path: path.Join(RecordsPath(ref.Stream), url.PathEscape(ref.ID)),
			RawQuery: url.Values{"connection_id": {ref.Conn}}.Encode(), Authorization: "Bearer " + rs.ClientToken()})
		var rec struct {
			Data map[string]any `json:"data"`
		}
		if status != 200 || json.Unmarshal(body, &rec) != nil {
			return nil
		}
		return rec.Data
	})
}
