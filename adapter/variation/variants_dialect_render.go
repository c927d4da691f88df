package variation

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The layouts of the whole-dialect variants' text: one writer per tool,
// shaped by the dialect's layout (markdown blocks, indented records or
// terse lines) and worded with its labels, numbers and call syntax.

var searchHeadRe = regexp.MustCompile(`^search: (\d+) hit\(s\)\.`)

type layout int

const (
	markdownLayout layout = iota // headings, bullets, a line per property
	indentedLayout               // [n] title, then indented key: value lines
	terseLayout                  // one short line per property, sigils
)

// A style is how a dialect lays out and words its text.
type style struct {
	layout layout
	// complete, partial: a window's or preview's completion state;
	// moreHits, moreRecords: a page has more.
	complete, partial, moreHits, moreRecords string
	cut                                      string // a preview cut, in record previews
	indentFetch                              bool
}

func (d *dialect) st() style { return d.style }

// searchText writes a search page as blocks, one per hit: title, id, the
// preview and its read call on lines of their own.
func searchText(d *dialect, text string, sc map[string]any) string {
	p := readSearch(text)
	if !p.known || !searchHeadRe.MatchString(text) {
		return d.callsIn(text)
	}
	s, h := d.st(), p.head
	names := displayNames(sc)
	var b strings.Builder
	kind, total := count(h["count"])
	n := d.numStr(searchHeadRe.FindStringSubmatch(text)[1])
	switch s.layout {
	case markdownLayout:
		fmt.Fprintf(&b, "Found %s result%s", n, plural(n))
		if total != "" {
			fmt.Fprintf(&b, " (%s total, %s)", d.numStr(total), firstOf(kind, "exact"))
		}
		b.WriteString(".")
	case indentedLayout:
		fmt.Fprintf(&b, "%s hits", n)
		if total != "" {
			fmt.Fprintf(&b, " of %s (%s count)", d.numStr(total), firstOf(kind, "exact"))
		}
	default:
		fmt.Fprintf(&b, "hits %s", n)
		if total != "" {
			fmt.Fprintf(&b, "/%s %s", d.numStr(total), firstOf(kind, "exact"))
		}
	}
	if h["has_more"] == "true" {
		b.WriteString(" " + s.moreHits)
	}
	if c := h["next_cursor"]; c != "" {
		b.WriteString("\n" + d.label("next page cursor") + quote(c))
	}
	if len(p.mix) > 1 {
		var parts []string
		for _, m := range p.mix {
			switch {
			case m.more:
				parts = append(parts, fmt.Sprintf("%d more connections", m.n))
			case names[m.conn] != "" && m.key != "":
				parts = append(parts, fmt.Sprintf("%s (%s, %s): %d", names[m.conn], m.conn, m.key, m.n))
			default:
				parts = append(parts, fmt.Sprintf("%s: %d", m.conn, m.n))
			}
		}
		b.WriteString("\n" + d.label("sources") + strings.Join(parts, d.sep()))
	}
	rr := d.args["read_record_field"]
	evidence := d.hitEvidence(sc)
	for _, x := range p.hits {
		if e, ok := evidence[x.id]; ok && !x.evidenced {
			// The reference text drops evidence lines past its budget; a
			// block layout shows each shown hit's evidence with the hit.
			x.field, x.preview, x.complete, x.evidenced = e[0], d.aroundMark(e[1], 96), e[2] == "complete", true
		}
		switch s.layout {
		case markdownLayout:
			fmt.Fprintf(&b, "\n\n%d. **%s**\n   id: %s", x.n, x.title, x.id)
			if x.snippet != "" && !x.evidenced {
				fmt.Fprintf(&b, "\n   > %s", d.marked(x.snippet))
			}
		case indentedLayout:
			fmt.Fprintf(&b, "\n[%d] %s\n    id: %s", x.n, x.title, x.id)
			if x.snippet != "" && !x.evidenced {
				fmt.Fprintf(&b, "\n    snippet: %s", d.marked(x.snippet))
			}
		default:
			fmt.Fprintf(&b, "\n#%d %s %s", x.n, x.id, quote(x.title))
			if x.snippet != "" && !x.evidenced {
				fmt.Fprintf(&b, "\n  ~ %s", d.marked(x.snippet))
			}
		}
		if !x.evidenced {
			continue
		}
		state := s.partial
		if x.complete {
			state = s.complete
		}
		call := d.text.call("read_record_field", map[string]any{rename(rr, "id"): x.id, rename(rr, "field_path"): x.field})
		switch s.layout {
		case markdownLayout:
			fmt.Fprintf(&b, "\n   %s (%s): %s\n   read: %s", x.field, state, d.marked(x.preview), call)
		case indentedLayout:
			fmt.Fprintf(&b, "\n    matched in %s, %s:\n      %s\n    read more: %s", x.field, state, d.marked(x.preview), call)
		default:
			fmt.Fprintf(&b, "\n  %s %s: %s\n  > %s", x.field, state, d.marked(x.preview), call)
		}
	}
	if p.moreCall != "" {
		b.WriteString("\n" + d.label(p.moreN+" more hits on this page") + d.callText("search", p.moreCall))
	}
	b.WriteString("\n" + d.label("whole document") + "call fetch with a hit's id, as shown")
	return b.String()
}

