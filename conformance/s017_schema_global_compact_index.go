package conformance

import (
	"regexp"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var schemaCallHintRe = regexp.MustCompile(`schema\s*\(\s*\{?\s*"?stream`)

// The capped-index half runs on a grant larger than any sensible row cap:
// 50 connectors × 20 streams × 30 fields (issue 4's scale target).
var bigGrant = fakers.ScaleSpec{Connectors: 50, Streams: 20, Fields: 30, Records: 1}

var s017 = &Check{ID: "S017", Slug: "schema-global-compact-index", Mode: ModeBB, Run: func(t *T) {
	c, rows := t.schemaIndex()
	t.Record("global schema result bytes", c.Bytes())
	expectSchemaIndex(t, c, rows, streamNames(rows))
	if !t.Target.Has(CapFixture) {
		t.Record("capped index", "not exercised: "+capabilityReasons[CapFixture])
		return
	}
	fx, err := fakers.Scale(bigGrant)
	t.Expect(err).NotTo(HaveOccurred())
	fx.SpecClientReads = true
	var granted []string
	for _, s := range fx.Streams {
		granted = append(granted, s.Name)
	}
	big := t.On(t.Fork(fx))
	bc, brows := big.schemaIndex()
	big.Record("global schema result bytes, 1,000 streams", bc.Bytes())
	expectSchemaIndex(big, bc, brows, granted)
}}

// expectSchemaIndex holds a global schema() result to the index shape: the
// document at structuredContent.data, no per-field detail, every granted
// stream name in text, a pointer to schema(stream), and a bounded whole.
func expectSchemaIndex(t *T, c *Call, rows []schemaRow, granted []string) {
	doc := c.Data()
	t.Expect(doc).NotTo(HaveKey("data"), "the schema document sits directly under structuredContent.data, not data.data")
	for _, r := range rows {
		t.Expect(r.FieldCaps).To(BeEmpty(), "the global index carries no per-field capabilities (stream %q)", r.Name)
		sch, _ := r.Raw["schema"].(map[string]any)
		t.Expect(sch["properties"]).To(BeNil(), "the global index carries no per-field JSON Schema (stream %q)", r.Name)
	}
	text := c.Text()
	var missing []string
	for _, name := range granted {
		if !containsToken(text, name) {
			missing = append(missing, name)
		}
	}
	t.Expect(missing).To(BeEmpty(), "every granted stream name must appear in content[] text, even past the detailed-row cap")
	t.Expect(schemaCallHintRe.MatchString(text)).To(BeTrue(), "the text must say how to get per-stream detail (schema(stream, …)):\n%s", clipText(text, 600))
	t.Expect(c.Bytes()).To(BeNumerically("<=", t.Settings.Surface.SchemaIndexBudgetBytes),
		"the whole global schema() result, structuredContent included, must stay within %d bytes", t.Settings.Surface.SchemaIndexBudgetBytes)
}

// containsToken reports whether s holds tok not glued to word characters.
func containsToken(s, tok string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(tok) + `([^A-Za-z0-9_]|$)`)
	return re.MatchString(s)
}
