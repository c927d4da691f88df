package probe

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// How a content-only client reads schema text: by the values it knows to
// look for (field, stream and connection names), and by what the text's
// own legend says its abbreviations mean, never by one grammar's tokens.

// legendLineRe finds legend lines: they explain the grammar for every
// stream, so they state nothing about one row.
var legendLineRe = regexp.MustCompile(`(?im)^.*legend.*$`)

// WithoutLegend is text with its legend lines removed.
func WithoutLegend(text string) string { return legendLineRe.ReplaceAllString(text, "") }

// ContainsToken reports whether s holds tok not glued to word characters.
func ContainsToken(s, tok string) bool { return tok != "" && tokenIndex(s, tok) >= 0 }

// tokenIndex is where tok first stands in s not glued to word characters
// (the start of the character before it, or 0 at the start of s), or -1.
// A scan, not a regexp: checks call it for every token of every answer.
func tokenIndex(s, tok string) int {
	if tok == "" {
		return -1
	}
	for from := 0; from <= len(s)-len(tok); {
		i := strings.Index(s[from:], tok)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(tok)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			if i == 0 {
				return 0
			}
			_, size := utf8.DecodeLastRuneInString(s[:i])
			return i - size
		}
		from = i + 1
	}
	return -1
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// A RowSegment is the part of a schema text that describes one row.
type RowSegment struct {
	Row   SchemaRow
	Ident string
	Text  string
}

// RowSegments cuts text (legend aside) into one segment per row, at each
// row's identity: its connector_key when the rows' keys differ, else its
// first connection. missing names the rows whose identity the text lacks.
func RowSegments(text string, rows []SchemaRow) (segs []RowSegment, missing []string) {
	text = WithoutLegend(text)
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.ConnectorKey] = true
	}
	byKey := len(keys) == len(rows)
	type at struct {
		pos int
		seg RowSegment
	}
	var found []at
	for _, r := range rows {
		ident := r.ConnectorKey
		if !byKey && len(r.Connections) > 0 {
			ident = r.Connections[0]
		}
		pos := tokenIndex(text, ident)
		if ident == "" || pos < 0 {
			missing = append(missing, r.Ident())
			continue
		}
		found = append(found, at{pos, RowSegment{Row: r, Ident: ident}})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	for i, f := range found {
		end := len(text)
		if i+1 < len(found) {
			end = found[i+1].pos
		}
		f.seg.Text = text[f.pos:end]
		segs = append(segs, f.seg)
	}
	return segs, missing
}

// ShownFields are the names of fields that text shows, in fields' order.
func ShownFields(text string, fields []string) []string {
	var out []string
	for _, f := range fields {
		if ContainsToken(text, f) {
			out = append(out, f)
		}
	}
	return out
}

var (
	typeWords  = []string{"string", "integer", "number", "boolean", "timestamp", "datetime", "date", "object", "array", "int", "float", "bool"}
	rangeOps   = []string{"gte", "gt", "lte", "lt"}
	plainWords = []string{"count", "exact", "equals", "range", "filter", "filters", "sort", "sortable", "search", "lexical", "semantic",
		"aggregate", "aggregation", "aggregations", "type", "role", "granted", "declared", "true", "false", "none", "yes", "no", "not",
		"primary", "title", "text", "metadata", "author", "field", "fields", "usable", "unusable", "more", "distinct", "group", "time", "by"}
	wordTokRe = regexp.MustCompile(`[A-Za-z0-9_]+`)
	// legendPairRe reads "key=meaning", "key: meaning", "key (meaning)",
	// "key → meaning", "key - meaning", "key means meaning", "key is
	// meaning", the key bare or quoted, from a legend; a table row
	// "| key | meaning |" is read after its bars become colons.
	legendPairRe = regexp.MustCompile(`(?:^|[\s;,(|])["'“]?([A-Za-z_][A-Za-z0-9_]*(?:=false)?)["'”]?\s*(?:=|:|→|->|—|–|\(|\s-\s|\s+means\s+|\s+is\s+)\s*["']?([A-Za-z][A-Za-z0-9_-]*)`)
	// symbolPairRe reads a legend entry whose key is a symbol ("= = exact
	// filter", "\"~\" means semantic").
	symbolPairRe = regexp.MustCompile(`(?:^|[\s;,(|])["'“]?([=~!<>≈*+#@]{1,2})["'”]?\s*(?:=|:|→|->|—|–|\s+means\s+)\s*["']?([A-Za-z][A-Za-z0-9_-]*)`)
)

