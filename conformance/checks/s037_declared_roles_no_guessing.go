package checks

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// binaryLikeName are names a guess might take for binary content.
var binaryLikeName = []string{"image", "photo", "avatar", "attachment", "blob", "thumbnail", "file"}

// S037 judges presentation: a field is not promoted or demoted by its
// name. A binary-named field holding short plain text shows inline in the
// record previews, as any text does. Fetch documents are presentation too
// (catalog C12, corrected): where a stream declares primary-title or
// primary-text, the document's title and text never come from an
// undeclared field; where it declares neither, a fallback from source
// identity and a timestamp is the adapter's to choose, and not judged.
var s037 = &Check{ID: "S037", Slug: "declared-roles-no-guessing", Mode: ModeBBD, Tools: []string{"query_records"},
	Manual: map[int]string{1: "a permission (presentation may use a declared role): no MCP answer breaks it; proxy: S029"},
	Run: func(t *T) {
		// A binary-named field holding short plain text, found in the
		// fixture; a page of its source that shows a record holding it
		// must show the text.
		judged := 0
		done := map[string]bool{}
		for _, r := range probe.FixtureRecords(t) {
			for _, name := range binaryLikeName {
				v, ok := r.Data[name].(string)
				src := r.Ref.Stream + "\x00" + r.Ref.Conn + "\x00" + name
				if !ok || v == "" || probe.LooksBinary(v) || len(v) >= 200 || done[src] || !probe.InGrant(t, r.Ref) {
					continue
				}
				done[src] = true
				// Projected to the field where the target projects, so a
				// bounded preview has room for it; the RS's own answer to
				// the read says whether the page holds the text.
				args := dialect.Args{dialect.Stream: r.Ref.Stream, dialect.Connection: r.Ref.Conn, dialect.Limit: 1}
				if t.HasRole("query_records", dialect.Fields) {
					args[dialect.Fields] = []string{name}
				}
				p, env := probe.CallWithEnvelope(t, "query_records", args, probe.RecordsPath(r.Ref.Stream))
				if p.IsError() || !slices.Contains(probe.StringValues(env), v) {
					continue
				}
				judged++
				t.Clause(2, func() {
					t.Shows(conformance.TextOf(p), read.Text(v), "field %q holds plain text %q; its name must not make it binary or hide it from the preview", name, v)
				})
			}
		}
		// Documents are judged on the target's own data too: its streams
		// declare display roles as well as the evidence ladder's do.
		judged += noPromotedDocumentFields(t, t, t.RS().Fixture())
		if ev, fx := probe.EvidenceView(t); fx != nil {
			judged += noPromotedFields(t, ev, fx)
			judged += noPromotedDocumentFields(t, ev, fx)
		}
		if judged == 0 {
			t.Skipf("no record of the target's grant has a binary-named field holding short plain text")
		}
	}}

// An undeclared field is a text field of a stream that declares a
// primary-title or primary-text role, with no role itself.
type undeclaredValue struct {
	stream, record, field, value string
	roleLabels                   []string // the stream's declared role fields
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
				if v, ok := r.Data[name].(string); ok && len(v) >= 8 && !probe.LooksBinary(v) && !strings.HasPrefix(v, "pdpp://") {
					out = append(out, undeclaredValue{st.Name, r.ID, name, v, roles})
				}
			}
		}
	}
	return out
}

// promotedAs tells the display label an undeclared value is shown under,
// and the label with the value's head as the text writes them (the
// witness): the label written right before it is a declared role field's
// name or a title/primary-text label. "" when the value is shown under its
// own name or not at all.
func promotedAs(text string, u undeclaredValue) (label, as string) {
	labels := append([]string{"title", "primary_text", "primary-text", "primary text"}, u.roleLabels...)
	alt := make([]string, len(labels))
	for i, l := range labels {
		alt[i] = regexp.QuoteMeta(l)
	}
	re := regexp.MustCompile(`(?i)\b(` + strings.Join(alt, "|") + `)["']?\s*[=:]\s*["']?\s*` + regexp.QuoteMeta(wordHead(u.value, 24)))
	if m := re.FindStringSubmatch(text); m != nil {
		return m[1], m[0]
	}
	return "", ""
}

