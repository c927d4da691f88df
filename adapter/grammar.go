package adapter

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A SchemaGrammar writes what schema(stream) shows of each stream row after
// its identity, and the legend that explains it (seed 001: a client that
// never sees structuredContent still learns every capability).
type SchemaGrammar interface {
	// Legend is the legend line of scoped schema text ("" for none) and
	// its structured form, structuredContent's field_capability_legend.
	Legend() (line string, keys map[string]string)
	// Row is a stream row's capability summary: fields, aggregations, key,
	// sort, projection, count, expand and search, as segments the text
	// joins with spaces.
	Row(row map[string]any) []string
}

// CompactGrammar is the default grammar: fields=name[t=type,eq,r=gte|lt,…]
// and one key=value segment per capability.
type CompactGrammar struct {
	// Ellipsis marks a cut name. Empty means "…".
	Ellipsis string
}

// compactLegend explains CompactGrammar's flags (seed 001).
var compactLegend = map[string]string{
	"t": "declared type", "role": "declared display role", "eq": "exact filter supported", "r": "range filter operators",
	"lex": "lexical search field", "sem": "semantic search field", "a": "aggregation capabilities", "g=false": "field is not granted",
}

const compactLegendLine = "field_capability_legend t=declared_type role=display_role eq=exact_filter r=range_filter_ops lex=lexical_search sem=semantic_search a=aggregation_caps g=false=not_granted; " +
	"filter={field:value} if eq, {field:{op:value}} for r ops; sort=cursor_field or -cursor_field; fields=[names]; aggregate metric/field/group_by from a"

const (
	maxRowFields    = 16
	maxAggFieldsPer = 12
)

// Legend implements SchemaGrammar.
func (CompactGrammar) Legend() (string, map[string]string) { return compactLegendLine, compactLegend }

func (g CompactGrammar) cut() ellipsis {
	if g.Ellipsis == "" {
		return "…"
	}
	return ellipsis(g.Ellipsis)
}

// Row implements SchemaGrammar: the capabilities a client needs for the
// next read, in text, for clients that never see structuredContent (C9).
func (g CompactGrammar) Row(row map[string]any) []string {
	e := g.cut()
	caps, _ := row["field_capabilities"].(map[string]any)
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	sort.Strings(names)
	var segs, fields []string
	aggs := map[string][]string{}
	flagsOf := make(map[string]string, len(names))
	for i, n := range names {
		flags := g.flags(caps[n])
		flagsOf[n] = flags
		if i < maxRowFields {
			fields = append(fields, e.inline(n, 60)+"["+flags+"]")
		}
		for _, tok := range strings.Split(flags, ",") {
			if kinds, ok := strings.CutPrefix(tok, "a="); ok {
				for _, k := range strings.Split(kinds, "|") {
					aggs[k] = append(aggs[k], n)
				}
			}
		}
	}
	if len(names) > maxRowFields {
		fields = append(fields, fmt.Sprintf("more:%d", len(names)-maxRowFields))
	}
	if len(fields) > 0 {
		segs = append(segs, "fields="+strings.Join(fields, ";"))
	}
	if len(aggs) > 0 {
		kinds := make([]string, 0, len(aggs))
		for k := range aggs {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			fs := aggs[k]
			if len(fs) > maxAggFieldsPer {
				fs = append(fs[:maxAggFieldsPer], fmt.Sprintf("more:%d", len(fs)-maxAggFieldsPer))
			}
			parts[i] = k + "=" + strings.Join(fs, "|")
		}
		segs = append(segs, "aggregations=count;"+strings.Join(parts, ";"))
	}
	if pk, ok := row["primary_key"].([]any); ok && len(pk) > 0 {
		segs = append(segs, "primary_key="+e.inline(str(pk[0]), 60))
	}
	if cf := str(row["cursor_field"]); cf != "" {
		segs = append(segs, "sort="+e.inline(cf, 60)+"|-"+e.inline(cf, 60))
	} else {
		// The RS contract (docs/RS-CONTRACT.md §6.2) orders every page by the stream's cursor
		// field and takes order=asc|desc, even where the schema (a client
		// grant's, on the real RS) names no sortable field.
		segs = append(segs, "sort=none order=asc|desc (pages follow the cursor field, per the RS contract; this schema names no sortable field)")
	}
	segs = append(segs, "projection=fields", "count=none|estimated|exact")
	var rels []string
	if list, ok := row["expand_capabilities"].([]any); ok {
		for _, x := range list {
			em, _ := x.(map[string]any)
			if em["usable"] != false {
				rels = append(rels, e.inline(str(em["name"]), 60))
			}
		}
	}
	if len(rels) > 0 {
		segs = append(segs, "expand="+strings.Join(rels, "|"))
	} else {
		segs = append(segs, "expand=none")
	}
	var modes []string
	for _, n := range names {
		flags := "," + flagsOf[n] + ","
		if strings.Contains(flags, ",lex,") && !slices.Contains(modes, "lexical") {
			modes = append(modes, "lexical")
		}
		if strings.Contains(flags, ",sem,") && !slices.Contains(modes, "semantic") {
			modes = append(modes, "semantic")
		}
	}
	if len(modes) > 0 {
		segs = append(segs, "search="+strings.Join(modes, "|"))
	} else if capabilityBlind(flagsOf) {
		// A schema that flags nothing (a client grant's on the real RS)
		// hides, rather than denies, what the RS's live manifest allows:
		// /v1/search matches its declared text fields (docs/RS-CONTRACT.md §10.1).
		segs = append(segs, "search=unflagged (this schema flags no field; per the RS contract the search tool still matches the manifest's text fields)")
	}
	return segs
}

