package checks

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

var binaryWordRe = regexp.MustCompile(`(?i)binary`)

// S038 reads the records of the grant holding binary fields (base64
// bodies, blob references), found in the fixture, on the target's data and
// on the evidence-ladder fixture's files (blobs with and without a route):
// the previews and fetch name each such field as metadata (clause 1), show
// the grant-scoped route the RS serves a blob at (2), and never show a
// base64 body in model-visible text (3): a piece of the body found there
// is the witness (structuredContent may carry the RS's record unchanged).
var s038 = &Check{ID: "S038", Slug: "binary-metadata-only", Mode: ModeBBD, Tools: []string{"query_records", "fetch"}, Run: func(t *T) {
	if probe.FixtureRecords(t) == nil {
		t.SkipFor(CapControlledRS, "finding binary fields by value needs the records mcpcheck's fixture RS serves")
	}
	judged := 0
	for v := range probe.EvidenceViews(t) {
		recs := binaryRecords(v)
		if len(recs) == 0 {
			continue
		}
		judged++
		judgeBinaryRecord(t, v, recs[0])
	}
	if judged == 0 {
		t.NotApplicable("no record of the target's grant holds a binary field")
	}
}}

// judgeBinaryRecord judges one record's binary fields in its stream's
// preview page and its fetch document.
func judgeBinaryRecord(t, v *T, b probe.FieldRead) {
	rec, q := b.Rec, b.Page
	shown := []*Call{q}
	if h := probe.HandlesInText(v, q, []probe.RecordRef{rec.Ref})[rec.Ref]; h != "" {
		f := v.CallRoles("fetch", dialect.Args{dialect.RecordID: h})
		if f.IsError() {
			t.BlockedBy("S029", "fetch failed: %s", f.Describe())
		}
		shown = append(shown, f)
	}
	served := probe.RSRecord(v, rec.Ref)
	for _, name := range slices.Sorted(maps.Keys(rec.Data)) {
		val := rec.Data[name]
		if !probe.LooksBinary(val) {
			continue
		}
		for _, c := range shown {
			t.Clause(1, func() {
				t.Shows(conformance.TextOf(c), read.Text(name), "%s must show the binary field %s of %s as metadata (its name, size or media type), not drop it silently", c.Tool, name, rec.Ref)
			})
			if body, ok := val.(string); ok {
				piece := body[len(body)/2 : len(body)/2+40]
				t.Clause(3, func() {
					all := c.Text() // seed 002: "model-visible text"
					t.AssertWith(!strings.Contains(all, piece), func() (conformance.Witness, error) {
						i := strings.Index(all, piece)
						return conformance.Witness{Kind: conformance.WitnessPresent, Fact: piece, In: []string{c.Describe()}, Excerpt: read.Around(all, i, len(piece))}, nil
					}, "%s must keep the base64 body of %s (record %s) out of model-visible output", c.Tool, name, rec.Ref)
				})
			}
		}
		obj, _ := served[name].(map[string]any)
		if route := probe.String(obj["fetch_url"]); route != "" {
			t.Clause(2, func() {
				var texts []conformance.Evidence
				for _, c := range shown {
					texts = append(texts, conformance.TextOf(c))
				}
				t.Shows(conformance.Answers(texts...), read.Text(route), "the grant-scoped blob route %s of %s (record %s) must be shown as its continuation", route, name, rec.Ref)
			})
		}
	}
}
