package checks

import (
	"strings"

	. "github.com/onsi/gomega"
)

// Names an adapter might be tempted to promote without a declared role.
var (
	titleLikeNames = []string{"title", "name", "subject", "summary", "headline"}
	textLikeNames  = []string{"text", "content", "body", "summary", "description"}
	binaryLikeName = []string{"image", "photo", "avatar", "attachment", "blob", "thumbnail", "file"}
)

var s037 = &Check{ID: "S037", Slug: "declared-roles-no-guessing", Mode: ModeBBD, Run: func(t *T) {
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
		roles := map[string]string{}
		for f, v := range rows[0].FieldCaps {
			for _, tok := range flagTokens(v) {
				if r, ok := strings.CutPrefix(tok, "role="); ok {
					roles[f] = r
				}
			}
		}
		c := t.Call("query_records", s.args(map[string]any{"limit": 3}))
		for _, r := range records(c) {
			data, _ := r["data"].(map[string]any)
			id := str(r["id"])
			if data == nil || id == "" || s.conn == "" {
				continue
			}
			trapTitle, trapText := trap(data, roles, titleLikeNames, "primary-title"), trap(data, roles, textLikeNames, "primary-text")
			if trapTitle == "" && trapText == "" {
				continue
			}
			judged++
			f := t.Call("fetch", map[string]any{"id": s.conn + "/" + s.stream + ":" + id})
			doc := readDocument(t, f)
			if trapTitle != "" {
				t.Expect(doc["title"]).NotTo(Equal(data[trapTitle]), "fetch titled %s by field %q, which declares no primary-title role", id, trapTitle)
			}
			if trapText != "" {
				t.Expect(doc["text"]).NotTo(Equal(data[trapText]), "fetch used field %q, which declares no primary-text role, as the text of %s", trapText, id)
			}
			break
		}
		// Binary by value shape, not by name: a binary-named field holding
		// short plain text shows inline.
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
				t.Expect(p.Text()).To(ContainSubstring(v), "field %q holds plain text %q; a field name must not make it binary", name, v)
			}
		}
	}
	if judged == 0 {
		t.Skipf("no record of the target's grant has an undeclared title- or text-like field, or a binary-named text field")
	}
}}

// trap is a field named like a presentation field whose value a guess
// would promote, while the stream does not declare it in that role.
func trap(data map[string]any, roles map[string]string, names []string, role string) string {
	for _, n := range names {
		if s, ok := data[n].(string); ok && s != "" && roles[n] != role && !looksBinary(s) {
			return n
		}
	}
	return ""
}
