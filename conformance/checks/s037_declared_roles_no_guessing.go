package checks

import (
	"strings"
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
			_, rows := scopedSchema(t, s.args(nil))
			if len(rows) == 0 {
				continue
			}
			for _, name := range binaryLikeName {
				if _, ok := rows[0].FieldCaps[name]; !ok {
					continue
				}
				p := t.Call("query_records", s.args(map[string]any{"limit": 1, "fields": []string{name}}))
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
		if judged == 0 {
			t.Skipf("no record of the target's grant has a binary-named field holding short plain text")
		}
	}}