// functionWords are short words of prose, never abbreviations; "a" is
// not among them, as a grammar may use it as a flag.
var functionWords = []string{"or", "and", "of", "on", "to", "in", "by", "for", "the", "with", "any", "all", "is", "are", "if", "per", "as", "at", "an"}

// capVocabulary are the words that say something about a field's
// capabilities: what ranks one annotation of a field above another.
func capVocabulary() []string {
	return slices.Concat(typeWords, rangeOps, aggKinds, plainWords, []string{"eq"})
}

// wordsNeedingNoLegend are words a client reads without a legend: plain
// words and the tools' own argument vocabulary (range operators and
// aggregation kinds, which the input schemas name).
func wordsNeedingNoLegend() []string {
	return slices.Concat(typeWords, rangeOps, aggKinds, plainWords, functionWords)
}

// A FieldNote is one field's own annotation in schema text: what follows
// the field's name in brackets, or after a colon or equals sign.
type FieldNote struct {
	Ctx        string
	Start, End int
}

var annotationOpen = map[byte]byte{'[': ']', '(': ')', '{': '}', '<': '>'}

// FieldNotes finds each field's annotation in text: of every place the
// field's name is followed by an opener, the one that says the most about
// capabilities.
func FieldNotes(text string, fields []string) map[string]FieldNote {
	type occ struct {
		field    string
		at, body int
	}
	var occs []occ
	for _, f := range fields {
		re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_.-])(` + regexp.QuoteMeta(f) + `)\s*([\[({<:=])`)
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			occs = append(occs, occ{f, m[2], m[4]})
		}
	}
	sort.Slice(occs, func(i, j int) bool { return occs[i].at < occs[j].at })
	vocab := capVocabulary()
	// A field named in a legend line ("filter {name: {op: value}}") is an
	// example, not the field's annotation, when the field shows elsewhere.
	legendSpans := legendLineRe.FindAllStringIndex(text, -1)
	inLegend := func(at int) bool {
		return slices.ContainsFunc(legendSpans, func(sp []int) bool { return sp[0] <= at && at < sp[1] })
	}
	out := map[string]FieldNote{}
	score := map[string]int{}
	legendOnly := map[string]bool{}
	for i, o := range occs {
		next := len(text)
		if i+1 < len(occs) {
			next = occs[i+1].at
		}
		end := annotationEnd(text, o.body, next)
		ft := FieldNote{Ctx: text[o.body:end], Start: o.at, End: end}
		n := 0
		for _, w := range wordTokRe.FindAllString(ft.Ctx, -1) {
			if slices.Contains(vocab, strings.ToLower(w)) {
				n++
			}
		}
		legend := inLegend(o.at)
		prev, seen := out[o.field]
		switch {
		case seen && legend && !legendOnly[o.field]:
		case !seen, !legend && legendOnly[o.field], n > score[o.field], n == score[o.field] && prev.Ctx == "":
			out[o.field], score[o.field], legendOnly[o.field] = ft, n, legend
		}
	}
	return out
}

// annotationEnd is where an annotation that opens at body ends: at its
// closing bracket, or at the end of its line or the next field.
func annotationEnd(text string, body, next int) int {
	if closer, ok := annotationOpen[text[body]]; ok {
		depth := 0
		for i := body; i < len(text) && i < body+400; i++ {
			switch text[i] {
			case text[body]:
				depth++
			case closer:
				if depth--; depth == 0 {
					return i + 1
				}
			case '\n':
				return i
			}
		}
	}
	end := min(next, len(text), body+300)
	if i := strings.IndexByte(text[body+1:end], '\n'); i >= 0 {
		end = body + 1 + i
	}
	return max(end, body+1)
}

// LegendText is text outside the fields' annotations: where a legend
// explains them.
func LegendText(text string, fts map[string]FieldNote) string {
	b := []byte(text)
	for _, ft := range fts {
		for i := ft.Start; i < ft.End; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// legendMeanings reads key → meaning pairs from legend text. A meaning
// may itself be the next key ("Key: t=type"), so each search starts just
// after the last key found.
func legendMeanings(legend string) map[string]string {
	out := map[string]string{}
	legend = tableRowRe.ReplaceAllString(legend, "$1: $2")
	for _, m := range symbolPairRe.FindAllStringSubmatch(legend, -1) {
		if _, seen := out[m[1]]; !seen {
			out[m[1]] = strings.ToLower(m[2])
		}
	}
	for pos := 0; pos < len(legend); {
		m := legendPairRe.FindStringSubmatchIndex(legend[pos:])
		if m == nil {
			break
		}
		key, meaning := legend[pos+m[2]:pos+m[3]], legend[pos+m[4]:pos+m[5]]
		if _, seen := out[key]; !seen {
			out[key] = strings.ToLower(meaning)
		}
		pos += m[3]
	}
	return out
}

// keysMeaning are the legend keys whose meaning matches re, plus the
// plain words that say the same.
func keysMeaning(meanings map[string]string, re *regexp.Regexp, plain ...string) []string {
	out := slices.Clone(plain)
	for k, m := range meanings {
		if re.MatchString(m) {
			out = append(out, strings.TrimSuffix(k, "=false"))
		}
	}
	return out
}

// tableRowRe is a two-column markdown table row: | key | meaning |.
var tableRowRe = regexp.MustCompile(`(?m)^\|\s*([^|\n]+?)\s*\|\s*([^|\n]+?)\s*\|\s*$`)

var (
	itemSepRe      = regexp.MustCompile(`[,;|\s\[\](){}<>]+`)
	exactMeaningRe = regexp.MustCompile(`exact|equal`)
	sortMeaningRe  = regexp.MustCompile(`sort|order`)
)

// Unexplained are the abbreviations the fields' annotations use that the
// legend does not explain: short keys that are no plain word.
func Unexplained(fts map[string]FieldNote, legend string, fields []string) []string {
	vocab := wordsNeedingNoLegend()
	var out []string
	for _, ft := range fts {
		for _, item := range itemSepRe.Split(ft.Ctx, -1) {
			k, _, _ := strings.Cut(item, "=")
			k, _, _ = strings.Cut(k, ":")
			k = strings.Trim(k, "\"' ")
			lk := strings.ToLower(k)
			if k == "" || len(k) > 4 || slices.Contains(vocab, lk) || slices.Contains(fields, k) || strings.Trim(k, "0123456789") == "" || slices.Contains(out, k) {
				continue
			}
			if !regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(k) + `["'”]?:?(?:<[^>]*>)?\s*(=|:|→|->|—|–|\(|\s-\s|\s+means\s|\s+is\s|\s*\|)\s*["']?<?[A-Za-z]`).MatchString(legend) {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// A TextCap is what schema text says one field allows.
type TextCap struct {
	Typ      string
	Exact    bool
	Ops      []string
	Aggs     []string
	Sortable bool
}

// readTextCap reads a field's annotation by meaning: type words, range
// operators and aggregation kinds by name, and exact filtering and sorting
// by the legend's keys for them (or the plain words).
func readTextCap(ctx string, exactKeys, sortKeys []string) TextCap {
	var c TextCap
	lower := strings.ToLower(ctx)
	if strings.Contains(lower, "date-time") {
		c.Typ = "timestamp"
	}
	for _, w := range wordTokRe.FindAllString(ctx, -1) {
		lw := strings.ToLower(w)
		switch {
		case c.Typ == "" && slices.Contains(typeWords, lw):
			c.Typ = lw
		case slices.Contains(rangeOps, lw) && !slices.Contains(c.Ops, lw):
			c.Ops = append(c.Ops, lw)
		case slices.Contains(aggKinds, lw) && !slices.Contains(c.Aggs, lw):
			c.Aggs = append(c.Aggs, lw)
		}
		if slices.Contains(exactKeys, w) || slices.Contains(exactKeys, lw) {
			c.Exact = true
		}
		if slices.Contains(sortKeys, w) || slices.Contains(sortKeys, lw) {
			c.Sortable = true
		}
	}
	// Symbol flags ("=", "~") are items of their own, not word tokens.
	for _, item := range strings.FieldsFunc(ctx, func(r rune) bool { return strings.ContainsRune(",;| \t{}()[]<>", r) }) {
		if slices.Contains(exactKeys, item) {
			c.Exact = true
		}
		if slices.Contains(sortKeys, item) {
			c.Sortable = true
		}
	}
	return c
}

// SampleValue is a value of the declared type, valid for a filter.
func SampleValue(typ string) any {
	switch typ {
	case "integer", "number", "int", "float":
		return 1
	case "boolean", "bool":
		return true
	case "timestamp", "date", "date-time", "datetime":
		return "2026-01-01T00:00:00Z"
	}
	return "mcpcheck"
}
