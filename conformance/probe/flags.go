package probe

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Capability flags learnt by value: mcpcheck knows, from its fixture,
// which fields of a row can be filtered, range-filtered, searched, sorted
// or aggregated, so a token of the fields' annotations that stands on
// exactly the fields with a capability (and on no other annotated field)
// is the text's flag for it, in whatever notation: "F", "=", "filter=eq",
// "lex", "?", "A<sum>". Nothing is assumed of the grammar.

// FieldAnnotations finds each field's annotation in schema text: the rest
// of a line the field's name begins (a field per line), else what follows
// its name in brackets or after a colon or equals sign (FieldNotes).
func FieldAnnotations(text string, fields []string) map[string]FieldNote {
	out := map[string]FieldNote{}
	score := map[string]int{}
	vocab := capVocabulary()
	pos := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		first := firstWordRe.FindStringSubmatchIndex(line)
		if first != nil && !legendLineRe.MatchString(line) {
			name := line[first[2]:first[3]]
			if slices.Contains(fields, name) {
				end := strings.TrimRight(line, "\n")
				note := FieldNote{Ctx: end[first[3]:], Start: pos + first[3], End: pos + len(end)}
				// Of the lines a name begins ("label: Work Mail" and the
				// field's own), the one that says most about capabilities.
				n := 0
				for _, tok := range annotationTokens(note.Ctx) {
					if slices.Contains(vocab, strings.ToLower(tok)) || !wordTokRe.MatchString(tok) {
						n++
					}
				}
				if _, seen := out[name]; !seen || n > score[name] {
					out[name], score[name] = note, n
				}
			}
		}
		pos += len(line)
	}
	if len(out) >= min(2, len(fields)) {
		return out
	}
	return FieldNotes(text, fields)
}

// firstWordRe is a line's first name, after any indent, bullet or number.
var firstWordRe = regexp.MustCompile(`^[\s\-*•·■▪>|#\d.)]*([A-Za-z_][A-Za-z0-9_.]*)`)

// Capability names a learnt flag can mark.
const (
	CapExact    = "exact filter"
	CapRange    = "range filter"
	CapLexical  = "lexical search"
	CapSemantic = "semantic search"
	CapSort     = "sort"
	CapAgg      = "aggregation"
)

// annotationTokenRe splits an annotation into tokens: words, and runs of
// symbols a grammar may use as flags ("=", "<>", "?", "~", "#").
var annotationTokenRe = regexp.MustCompile(`[A-Za-z0-9_]+|[=~?#@!*+<>≈%$^&]+`)

func annotationTokens(ctx string) []string {
	var out []string
	for _, m := range annotationTokenRe.FindAllStringIndex(ctx, -1) {
		tok := ctx[m[0]:m[1]]
		// A symbol between two words ("role=text", "R<gte") separates
		// them; only one that stands apart can be a flag.
		if !wordTokRe.MatchString(tok) && m[0] > 0 && m[1] < len(ctx) && isWordByte(ctx[m[0]-1]) && isWordByte(ctx[m[1]]) {
			continue
		}
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out
}

// TruthCaps are, per capability, the fields of row that have it: the
// exact and range filters, search modes, the sort (cursor) field, any
// aggregation, and each aggregation kind by its name.
func TruthCaps(row SchemaRow) map[string][]string {
	out := map[string][]string{}
	for f, v := range row.FieldCaps {
		c := CapOf(v)
		add := func(k string, on bool) {
			if on {
				out[k] = append(out[k], f)
			}
		}
		add(CapExact, c.Exact)
		add(CapRange, len(c.Ops) > 0)
		add(CapLexical, c.Lexical)
		add(CapSemantic, c.Semantic)
		add(CapAgg, len(c.Aggs) > 0)
		for _, k := range c.Aggs {
			add(k, true)
		}
	}
	if cf := String(row.Raw["cursor_field"]); cf != "" {
		out[CapSort] = []string{cf}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

// LearnFlags finds, per capability, the tokens that stand in the
// annotations of exactly the fields that have it. A capability every
// annotated field has, or none, can teach no flag.
func LearnFlags(notes map[string]FieldNote, row SchemaRow) map[string][]string {
	on := map[string][]string{}
	var annotated []string
	for f, n := range notes {
		annotated = append(annotated, f)
		for _, tok := range annotationTokens(n.Ctx) {
			on[tok] = append(on[tok], f)
		}
	}
	sort.Strings(annotated)
	traits := traitSets(row, annotated)
	out := map[string][]string{}
	for capName, fields := range TruthCaps(row) {
		want := slices.DeleteFunc(slices.Clone(fields), func(f string) bool { return !slices.Contains(annotated, f) })
		// One field's capability cannot be told from its other traits
		// (its type, its name's parts): only two fields or more teach.
		if len(want) < 2 || len(want) == len(annotated) {
			continue
		}
		// Fields that share the capability and another trait (a display
		// role, a type) cannot tell a flag of one from a mark of the other.
		if slices.ContainsFunc(traits, func(tr []string) bool { return slices.Equal(tr, want) }) {
			continue
		}
		for tok, fs := range on {
			got := slices.Clone(fs)
			sort.Strings(got)
			if slices.Equal(got, want) {
				out[capName] = append(out[capName], tok)
			}
		}
		sort.Strings(out[capName])
	}
	return out
}

// traitSets are the sets of annotated fields that share a trait other
// than a capability: a display role (any, or each one), or a type.
func traitSets(row SchemaRow, annotated []string) [][]string {
	by := map[string][]string{}
	for _, f := range annotated {
		m, _ := row.FieldCaps[f].(map[string]any)
		if role := String(m["role"]); role != "" {
			by["role"] = append(by["role"], f)
			by["role="+role] = append(by["role="+role], f)
		}
		if typ := CapOf(row.FieldCaps[f]).Type; typ != "" {
			by["type="+typ] = append(by["type="+typ], f)
		}
	}
	var out [][]string
	for _, fs := range by {
		sort.Strings(fs)
		out = append(out, fs)
	}
	return out
}

// Flagged reports whether field f's annotation holds a learnt flag of
// capability c.
func Flagged(notes map[string]FieldNote, flags map[string][]string, f, c string) bool {
	n, ok := notes[f]
	if !ok {
		return false
	}
	toks := annotationTokens(n.Ctx)
	return slices.ContainsFunc(flags[c], func(tok string) bool { return slices.Contains(toks, tok) })
}

// Abbreviations are the learnt flags a client needs a legend for:
// symbols, and short words that are no plain word or operator name.
func Abbreviations(flags map[string][]string) []string {
	plain := wordsNeedingNoLegend()
	var out []string
	for _, toks := range flags {
		for _, tok := range toks {
			if !slices.Contains(plain, strings.ToLower(tok)) && !(wordTokRe.MatchString(tok) && len(tok) > 4) && !slices.Contains(out, tok) {
				out = append(out, tok)
			}
		}
	}
	sort.Strings(out)
	return out
}
