package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

const recordURIPrefix = "pdpp://record/"

// S046 judges every pdpp://record/ URI the target itself shows, in read
// results on its own data and on the evidence-ladder fixture: each is
// readable through resources/read or taken as an id by fetch, and the
// model is told how. The URI's encoding after the prefix is the target's
// own (seed 004 fixes only the prefix), so mcpcheck builds none; a URI
// that only copies a record value is data, not the target's.
var s046 = &Check{ID: "S046", Slug: "record-uri-callable", Mode: ModeBBD, Tools: []string{"fetch", "read_record_field"}, Run: func(t *T) {
	documented := probe.DocumentingTools(t.Target, recordURIPrefix)
	judged := 0
	// A read tool that documents pdpp://record/ ids takes the ones the
	// target shows for its own search hits (judged before the evidence
	// fork opens). mcpcheck builds none: their encoding is the target's.
	if len(documented) > 0 {
		if _, sc, _ := probe.FanInTerm(t); sc != nil {
			for _, h := range probe.Hits(t, sc) {
				uris := probe.HandleURIsIn("record", probe.CompactJSON(h.Raw))
				if len(uris) == 0 {
					continue
				}
				for _, tool := range documented {
					if tool != "fetch" && tool != "read_record_field" {
						continue
					}
					judged++
					t.Clause(1, func() {
						args := dialect.Args{dialect.RecordID: uris[0]}
						if tool == "read_record_field" {
							f := evidenceField(t, h)
							if len(f) == 0 {
								t.Skipf("no field of record %s to read by its URI", h.ID)
							}
							args[dialect.Field] = f[0]
						}
						t.Works(t.CallRoles(tool, args), sc, "%s documents pdpp://record/ ids, so it must take %s, which search shows for record %s", tool, uris[0], h.ID)
					})
					t.Clause(2, func() {
						t.Held() // the tool's own documentation names them
					})
				}
				break
			}
		}
	}
	for v := range probe.EvidenceViews(t) {
		seen := map[string]bool{}
		scan := probe.ReadURIs(v)
		for _, c := range scan.Calls {
			for _, u := range scan.Emitted(c, "record") {
				if seen[u] {
					continue
				}
				seen[u] = true
				judged++
				t.Clause(1, func() {
					if probe.ResourceReadable(v, u) {
						t.Held()
						return
					}
					t.Works(v.CallRoles("fetch", dialect.Args{dialect.RecordID: u}), c, "%s shows %s: resources/read must serve it or fetch must take it as an id", c.Tool, u)
				})
				t.Clause(2, func() { namesRecordURIPath(v, c, u, documented) })
			}
		}
	}
	if judged == 0 {
		t.NotApplicable("no read result shows a pdpp://record/ URI of the target's own")
	}
}}

// namesRecordURIPath judges that the model is told how to use a record URI
// it was shown: a tool documents taking pdpp://record/ ids, the result
// names a tool on the URI's line, or the server lists a resource template
// for them.
func namesRecordURIPath(t *T, c *Call, uri string, documented []string) {
	if len(documented) > 0 {
		t.Held()
		return
	}
	// The result itself may say where its ids go ("Each record: its id
	// (pass to fetch …)"), on the URI's line or above it.
	line := dialect.LineAround(c.Text(), max(0, strings.Index(c.Text(), uri)))
	pathTools := facts("fetch", "read_record_field", "resources/read")
	if strings.Contains(c.Text(), uri) && slices.ContainsFunc(pathTools, func(f read.Fact) bool { return read.Find([]string{c.Text()}, f).Seen() }) {
		t.Held()
		return
	}
	if probe.ServesResources(t.Target) {
		res, err := t.Target.Session.ListResourceTemplates(t.Context(), nil)
		if err == nil {
			for _, tpl := range res.ResourceTemplates {
				if strings.HasPrefix(tpl.URITemplate, recordURIPrefix) {
					t.Held()
					return
				}
			}
		}
	}
	// The witness: the prefix named nowhere in what the target tells the
	// model about its tools and resources, nor on the URI's line a tool.
	t.AssertWith(false, func() (conformance.Witness, error) {
		w, err := conformance.Absent(read.Text(recordURIPrefix), toolDocs(t))
		if err != nil {
			return w, err
		}
		if !strings.Contains(line, uri) {
			w.In = append(w.In, "and the URI is in structuredContent only")
			return w, nil
		}
		if _, err := conformance.AbsentAll(pathTools, conformance.TextOf(c)); err != nil {
			return conformance.Witness{}, err
		}
		w.In = append(w.In, fmt.Sprintf("and no tool is named in the result that shows it (its line: %q)", clipText(line, 160)))
		return w, nil
	}, "%s shows %s, but no tool documents pdpp://record/ ids, the result names no tool for it and no resource template lists it: the visible instructions name no callable path", c.Tool, uri)
}

// toolDocs is everything the target tells the model about its tools and
// resource templates, as evidence.
func toolDocs(t *T) conformance.Evidence {
	var docs []string
	for _, tool := range t.Target.Tools {
		docs = append(docs, probe.ToolDocs(t.Target, tool.Name))
	}
	if probe.ServesResources(t.Target) {
		if res, err := t.Target.Session.ListResourceTemplates(t.Context(), nil); err == nil {
			for _, tpl := range res.ResourceTemplates {
				docs = append(docs, tpl.URITemplate, tpl.Description)
			}
		}
	}
	return conformance.Shown("every tool's description and input schema, and the resource templates", strings.Join(docs, "\n"))
}

// evidenceField is the field path of a hit's first evidence excerpt, for a
// read_record_field call on it; nil when it has none.
func evidenceField(t *T, h probe.Hit) []string {
	if f := probe.HitField(t, h); f != "" {
		return []string{f}
	}
	return nil
}