// capabilityBlind reports a row whose every field carries no flag at all.
func capabilityBlind(flagsOf map[string]string) bool {
	for _, f := range flagsOf {
		if f != "declared" {
			return false
		}
	}
	return len(flagsOf) > 0
}

// flags is a field's compact flag string. A detail=full document holds
// capability objects; they are rendered in the same grammar, so the legend
// explains both (docs/RS-CONTRACT.md §4.2, §4.4).
func (g CompactGrammar) flags(v any) string {
	e := g.cut()
	m, ok := v.(map[string]any)
	if !ok {
		return str(v)
	}
	usable := func(k string) (map[string]any, bool) {
		c, _ := m[k].(map[string]any)
		return c, c != nil && c["usable"] == true
	}
	var toks []string
	typ := str(m["type"])
	if sch, _ := m["schema"].(map[string]any); typ == "" && sch != nil {
		typ = str(sch["type"])
		if sch["format"] == "date-time" {
			typ = "timestamp"
		}
	}
	if typ != "" {
		toks = append(toks, "t="+e.inline(typ, 40))
	}
	if r := str(m["role"]); r != "" {
		toks = append(toks, "role="+e.inline(r, 40))
	}
	if m["granted"] == false {
		toks = append(toks, "g=false")
	}
	if _, ok := usable("exact_filter"); ok {
		toks = append(toks, "eq")
	}
	if c, ok := usable("range_filter"); ok {
		var ops []string
		list, _ := c["operators"].([]any)
		for _, o := range list {
			ops = append(ops, str(o))
		}
		toks = append(toks, "r="+strings.Join(ops, "|"))
	}
	if _, ok := usable("lexical_search"); ok {
		toks = append(toks, "lex")
	}
	if _, ok := usable("semantic_search"); ok {
		toks = append(toks, "sem")
	}
	agg, _ := m["aggregation"].(map[string]any)
	var kinds []string
	for _, k := range []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"} {
		if c, _ := agg[k].(map[string]any); c != nil && c["usable"] == true {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) > 0 {
		toks = append(toks, "a="+strings.Join(kinds, "|"))
	}
	if len(toks) == 0 {
		return "declared"
	}
	return strings.Join(toks, ",")
}