// hitEvidence maps each hit id of a translated search answer to its first
// evidence excerpt: field, preview and preview status.
func (d *dialect) hitEvidence(sc map[string]any) map[string][3]string {
	out := map[string][3]string{}
	list, _ := sc[d.hitsKey].([]any)
	for _, h := range list {
		hm, _ := h.(map[string]any)
		ev, _ := hm["evidence_excerpts"].([]any)
		id, _ := hm["id"].(string)
		if len(ev) == 0 || id == "" {
			continue
		}
		e, _ := ev[0].(map[string]any)
		f, _ := e["field_path"].(string)
		p, _ := e["preview_text"].(string)
		st, _ := e["preview_status"].(string)
		if f != "" && p != "" {
			out[id] = [3]string{f, strings.Trim(p, "…"), st}
		}
	}
	return out
}

// aroundMark is about n characters of s around its first highlight, each
// cut marked with the dialect's ellipsis.
func (d *dialect) aroundMark(s string, n int) string {
	r := []rune(s)
	at := len([]rune(s[:max(0, strings.Index(s, d.mark[0]))]))
	from, to := max(0, at-n/2), min(len(r), at+n/2+len(d.mark[0])+len(d.mark[1])+8)
	out := string(r[from:to])
	if from > 0 {
		out = d.ellipsis + out
	}
	if to < len(r) {
		out += d.ellipsis
	}
	return out
}

// recordsText writes a page of records: the handles first, each record's
// id on its own line above its preview, then the fields left out.
func recordsText(d *dialect, text string, sc map[string]any) string {
	p, ok := readRecords(text)
	if !ok {
		return d.callsIn(text)
	}
	s, h := d.st(), p.head
	var b strings.Builder
	kind, total := count(h["count"])
	switch s.layout {
	case markdownLayout:
		fmt.Fprintf(&b, "%s: %s records", p.stream, d.numStr(p.n))
		if total != "" {
			fmt.Fprintf(&b, " (%s total, %s)", d.numStr(total), kind)
		}
		b.WriteString(".")
	case indentedLayout:
		fmt.Fprintf(&b, "%s records from %s", d.numStr(p.n), p.stream)
		if total != "" {
			fmt.Fprintf(&b, ", %s in all (%s count)", d.numStr(total), kind)
		}
	default:
		fmt.Fprintf(&b, "%s rows %s", p.stream, d.numStr(p.n))
		if total != "" {
			fmt.Fprintf(&b, "/%s %s", d.numStr(total), kind)
		}
	}
	if h["has_more"] == "true" {
		b.WriteString(" " + s.moreRecords)
	}
	if c := h["next_cursor"]; c != "" {
		b.WriteString("\n" + d.label("next page cursor") + quote(c))
	}
	if c := h["next_changes_since"]; c != "" {
		b.WriteString("\n" + d.label("changes since bookmark") + quote(c))
	}
	for _, w := range p.warnings {
		b.WriteString("\n" + d.label("warning") + w)
	}
	for _, r := range p.shown {
		preview := d.truncMarks(r.preview, s.cut)
		switch {
		case r.id == "":
			fmt.Fprintf(&b, "\n%s", preview)
		case s.layout == markdownLayout:
			fmt.Fprintf(&b, "\n- id: %s\n  %s", r.id, preview)
		case s.layout == indentedLayout:
			fmt.Fprintf(&b, "\n[%s] %s\n    %s", r.i, r.id, preview)
		default:
			fmt.Fprintf(&b, "\n@ %s\n  %s", r.id, preview)
		}
	}
	if len(p.conts) > 0 {
		b.WriteString("\n" + strings.TrimSpace(d.label("fields not shown")))
		for _, c := range p.conts {
			m := contLineRe.FindStringSubmatch(c)
			id := ""
			if i := atoi(m[1]); i < len(p.shown) {
				id = p.shown[i].id + " "
			}
			rest := strings.Replace(d.callsIn(m[3]), "truncated ", s.partial+": ", 1)
			fmt.Fprintf(&b, "\n  %s%s %s", id, m[2], rest)
		}
	}
	for _, l := range p.other {
		b.WriteString("\n" + d.callsIn(l))
	}
	if p.moreCall != "" {
		b.WriteString("\n" + d.label(d.numStr(p.moreN)+" more records on this page") + d.callText("query_records", p.moreCall))
	}
	if p.cut {
		b.WriteString("\n" + d.label("previews cut") + "call fetch with a record's id for all of it, or narrow with fields")
	}
	return b.String()
}

