package probe

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Read arguments a content-only client builds from schema text, and the
// calls that judge them.

// TextArgs are read arguments a content-only client builds from schema
// text: for each kind, the candidates the text supports, best first.
type TextArgs struct {
	Fields  []string
	Filters []map[string]any
	Sorts   []string
	Aggs    []dialect.Args
}

// maxArgTries bounds the candidates tried per argument kind: a client
// that misreads one field's annotation tries the next.
const maxArgTries = 3

var (
	sortMentionRe = regexp.MustCompile(`(?i)\b(?:sort(?:able)?(?:\s+by)?|order(?:ed)?\s+by)\b`)
	sortTokenRe   = regexp.MustCompile(`(-?)([A-Za-z_][\w.-]*)`)
	aggSectionRe  = regexp.MustCompile(`\b(count_distinct|group_by_time|group_by|max|min|sum)\b\s*[=:(]\s*([^;\n)]*)`)
)

// DeriveArgs builds projection, filter, sort and aggregate arguments from
// the schema text of one row, knowing only the row's field names (which it
// looks for by value) and, where the truth row declares them, which
// fields have which capability: a token standing on exactly those fields
// is the text's flag for it ([LearnFlags]), whatever its notation.
func DeriveArgs(text string, row SchemaRow) TextArgs {
	fields := FieldNames(row)
	var a TextArgs
	own := WithoutLegend(text)
	a.Fields = ShownFields(own, fields)
	if len(a.Fields) == 0 {
		return a
	}
	a.Fields = a.Fields[:min(2, len(a.Fields))]
	fns := FieldAnnotations(text, fields)
	flags := LearnFlags(fns, row)
	meanings := legendMeanings(LegendText(text, fns))
	exactKeys := keysMeaning(meanings, exactMeaningRe, "eq", "exact", "equals", "equality")
	sortKeys := keysMeaning(meanings, sortMeaningRe, "sort", "sortable")
	caps := map[string]TextCap{}
	var names []string
	for f, fn := range fns {
		c := readTextCap(fn.Ctx, exactKeys, sortKeys)
		c.Exact = c.Exact || Flagged(fns, flags, f, CapExact)
		c.Sortable = c.Sortable || Flagged(fns, flags, f, CapSort)
		if len(c.Ops) == 0 && Flagged(fns, flags, f, CapRange) {
			c.Ops = slices.DeleteFunc(annotationTokens(fn.Ctx), func(tok string) bool { return !slices.Contains(rangeOps, tok) })
		}
		for _, k := range aggKinds {
			if !slices.Contains(c.Aggs, k) && Flagged(fns, flags, f, k) {
				c.Aggs = append(c.Aggs, k)
			}
		}
		caps[f] = c
		names = append(names, f)
	}
	sort.Strings(names)
	// Fields the text types first: their filter values have the right type.
	slices.SortStableFunc(names, func(x, y string) int { return boolRank(caps[x].Typ == "") - boolRank(caps[y].Typ == "") })
	for _, f := range names {
		switch c := caps[f]; {
		case c.Exact && f != "id":
			a.Filters = append(a.Filters, map[string]any{f: SampleValue(c.Typ)})
		case len(c.Ops) > 0:
			a.Filters = append(a.Filters, map[string]any{f: map[string]any{c.Ops[0]: SampleValue(c.Typ)}})
		}
	}
	a.Sorts = sortMentions(own, fields)
	for _, f := range names {
		if caps[f].Sortable && !slices.Contains(a.Sorts, f) {
			a.Sorts = append(a.Sorts, f)
		}
	}
	byKind := map[string][]string{}
	for _, f := range names {
		for _, k := range caps[f].Aggs {
			byKind[k] = append(byKind[k], f)
		}
	}
	for _, m := range aggSectionRe.FindAllStringSubmatch(own, -1) {
		for _, f := range ShownFields(m[2], fields) {
			if !slices.Contains(byKind[m[1]], f) {
				byKind[m[1]] = append(byKind[m[1]], f)
			}
		}
	}
	for _, k := range []string{"count_distinct", "max", "min", "sum", "group_by", "group_by_time"} {
		for _, f := range byKind[k] {
			switch k {
			case "group_by":
				a.Aggs = append(a.Aggs, dialect.Args{dialect.Metric: "count", dialect.GroupBy: f})
			case "group_by_time":
				a.Aggs = append(a.Aggs, dialect.Args{dialect.Metric: "count", dialect.GroupByTime: f, dialect.Granularity: "day"})
			default:
				a.Aggs = append(a.Aggs, dialect.Args{dialect.Metric: k, dialect.Field: f})
			}
		}
	}
	return a
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

const filterKind = "filterable field (exact or range)"

// sentBareFilter reports an RS request, since the first before logged,
// that carried a bare filter= instead of filter[field]… parameters.
func sentBareFilter(t *conformance.T, before int) bool {
	if !t.Target.Has(conformance.CapControlledRS) {
		return false
	}
	return slices.ContainsFunc(t.RS().RequestsTo("/v1/")[before:], func(r fakers.Request) bool {
		q, _ := url.ParseQuery(r.RawQuery)
		return q.Has("filter")
	})
}

// kindStems are the words a row's text says a kind of argument with, in
// any grammar: a text none of whose lines outside the legend holds one
// (nor, for projection, a field name) gives a content-only client nothing
// to choose that kind by.
var kindStems = map[string][]string{
	filterKind:           {"filter", "eq", "exact", "equal", "range", "gte", "gt", "lte", "lt", "="},
	"sortable field":     {"sort", "order", "asc", "desc"},
	"aggregatable field": {"aggregat", "sum", "min", "max", "count_distinct", "group_by", "group"},
	projectionKind:       {"field", "fields"},
}

const projectionKind = "field names (projection)"

// JudgeTextArgs calls query_records and aggregate with arguments a
// content-only client built from the text of what (a row), on src: for
// each kind the grant offers, one of the first candidates must be
// accepted. A kind the grant offers none of is not applicable: the text
// that says "none" is truthful. Filter values come from the grant's own
// records where mcpcheck holds them. The witness of a failure is a call
// built only from the text (and the grant's records) that the target
// refuses, or a row whose text outside its legend never words the kind.
func JudgeTextArgs(t *conformance.T, src Source, text string, a TextArgs, offered GrantOffers, what string) {
	JudgeTextArgsIn(t, src, text, text, a, offered, what, nil)
}

// JudgeTextArgsIn is JudgeTextArgs on the part of a text that describes
// one row (part), where the witness that a kind is never worded is looked
// for in the whole text, and for projection, the row's own distinctive
// fields (own) are.
func JudgeTextArgsIn(t *conformance.T, src Source, part, text string, a TextArgs, offered GrantOffers, what string, own []string) {
	from := conformance.Answers(conformance.Shown("the schema text of "+what, part), grantValues(t, src.Stream), conformance.Shown("the tools' input schemas", string(toolsJSON(t.Target))))
	whole := conformance.Shown("the schema text, legend aside", WithoutLegend(text))
	try := func(tool, kind string, cands []dialect.Args, offers bool) {
		if len(cands) == 0 && (!offers || tool == "aggregate" && declaresNoAggregations(t, src.Stream)) {
			return // the grant offers no valid argument of this kind: nothing for the text to show
		}
		if !t.AssertWith(len(cands) > 0, func() (conformance.Witness, error) {
			if kind == projectionKind && len(own) > 0 {
				return conformance.AbsentAll(factsOf(own...), whole)
			}
			return conformance.AbsentAll(factsOf(kindStems[kind]...), whole)
		}, "%s: the text shows no %s a client reading only content[] could use", what, kind) {
			return
		}
		var tried []string
		var last *conformance.Call
		before := RSRequestCount(t, "/v1/")
		for _, extra := range cands[:min(maxArgTries, len(cands))] {
			c := t.CallRoles(tool, src.Roles(withGrantValues(t, src.Stream, extra)))
			if !c.IsError() {
				t.Held()
				return
			}
			last = c
			tried = append(tried, c.Describe())
		}
		if kind == filterKind && sentBareFilter(t, before) {
			t.BlockedBy("U01", "%s: the filters built from the text reached the RS as a bare filter= (U01 owns the encoding)", what)
		}
		w, err := conformance.Refused(last, from)
		t.FailWith(w, err, "%s: no %s built from the text alone was accepted:\n%s", what, kind, strings.Join(tried, "\n"))
	}
	var projections, filters, sorts []dialect.Args
	if len(a.Fields) > 0 {
		projections = append(projections, dialect.Args{dialect.Fields: a.Fields, dialect.Limit: 2})
	}
	for _, f := range a.Filters {
		filters = append(filters, dialect.Args{dialect.Filter: f, dialect.Limit: 2})
	}
	for _, s := range a.Sorts {
		sorts = append(sorts, dialect.Args{dialect.Sort: s, dialect.Limit: 2})
	}
	try("query_records", projectionKind, projections, true)
	try("query_records", "sortable field", sorts, offered.Sort)
	try("aggregate", "aggregatable field", a.Aggs, offered.Aggregate)
	try("query_records", filterKind, filters, offered.Filter) // last: a broken encoding blocks the judgement (U01)
}

// factsOf are strings as facts.
func factsOf(ss ...string) []read.Fact {
	out := make([]read.Fact, len(ss))
	for i, s := range ss {
		out[i] = read.Text(s)
	}
	return out
}

// toolsJSON is the target's tools array as received.
func toolsJSON(tgt *conformance.Target) []byte { return conformance.ToolsArrayBytes(tgt.ToolsRaw) }

// grantValues are the values of stream's records in the fixture, as
// evidence that a filter value came from the grant's own data.
func grantValues(t *conformance.T, stream string) conformance.Evidence {
	var vals []string
	if t.Target.Has(conformance.CapControlledRS) {
		for _, s := range t.RS().Fixture().StreamsNamed(stream) {
			for _, r := range s.Records[:min(len(s.Records), 5)] {
				for _, v := range r.Data {
					vals = append(vals, fmt.Sprint(v))
				}
			}
		}
	}
	return conformance.Shown("the grant's records of "+stream, strings.Join(vals, "\n"))
}

// withGrantValues puts a value of the grant's own records in each filter
// of args (a sample value where mcpcheck holds no records).
func withGrantValues(t *conformance.T, stream string, args dialect.Args) dialect.Args {
	f, ok := args[dialect.Filter].(map[string]any)
	if !ok || !t.Target.Has(conformance.CapControlledRS) {
		return args
	}
	out := dialect.Args{}
	for k, v := range args {
		out[k] = v
	}
	filter := map[string]any{}
	for field, cond := range f {
		v := recordValue(t, stream, field)
		switch c := cond.(type) {
		case map[string]any:
			m := map[string]any{}
			for op, sample := range c {
				m[op] = firstNonNil(v, sample)
			}
			filter[field] = m
		default:
			filter[field] = firstNonNil(v, c)
		}
	}
	out[dialect.Filter] = filter
	return out
}

func firstNonNil(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

// recordValue is field's scalar value in the first record of stream that
// holds one, or nil.
func recordValue(t *conformance.T, stream, field string) any {
	for _, s := range t.RS().Fixture().StreamsNamed(stream) {
		for _, r := range s.Records {
			switch v := r.Data[field].(type) {
			case string, float64, int, int64, bool:
				return v
			}
		}
	}
	return nil
}

// declaresNoAggregations reports that mcpcheck's fixture RS serves stream
// with no aggregation support on any field. Without a fixture RS it does
// not know, and says false.
func declaresNoAggregations(t *conformance.T, stream string) bool {
	if !t.Target.Has(conformance.CapControlledRS) {
		return false
	}
	for _, s := range t.RS().Fixture().Streams {
		if s.Name != stream {
			continue
		}
		if !s.NoAggregations {
			for _, f := range s.Fields {
				if len(f.Aggregate) > 0 {
					return false
				}
			}
		}
	}
	return true
}

// sortMentions are the fields a text offers to sort by: after each
// mention of sorting, the first field name (found by value, a leading "-"
// kept) within the rest of its line, at most 60 characters on; words
// that are no field ("sort: sort=…") are passed over.
func sortMentions(text string, fields []string) []string {
	var out []string
	for _, loc := range sortMentionRe.FindAllStringIndex(text, -1) {
		rest := text[loc[1]:min(len(text), loc[1]+60)]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i]
		}
		for _, m := range sortTokenRe.FindAllStringSubmatch(rest, -1) {
			if slices.Contains(fields, m[2]) {
				if !slices.Contains(out, m[1]+m[2]) {
					out = append(out, m[1]+m[2])
				}
				break
			}
		}
	}
	return out
}
