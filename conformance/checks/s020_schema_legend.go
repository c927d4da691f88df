package checks

import (
	"regexp"
	"sort"
	"strings"

	. "github.com/onsi/gomega"
)

var (
	// fieldFlagsRe finds `name[flags]` in schema text: the compact grammar.
	fieldFlagsRe = regexp.MustCompile(`([A-Za-z_][\w.-]*)\[([a-z]+(?:=[^\],;\s]*)?(?:,[a-z]+(?:=[^\],;\s]*)?)*)\]`)
	sortHintRe   = regexp.MustCompile(`\bsort=([A-Za-z_][\w.-]*)`)
	legendLineRe = regexp.MustCompile(`(?im)^.*legend.*$`)
)

// parsedField is one field as a content-only client reads it from text.
type parsedField struct {
	name, typ string
	eq        bool
	ops       []string
	aggs      []string
}

func parseFieldFlags(text string) ([]parsedField, map[string]bool) {
	var out []parsedField
	keys := map[string]bool{}
	for _, m := range fieldFlagsRe.FindAllStringSubmatch(text, -1) {
		f := parsedField{name: m[1]}
		for _, tok := range strings.Split(m[2], ",") {
			k, v, _ := strings.Cut(tok, "=")
			if tok == "g=false" {
				k = "g=false"
			}
			keys[k] = true
			switch k {
			case "t":
				f.typ = v
			case "eq":
				f.eq = true
			case "r":
				f.ops = strings.Split(v, "|")
			case "a":
				f.aggs = strings.Split(v, "|")
			}
		}
		out = append(out, f)
	}
	return out, keys
}

// sampleValue is a value of the declared type, valid for a filter.
func sampleValue(typ string) any {
	switch typ {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "timestamp", "date", "date-time":
		return "2026-01-01T00:00:00Z"
	}
	return "mcpcheck"
}

var s020 = &Check{ID: "S020", Slug: "schema-legend", Mode: ModeBBD, Run: func(t *T) {
	// A content-only client knows only what the global text names.
	c, _ := schemaIndex(t)
	listed := textStreamRows(c.Text())
	if len(listed) == 0 {
		t.Skipf("the schema {} text names no stream as stream name=… or stream_index … streams=…, so mcpcheck cannot pick one from text alone")
	}
	var (
		stream, conn, text string
		fields             []parsedField
		keys               map[string]bool
	)
	for _, row := range listed {
		args, cn := map[string]any{"stream": row.name}, ""
		if len(row.conns) > 0 {
			cn = row.conns[0]
			args["connection_id"] = cn
		}
		sc, _ := scopedSchema(t, args)
		if fs, ks := parseFieldFlags(sc.Text()); len(fs) > 0 {
			stream, conn, text, fields, keys = row.name, cn, sc.Text(), fs, ks
			break
		}
	}
	if stream == "" {
		t.Skipf("no schema(stream) text uses an abbreviated name[flags] grammar, so no legend is required")
	}
	legend := strings.Join(legendLineRe.FindAllString(text, -1), "\n")
	t.Expect(legend).NotTo(BeEmpty(), "text that uses abbreviated flags must carry a legend:\n%s", clipText(text, 600))
	var unexplained []string
	for k := range keys {
		if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(k) + `=[A-Za-z_]`).MatchString(legend) {
			unexplained = append(unexplained, k)
		}
	}
	sort.Strings(unexplained)
	t.Expect(unexplained).To(BeEmpty(), "the legend must explain every flag the text uses:\n%s", legend)

	// A content-only client builds every argument kind from the text alone.
	args := map[string]any{"stream": stream, "limit": 2}
	agg := map[string]any{"stream": stream}
	if conn != "" {
		args["connection_id"], agg["connection_id"] = conn, conn
	}
	filter := map[string]any{}
	var names []string
	for _, f := range fields {
		names = append(names, f.name)
		switch {
		case f.eq && len(filter) == 0:
			filter[f.name] = sampleValue(f.typ)
		case len(f.ops) > 0 && f.ops[0] != "" && filter[f.name] == nil:
			filter[f.name] = map[string]any{f.ops[0]: sampleValue(f.typ)}
		}
		for _, a := range f.aggs {
			if agg["metric"] != nil {
				break
			}
			switch a {
			case "group_by":
				agg["metric"], agg["group_by"] = "count", f.name
			case "count_distinct", "max", "min", "sum":
				agg["metric"], agg["field"] = a, f.name
			}
		}
	}
	t.Expect(filter).NotTo(BeEmpty(), "the text must show a filterable field (eq or r=) for stream %q", stream)
	args["filter"], args["fields"] = filter, names[:min(2, len(names))]
	m := sortHintRe.FindStringSubmatch(legendLineRe.ReplaceAllString(text, ""))
	t.Expect(m).NotTo(BeNil(), "the text must show which field sorts stream %q (sort=…)", stream)
	args["sort"] = m[1]
	q := t.Call("query_records", args)
	t.Expect(q.IsError()).To(BeFalse(), "a filter, sort and projection built from the schema text alone must be valid: %s", q.Describe())
	if agg["metric"] == nil {
		t.Skipf("stream %q shows no aggregatable field, so the aggregate half cannot run", stream)
	}
	a := t.Call("aggregate", agg)
	t.Expect(a.IsError()).To(BeFalse(), "an aggregate built from the schema text alone must be valid: %s", a.Describe())
}}
