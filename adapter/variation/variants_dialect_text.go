package variation

import (
	"regexp"
	"strconv"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// The text of the whole-dialect variants: the reference text is read back
// into what it shows (handles, hits, previews, continuations) and written
// in the dialect's layout, labels, numbers and call syntax. A line the
// reader does not know is kept, with its calls' arguments renamed.

// A dialectText writes each tool's text from the reference text and the
// (already translated) structuredContent.
type dialectText struct {
	search, records, field, schema, aggregate func(d *dialect, text string, sc map[string]any) string
	// call writes a tool call with arguments: JSON, name(k=v) or k=v.
	call func(tool string, args map[string]any) string
}

func (t dialectText) of(tool string) func(*dialect, string, map[string]any) string {
	return map[string]func(*dialect, string, map[string]any) string{
		"search": t.search, "query_records": t.records, "read_record_field": t.field, "schema": t.schema, "aggregate": t.aggregate,
	}[tool]
}

// Call syntaxes.

func jsonCall(tool string, args map[string]any) string { return tool + " " + compactJSON(args) }

func pythonCall(tool string, args map[string]any) string {
	return tool + "(" + kvList(args, ", ") + ")"
}

func kvCall(tool string, args map[string]any) string { return tool + " " + kvList(args, " ") }

func kvList(args map[string]any, sep string) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + compactJSON(args[k])
	}
	return strings.Join(parts, sep)
}

// callOf writes a reference call's JSON arguments in the dialect: renamed,
// in its call syntax.
func (d *dialect) callText(tool, argsJSON string) string {
	var args map[string]any
	if decodeJSON([]byte(argsJSON), &args) != nil {
		return tool + " " + argsJSON
	}
	out := map[string]any{}
	for k, v := range args {
		out[rename(d.args[tool], k)] = v
	}
	return d.text.call(tool, out)
}

var refCallRe = regexp.MustCompile(`(read_record_field|query_records|search|fetch)(?: args=| )(\{[^\n]*\})`)

// calls rewrites every reference call printed in a line.
func (d *dialect) callsIn(line string) string {
	return refCallRe.ReplaceAllStringFunc(line, func(m string) string {
		s := refCallRe.FindStringSubmatch(m)
		return d.callText(s[1], s[2])
	})
}

// Reading the reference text.

var kvRe = regexp.MustCompile(`([a-z_]+)=("(?:[^"\\]|\\.)*"|[^\s"]+)`)