// wordHead is v cut to at most n bytes at a word's end, so that it stands
// in a text as a token of its own.
func wordHead(v string, n int) string {
	if len(v) <= n {
		return v
	}
	if i := strings.LastIndexByte(v[:n+1], ' '); i > 0 {
		return strings.TrimRight(v[:i], " ,;:")
	}
	return v[:n]
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
				if label, as := promotedAs(c.Text(), u); label != "" {
					t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(as, conformance.TextOf(c)) },
						"%s shows %s's undeclared %q (%q) as its %s: promotion by field name; %s declares its display roles (%s)",
						c.Tool, u.stream, u.field, u.value, label, u.stream, strings.Join(u.roleLabels, ", "))
				}
			}
		}
	})
	return 1
}

// noPromotedDocumentFields judges clause 2 on fetch documents of the
// first page of each fixture stream that declares a display role: the
// title holds no undeclared field's value that no declared field holds
// too, and the text does not open with one. Each record the page shows is
// reached by following its handle, since a guess may fire only where its
// field is present.
func noPromotedDocumentFields(t, view *T, fx *fakers.Fixture) int {
	byRecord := map[probe.RecordRef][]undeclaredValue{}
	for _, st := range fx.Streams {
		for _, r := range st.Records {
			for _, u := range undeclaredValues(fx) {
				if u.stream == st.Name && u.record == r.ID {
					ref := probe.RecordRef{Conn: r.ConnectionID, Stream: st.Name, ID: r.ID}
					byRecord[ref] = append(byRecord[ref], u)
				}
			}
		}
	}
	judged := 0
	seen := map[string]bool{}
	for _, st := range fx.Streams {
		if seen[st.Name] || len(st.Records) == 0 {
			continue
		}
		src := probe.Source{Stream: st.Name, Conn: st.Records[0].ConnectionID}
		page := view.CallRoles("query_records", src.Roles(dialect.Args{dialect.Limit: 3}))
		shown := strings.Join(page.Strings(), "\n")
		var want []probe.RecordRef
		for _, r := range st.Records {
			ref := probe.RecordRef{Conn: r.ConnectionID, Stream: st.Name, ID: r.ID}
			if r.ConnectionID == src.Conn && len(byRecord[ref]) > 0 && read.ContainsToken(shown, r.ID) {
				want = append(want, ref)
			}
		}
		handles := probe.Handles(view, page, want)
		for _, ref := range want {
			f := probe.Follow(view, handles[ref])
			if handles[ref] == "" || !f.OK || f.Ref != ref {
				continue
			}
			seen[st.Name] = true
			judged++
			doc := f.Call.Structured()
			title, text := probe.String(doc["title"]), strings.TrimLeft(probe.String(doc["text"]), " \t\n\"'")
			titleEv := conformance.Shown(f.Call.Describe()+" (its document's title)", title)
			textEv := conformance.Shown(f.Call.Describe()+" (the opening of its document's text)", clipText(text, 200))
			declared := declaredValues(st, ref.ID)
			id := handles[ref]
			t.Clause(2, func() {
				for _, u := range byRecord[ref] {
					head := wordHead(u.value, 24)
					if strings.Contains(declared, head) {
						continue // a declared field holds it too
					}
					t.AssertWith(!strings.Contains(title, head), func() (conformance.Witness, error) { return conformance.Present(head, titleEv) }, "fetch %s titles the document with %s's undeclared %q (%q): promotion by field name; %s declares its display roles (%s)",
						id, u.stream, u.field, u.value, u.stream, strings.Join(u.roleLabels, ", "))
					// A text that opens with its promoted title is judged by the title.
					t.AssertWith(!strings.HasPrefix(text, head) || strings.Contains(title, head), func() (conformance.Witness, error) { return conformance.Present(head, textEv) }, "fetch %s takes the document's text from %s's undeclared %q (%q): promotion by field name; %s declares its display roles (%s)",
						id, u.stream, u.field, u.value, u.stream, strings.Join(u.roleLabels, ", "))
				}
			})
		}
	}
	return judged
}

// declaredValues are the values of a record's declared display-role
// fields, joined.
func declaredValues(st *fakers.Stream, recID string) string {
	var out []string
	for _, r := range st.Records {
		if r.ID != recID {
			continue
		}
		for _, f := range st.Fields {
			if f.Role == "primary-title" || f.Role == "primary-text" {
				out = append(out, probe.String(r.Data[f.Name]))
			}
		}
	}
	return strings.Join(out, "\n")
}