// fieldText writes a field window: where it sits in the field, whether it
// is whole, the calls before and after it, then the text.
func fieldText(d *dialect, text string, _ map[string]any) string {
	w := readFieldWindow(text)
	if !w.known {
		return d.callsIn(text)
	}
	s, h := d.st(), w.head
	state := s.partial
	if h["complete"] == "true" {
		state = s.complete
	}
	var b strings.Builder
	start, end, total := d.numStr(h["chars"]), d.numStr(h["end_chars"]), d.numStr(h["total_chars"])
	switch s.layout {
	case markdownLayout:
		fmt.Fprintf(&b, "%s › %s: characters %s–%s of %s (%s)", h["record"], h["field"], start, end, total, state)
	case indentedLayout:
		fmt.Fprintf(&b, "field %s of %s\n    characters %s to %s of %s, %s", h["field"], h["record"], start, end, total, state)
	default:
		fmt.Fprintf(&b, "%s %s %s-%s/%s %s", h["record"], h["field"], start, end, total, state)
	}
	if h["media_type"] != "" {
		b.WriteString("\n" + d.label("media type") + h["media_type"])
	}
	if ms := h["match_start_chars"]; ms != "" {
		b.WriteString("\n" + d.label("match at") + d.numStr(ms) + "–" + d.numStr(h["match_end_chars"]))
	}
	if w.next != "" {
		b.WriteString("\n" + d.label("next") + d.callText("read_record_field", w.next))
	}
	if w.previous != "" {
		b.WriteString("\n" + d.label("previous") + d.callText("read_record_field", w.previous))
	}
	if s.layout == markdownLayout {
		b.WriteString("\n---")
	}
	return b.String() + "\n" + w.text
}

// schemaText writes the index grouped by connector and the scoped rows
// with their identity on lines of their own.
func schemaTextOf(d *dialect, text string, _ map[string]any) string {
	lines := strings.Split(text, "\n")
	head := kvs(lines[0])
	s := d.st()
	var b strings.Builder
	switch s.layout {
	case markdownLayout:
		fmt.Fprintf(&b, "%s streams from %s connectors.", d.numStr(head["streams"]), d.numStr(head["connectors"]))
	case indentedLayout:
		fmt.Fprintf(&b, "Granted data: %s connectors, %s streams", d.numStr(head["connectors"]), d.numStr(head["streams"]))
	default:
		fmt.Fprintf(&b, "schema %s connectors %s streams", d.numStr(head["connectors"]), d.numStr(head["streams"]))
	}
	byKey, order := map[string][]string{}, []string{}
	for _, l := range lines[1:] {
		row, caps, ok := readIndexRow(l)
		switch {
		case !ok && strings.HasPrefix(l, "schema_scope "):
			b.WriteString("\n" + d.label("scope") + "connection " + kvs(l)["connection_id"])
		case !ok && strings.HasPrefix(l, "call schema(stream"):
			b.WriteString("\n" + d.label("details") + d.text.call("schema", map[string]any{"stream": "<stream>", "connection_id": "<connection_id>"}))
		case !ok:
			b.WriteString("\n" + d.callsIn(l))
		case caps == "":
			if _, seen := byKey[row.key]; !seen {
				order = append(order, row.key)
			}
			byKey[row.key] = append(byKey[row.key], row.name+" — "+strings.Join(row.conns, ", "))
		default:
			b.WriteString("\n" + scopedRow(d, row, caps))
		}
	}
	for _, k := range order {
		switch s.layout {
		case markdownLayout:
			b.WriteString("\n## " + k)
			for _, r := range byKey[k] {
				b.WriteString("\n- " + r)
			}
		case indentedLayout:
			b.WriteString("\n" + k + ":")
			for _, r := range byKey[k] {
				b.WriteString("\n    " + r)
			}
		default:
			b.WriteString("\n" + k + ": " + strings.Join(byKey[k], "; "))
		}
	}
	return b.String()
}