// kvs reads the key=value pairs of a reference line, quoted values
// unquoted, a closing full stop dropped.
func kvs(line string) map[string]string {
	out := map[string]string{}
	for _, m := range kvRe.FindAllStringSubmatch(line, -1) {
		v := m[2]
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else {
			v = strings.TrimSuffix(v, ".")
		}
		if _, seen := out[m[1]]; !seen {
			out[m[1]] = v
		}
	}
	return out
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// count reads count=kind:N into its accuracy and its number.
func count(v string) (kind, n string) {
	kind, n, ok := strings.Cut(v, ":")
	if !ok {
		return "", v
	}
	return kind, n
}

var (
	refEvidenceRe = regexp.MustCompile(`^\d+\. result=(\d+) field_path=(\S+) snippet=("(?:[^"\\]|\\.)*") id=(\S+) complete=(true|false)`)
	refTopRe      = regexp.MustCompile(`^(\d+)\. id=(\S+) title=("(?:[^"\\]|\\.)*")(?: snippet=("(?:[^"\\]|\\.)*"))?$`)
	moreLineRe    = regexp.MustCompile(`^more_(results|records)=(\d+); next: (\w+) (\{.*\})$`)
	recordLineRe  = regexp.MustCompile(`^record\[(\d+)\](?: id=(\S+))? (.*)$`)
	contLineRe    = regexp.MustCompile(`^record\[(\d+)\]\.(\S+) (.*)$`)
	truncMarkRe   = regexp.MustCompile(` \[truncated: (\d+) chars\]`)
	mixLongRe     = regexp.MustCompile(`\{connection_id:([^,]*),connector_key:([^,]*),count:(\d+)\}`)
	mixShortRe    = regexp.MustCompile(`\{([^:{}]*):(\d+)\}`)
	mixMoreRe     = regexp.MustCompile(`more:(\d+)`)
)

// A hit is one search hit as the reference text showed it.
type hit struct {
	n                   int
	id, title, snippet  string
	field, preview      string
	complete, evidenced bool
}

// searchHits reads the evidence and top-result lines into hits, by id.
func searchHits(lines []string) []*hit {
	var hits []*hit
	byID := map[string]*hit{}
	get := func(id string) *hit {
		if h := byID[id]; h != nil {
			return h
		}
		h := &hit{id: id, n: len(hits) + 1}
		byID[id] = h
		hits = append(hits, h)
		return h
	}
	for _, l := range lines {
		if m := refTopRe.FindStringSubmatch(l); m != nil {
			h := get(m[2])
			h.title, h.snippet = unquote(m[3]), unquote(m[4])
		}
	}
	for _, l := range lines {
		if m := refEvidenceRe.FindStringSubmatch(l); m != nil {
			h := get(m[4])
			if !h.evidenced {
				h.field, h.preview, h.complete, h.evidenced = m[2], unquote(m[3]), m[5] == "true", true
			}
		}
	}
	return hits
}

// A mix entry is one connection's share of a page of hits.
type mixEntry struct {
	conn, key string
	n         int
	more      bool
}

func sourceMixOf(v string) []mixEntry {
	var out []mixEntry
	for _, p := range strings.Split(v, "|") {
		switch l, s, m := mixLongRe.FindStringSubmatch(p), mixShortRe.FindStringSubmatch(p), mixMoreRe.FindStringSubmatch(p); {
		case l != nil:
			n, _ := strconv.Atoi(l[3])
			out = append(out, mixEntry{conn: l[1], key: l[2], n: n})
		case s != nil:
			n, _ := strconv.Atoi(s[2])
			out = append(out, mixEntry{conn: s[1], n: n})
		case m != nil:
			n, _ := strconv.Atoi(m[1])
			out = append(out, mixEntry{n: n, more: true})
		}
	}
	return out
}

// displayNames maps connection ids to display labels, from hits or records.
func displayNames(v any) map[string]string {
	out := map[string]string{}
	eachObject(v, func(m map[string]any) {
		c, _ := m["connection_id"].(string)
		n, _ := m["display_name"].(string)
		if c != "" && n != "" {
			out[c] = n
		}
	})
	return out
}

// A searchPage is what a reference search text showed.
type searchPage struct {
	head     map[string]string
	hits     []*hit
	mix      []mixEntry
	moreN    string
	moreCall string // the reference call resuming after the shown hits
	known    bool
}

func readSearch(text string) searchPage {
	lines := strings.Split(text, "\n")
	p := searchPage{head: kvs(lines[0]), known: strings.HasPrefix(lines[0], "search: ")}
	p.hits = searchHits(lines[1:])
	if v := p.head["source_mix"]; v != "" {
		p.mix = sourceMixOf(v)
	}
	for _, l := range lines[1:] {
		if m := moreLineRe.FindStringSubmatch(l); m != nil {
			p.moreN, p.moreCall = m[2], m[4]
		}
	}
	return p
}

// A recordsPage is what a reference query_records text showed.
type recordsPage struct {
	stream   string
	n        string
	head     map[string]string
	warnings []string
	shown    []recordLine
	conts    []string // field continuation lines, reference form
	moreN    string
	moreCall string
	cut      bool
	other    []string
}

type recordLine struct{ i, id, preview string }

var (
	recordsHeadRe = regexp.MustCompile(`^records from stream ("(?:[^"\\]|\\.)*"): (\d+) record\(s\)\.`)
	warningRe     = regexp.MustCompile(` warning=(\S+) ("(?:[^"\\]|\\.)*")`)
)

func readRecords(text string) (recordsPage, bool) {
	lines := strings.Split(text, "\n")
	m := recordsHeadRe.FindStringSubmatch(lines[0])
	if m == nil {
		return recordsPage{}, false
	}
	head := warningRe.ReplaceAllString(lines[0], "")
	p := recordsPage{stream: unquote(m[1]), n: m[2], head: kvs(head)}
	for _, w := range warningRe.FindAllStringSubmatch(lines[0], -1) {
		p.warnings = append(p.warnings, w[1]+": "+unquote(w[2]))
	}
	for _, l := range lines[1:] {
		switch {
		case l == "Fields not shown inline:" || strings.HasPrefix(l, "machine envelope"):
		case contLineRe.MatchString(l):
			p.conts = append(p.conts, l)
		case recordLineRe.MatchString(l):
			r := recordLineRe.FindStringSubmatch(l)
			p.shown = append(p.shown, recordLine{r[1], r[2], r[3]})
		case strings.Contains(l, "more_records="):
			p.cut = strings.HasPrefix(l, "record_preview_truncated=true")
			l = l[strings.Index(l, "more_records="):]
			if mm := moreLineRe.FindStringSubmatch(l); mm != nil {
				p.moreN, p.moreCall = mm[2], mm[4]
			}
		case strings.HasPrefix(l, "record_preview_truncated=true"):
			p.cut = true
		default:
			p.other = append(p.other, l)
		}
	}
	return p, true
}

// A fieldWindow is what a reference read_record_field text showed.
type fieldWindowText struct {
	head           map[string]string
	next, previous string // reference JSON arguments
	text           string
	known          bool
}

func readFieldWindow(text string) fieldWindowText {
	lines := strings.SplitN(text, "\n", 2)
	w := fieldWindowText{head: kvs(strings.ReplaceAll(lines[0], `".."`, `" end_chars="`)), known: strings.HasPrefix(lines[0], "record=")}
	body := ""
	if len(lines) > 1 {
		body = lines[1]
	}
	for {
		l, rest, _ := strings.Cut(body, "\n")
		switch {
		case strings.HasPrefix(l, "next read_record_field args="):
			w.next = strings.TrimPrefix(l, "next read_record_field args=")
		case strings.HasPrefix(l, "previous read_record_field args="):
			w.previous = strings.TrimPrefix(l, "previous read_record_field args=")
		case strings.HasPrefix(l, "next_offset_chars="), strings.HasPrefix(l, "previous_offset_chars="):
		default:
			w.text = body
			return w
		}
		body = rest
	}
}

// chars writes a char count in the dialect's number format.
func (d *dialect) chars(s string) string { return d.numStr(s) }

// truncMarks rewrites record previews' [truncated: N chars] markers.
func (d *dialect) truncMarks(s, word string) string {
	return truncMarkRe.ReplaceAllStringFunc(s, func(m string) string {
		return " [" + word + "; " + d.chars(truncMarkRe.FindStringSubmatch(m)[1]) + " chars in all]"
	})
}

// indexRows reads the schema index's stream lines.
type indexRow struct {
	name, key, display string
	conns              []string
}

var (
	indexLineRe = regexp.MustCompile(`^stream name=("(?:[^"\\]|\\.)*") connector_key=("(?:[^"\\]|\\.)*")(?: display_name=("(?:[^"\\]|\\.)*"))? connections=(\S+)(.*)$`)
	connRe      = regexp.MustCompile(`\{connection_id:([^,}]*)(?:,display_name:([^}]*))?\}`)
)

func readIndexRow(l string) (indexRow, string, bool) {
	m := indexLineRe.FindStringSubmatch(l)
	if m == nil {
		return indexRow{}, "", false
	}
	r := indexRow{name: unquote(m[1]), key: unquote(m[2]), display: unquote(m[3])}
	for _, c := range connRe.FindAllStringSubmatch(m[4], -1) {
		label := strings.ReplaceAll(c[2], "_", " ")
		if label != "" {
			r.conns = append(r.conns, c[1]+" ("+label+")")
		} else {
			r.conns = append(r.conns, c[1])
		}
	}
	return r, strings.TrimSpace(m[5]), true
}

// aggregateGroups reads aggregate's [k=v, …] groups.
var aggGroupRe = regexp.MustCompile(`("(?:[^"\\]|\\.)*"|[^\s,\[\]=]+)=(\d+)`)

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// fetchMirror is fetch's text: the translated document, in the dialect's
// JSON layout.
func fetchMirror(sc map[string]any, indent bool) string {
	if !indent {
		return compactJSON(sc)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(sc)
	return strings.TrimSuffix(b.String(), "\n")
}
