package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// U17, mcpcheck's own contract (recommended): an argument a read tool
// advertises works with a valid value, alone (clause 1) and in the pairs
// its schema documents (clause 2: sort with every order, group_by_time
// with every granularity). Values come from mcpcheck's fixture when it
// controls the RS, else from the target's scoped schema; enumerated
// values from the argument's own enum. Arguments are found by role in the
// target's inputSchema; a role it does not declare is not judged.
var u17 = &Check{ID: "U17", Slug: "arguments-work-together", Mode: ModeBBD, Tools: []string{"query_records", "aggregate"}, Run: func(t *T) {
	src, v, ok := validValues(t)
	if !ok {
		t.Skipf("no stream of the target's grant holds a record to read with its advertised arguments")
	}
	paired := false
	works := func(clause int, tool string, args dialect.Args, what string) {
		paired = paired || clause == 2
		t.Clause(clause, func() {
			c := t.CallRoles(tool, src.Roles(args))
			t.Assert(!c.IsError(), "%s with %s (valid values from the grant's data) must not be refused: an advertised argument that cannot work misleads the model (mcpcheck's own contract, recommended): %s",
				tool, what, c.Describe())
		})
	}
	// Clause 1: each optional argument of query_records alone.
	if t.HasRole("query_records", dialect.Fields) && len(v.fields) > 0 {
		works(1, "query_records", dialect.Args{dialect.Fields: v.fields, dialect.Limit: 2}, fmt.Sprintf("fields %v", v.fields))
	}
	if t.HasRole("query_records", dialect.Limit) {
		works(1, "query_records", dialect.Args{dialect.Limit: 2}, "limit 2")
	}
	if t.HasRole("query_records", dialect.Sort) && v.sortField != "" {
		works(1, "query_records", dialect.Args{dialect.Sort: v.sortField, dialect.Limit: 2}, "sort "+v.sortField)
	}
	for _, r := range []dialect.Role{dialect.Order, dialect.Count} {
		for _, e := range roleEnum(t, "query_records", r) {
			works(1, "query_records", dialect.Args{r: e, dialect.Limit: 2}, fmt.Sprintf("%s %q", r, e))
		}
	}
	// Clause 2: the documented pairs, every enumerated value with a valid
	// partner.
	if t.HasRole("query_records", dialect.Sort) && v.sortField != "" {
		for _, e := range roleEnum(t, "query_records", dialect.Order) {
			works(2, "query_records", dialect.Args{dialect.Sort: v.sortField, dialect.Order: e, dialect.Limit: 2}, fmt.Sprintf("sort %s and order %q", v.sortField, e))
		}
	}
	if t.HasRole("aggregate", dialect.GroupByTime) && v.timeField != "" && slices.Contains(roleEnum(t, "aggregate", dialect.Metric), "count") {
		for _, e := range roleEnum(t, "aggregate", dialect.Granularity) {
			works(2, "aggregate", dialect.Args{dialect.Metric: "count", dialect.GroupByTime: v.timeField, dialect.Granularity: e},
				fmt.Sprintf("metric count, group_by_time %s and granularity %q", v.timeField, e))
		}
	}
	if !paired {
		t.Clause(2, func() {
			if v.fromRS && v.sortField == "" && v.timeField == "" {
				t.SkipFor(CapFixture, "no documented pair has a valid partner: the RS's own /v1/schema declares neither a sort (cursor) field nor a time-bucket field; mcpcheck's fixture RS declares both")
			}
			t.Skipf("no pair the target documents (sort with order, group_by_time with granularity) has a valid partner in the grant's data")
		})
	}
}}

// argValues are valid argument values for one source.
type argValues struct {
	fields               []string // two projectable fields
	sortField, timeField string   // a sortable field; a field to bucket by time
	fromRS               bool     // read from the RS itself, not the target
}

// validValues picks the first source with a record and its valid values:
// from mcpcheck's fixture when it controls the RS, else from the target's
// scoped schema row (the RS's own, where mcpcheck can read the RS).
func validValues(t *T) (probe.Source, argValues, bool) {
	for i, s := range probe.Sources(probe.Grant(t)) {
		if i == probe.MaxStreamProbes {
			break
		}
		if len(probe.Records(t.CallRoles("query_records", s.Roles(dialect.Args{dialect.Limit: 1})))) == 0 {
			continue
		}
		var v argValues
		if t.Target.Has(CapControlledRS) {
			for _, st := range t.RS().Fixture().StreamsNamed(s.Stream) {
				if s.Conn != "" && !slices.Contains(st.Connections, s.Conn) {
					continue
				}
				v.sortField = st.CursorField
				for _, f := range st.Fields {
					if f.Name != st.PrimaryKey && len(v.fields) < 2 {
						v.fields = append(v.fields, f.Name)
					}
					if v.timeField == "" && slices.Contains(f.Aggregate, "group_by_time") {
						v.timeField = f.Name
					}
				}
			}
			return s, v, true
		}
		rows := probe.TruthRows(t, s.Stream, s.Conn, nil)
		if v.fromRS = len(rows) > 0; !v.fromRS {
			_, rows = probe.ScopedSchema(t, s.Roles(nil))
		}
		for _, r := range rows {
			v.sortField = probe.FirstNonEmpty(probe.String(r.Raw["cursor_field"]), firstOf(probe.StringList(r.Raw["sort"])))
			for _, f := range probe.FieldNames(r) {
				if f != "id" && len(v.fields) < 2 {
					v.fields = append(v.fields, f)
				}
				if v.timeField == "" && slices.Contains(probe.CapOf(r.FieldCaps[f]).Aggs, "group_by_time") {
					v.timeField = f
				}
			}
		}
		return s, v, true
	}
	return probe.Source{}, argValues{}, false
}

// roleEnum is the enum the target's inputSchema declares for the argument
// that plays role r on tool; nil when it declares none (or no argument).
func roleEnum(t *T, tool string, r dialect.Role) []string {
	if !t.HasRole(tool, r) {
		return nil
	}
	name := t.ArgName(tool, r)
	for i, tl := range t.Target.Tools {
		if tl.Name != tool {
			continue
		}
		props, _ := probe.InputProperties(t.Target.ToolsRaw[i])
		var p struct {
			Enum []any `json:"enum"`
		}
		_ = json.Unmarshal(props[name], &p)
		var out []string
		for _, e := range p.Enum {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func firstOf(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
