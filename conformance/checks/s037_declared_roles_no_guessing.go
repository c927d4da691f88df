package checks

import (
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// binaryLikeName are names a guess might take for binary content.
var binaryLikeName = []string{"image", "photo", "avatar", "attachment", "blob", "thumbnail", "file"}

// S037 judges the ladder's presentation (the catalog's C12 scopes it
// there: the fetch document contract derives its title and text from
// conventional names, so fetch's title and text are not judged): a field
// is not promoted or demoted by its name. A binary-named field holding
// short plain text shows inline in the record previews, as any text does.
var s037 = &Check{ID: "S037", Slug: "declared-roles-no-guessing", Mode: ModeBBD, Tools: []string{"query_records"},
	Manual: map[int]string{1: "a permission (presentation may use a declared role): no MCP answer breaks it; proxy: S029"},
	Run: func(t *T) {
		_, index := schemaIndex(t)
		judged := 0
		for i, s := range sources(index) {
			if i == maxStreamProbes {
				break
			}
			_, rows := scopedSchema(t, s.roles(nil))
			if len(rows) == 0 {
				continue
			}
			for _, name := range binaryLikeName {
				if _, ok := rows[0].FieldCaps[name]; !ok {
					continue
				}
				p := t.CallRoles("query_records", s.roles(dialect.Args{dialect.Limit: 1, dialect.Fields: []string{name}}))
				recs := records(p)
				if p.IsError() || len(recs) == 0 {
					continue
				}
				data, _ := recs[0]["data"].(map[string]any)
				if v, ok := data[name].(string); ok && v != "" && !looksBinary(v) && len(v) < 200 {
					judged++
					t.Clause(2, func() {
						t.Assert(strings.Contains(p.Text(), v), "field %q holds plain text %q; its name must not make it binary or hide it from the preview", name, v)
					})
				}
			}
		}
		if ev, fx := evidenceView(t); fx != nil {
			judged += noPromotedFields(t, ev, fx)
		}
		if judged == 0 {
			t.Skipf("no record of the target's grant has a binary-named field holding short plain text")
		}
	}}

// An undeclared field is a text field of a stream that declares a
// primary-title or primary-text role, with no role itself.
type undeclaredValue struct {
	stream, field, value string
	roleLabels           []string // the stream's declared role fields
}

// undeclaredValues lists, by value, the undeclared text fields of every
// fixture stream that declares a display role.
func undeclaredValues(fx *fakers.Fixture) []undeclaredValue {
	var out []undeclaredValue
	for _, st := range fx.Streams {
		var roles, free []string
		for _, f := range st.Fields {
			switch {
			case f.Role == "primary-title" || f.Role == "primary-text":
				roles = append(roles, f.Name)
			case f.Role == "" && f.Type == "string" && f.Name != st.PrimaryKey:
				free = append(free, f.Name)
			}
		}
		if len(roles) == 0 {
			continue
		}
		for _, r := range st.Records {
			for _, name := range free {
				if v, ok := r.Data[name].(string); ok && len(v) >= 8 && !looksBinary(v) && !strings.HasPrefix(v, "pdpp://") {
					out = append(out, undeclaredValue{st.Name, name, v, roles})
				}
			}
		}
	}
	return out
}

// promotedAs tells the display label an undeclared value is shown under:
// the label written right before it is a declared role field's name or a
// title/primary-text label. "" when the value is shown under its own name
// or not at all.
func promotedAs(text string, u undeclaredValue) string {
	labels := append([]string{"title", "primary_text", "primary-text", "primary text"}, u.roleLabels...)
	alt := make([]string, len(labels))
	for i, l := range labels {
		alt[i] = regexp.QuoteMeta(l)
	}
	re := regexp.MustCompile(`(?i)["']?\b(` + strings.Join(alt, "|") + `)["']?\s*[=:]\s*["']?\s*` + regexp.QuoteMeta(u.value[:min(len(u.value), 24)]))
	if m := re.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// noPromotedFields judges, on the evidence fork, clause 2 in the ladder's
// record previews and in search hits of each stream's declared titles: no
// undeclared field's value is shown as the record's title or primary text.
// Naming such a field with its value is listing, not promotion.
func noPromotedFields(t, ev *T, fx *fakers.Fixture) int {
	values := undeclaredValues(fx)
	if len(values) == 0 {
		return 0
	}
	var calls []*Call
	seen := map[string]bool{}
	for _, u := range values {
		if seen[u.stream] {
			continue
		}
		seen[u.stream] = true
		for _, st := range fx.StreamsNamed(u.stream) {
			if len(st.Records) == 0 {
				continue
			}
			if c := ev.CallRoles("query_records", dialect.Args{dialect.Stream: st.Name, dialect.Connection: st.Records[0].ConnectionID, dialect.Limit: 5}); !c.IsError() {
				calls = append(calls, c)
			}
			if title, _ := st.Records[0].Data[u.roleLabels[0]].(string); title != "" {
				if c := ev.CallRoles("search", dialect.Args{dialect.Query: title, dialect.Limit: 10}); !c.IsError() {
					calls = append(calls, c)
				}
			}
		}
	}
	if len(calls) == 0 {
		return 0
	}
	t.Clause(2, func() {
		for _, c := range calls {
			for _, u := range values {
				if as := promotedAs(c.Text(), u); as != "" {
					t.Fail("%s shows %s's undeclared %q (%q) as its %s: promotion by field name; %s declares its display roles (%s)",
						c.Tool, u.stream, u.field, u.value, as, u.stream, strings.Join(u.roleLabels, ", "))
				}
			}
		}
	})
	return 1
}