func scopedRow(d *dialect, r indexRow, caps string) string {
	label := ""
	if r.display != "" {
		label = " (" + r.display + ")"
	}
	switch d.st().layout {
	case markdownLayout:
		return fmt.Sprintf("### %s%s\nconnector_key: %s\nconnection_id: %s\n%s", r.name, label, r.key, strings.Join(r.conns, ", "), caps)
	case indentedLayout:
		return fmt.Sprintf("stream %s%s from connector %s\n    connections: %s\n    %s", r.name, label, r.key, strings.Join(r.conns, ", "), strings.ReplaceAll(caps, "\n", "\n    "))
	}
	return fmt.Sprintf("%s@%s%s [%s] %s", r.name, r.key, label, strings.Join(r.conns, ","), caps)
}

// aggregateText writes aggregate's groups one per line.
func aggregateText(d *dialect, text string, _ map[string]any) string {
	head, rest, ok := strings.Cut(text, ": ")
	if !ok || !strings.Contains(rest, "group(s)") {
		return strings.Replace(text, "canonical envelope in structuredContent.data", "full result in structuredContent", 1)
	}
	var b strings.Builder
	b.WriteString(head + ":")
	groups, _, _ := strings.Cut(rest[strings.Index(rest, "[")+1:], "]")
	for _, g := range aggGroupRe.FindAllStringSubmatch(groups, -1) {
		b.WriteString("\n" + d.bullet() + unquote(g[1]) + ": " + d.numStr(g[2]))
	}
	for _, k := range []string{"more_groups", "other_count"} {
		if v := kvs(rest)[k]; v != "" {
			b.WriteString("\n" + d.label(strings.ReplaceAll(k, "_", " ")) + d.numStr(strings.TrimSuffix(v, ";")))
		}
	}
	return b.String()
}

// label writes "what: " in the dialect's words.
func (d *dialect) label(what string) string {
	switch d.st().layout {
	case markdownLayout:
		return strings.ToUpper(what[:1]) + what[1:] + ": "
	case indentedLayout:
		return what + " -> "
	}
	return strings.ReplaceAll(what, " ", "_") + "="
}

func (d *dialect) sep() string {
	if d.st().layout == terseLayout {
		return ", "
	}
	return " · "
}

func (d *dialect) bullet() string {
	if d.st().layout == markdownLayout {
		return "- "
	}
	return "  "
}

func plural(n string) string {
	if n == "1" {
		return ""
	}
	return "s"
}

func quote(s string) string { return compactJSON(s) }

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// legends in three notations.

func tableLegend(entries [][2]string) string {
	var b strings.Builder
	b.WriteString("| flag | meaning |\n|---|---|")
	for _, e := range entries {
		fmt.Fprintf(&b, "\n| %s | %s |", e[0], e[1])
	}
	return b.String()
}

func meansLegend(entries [][2]string) string {
	var parts []string
	for _, e := range entries {
		parts = append(parts, fmt.Sprintf("%q means %s", e[0], e[1]))
	}
	return "Flags: " + strings.Join(parts, "; ") + "."
}

func equalsLegend(entries [][2]string) string {
	var parts []string
	for _, e := range entries {
		parts = append(parts, e[0]+" = "+e[1])
	}
	sort.Strings(parts)
	return "legend: " + strings.Join(parts, ", ")
}
