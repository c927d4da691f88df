package checks

import (
	"fmt"
	"regexp"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

var schemaCallHintRe = regexp.MustCompile(`schema\s*\(\s*\{?\s*"?stream`)

// The capped-index half runs on a grant larger than any sensible row cap:
// 50 connectors × 20 streams × 30 fields (issue 4's scale target).
var bigGrant = fakers.ScaleSpec{Connectors: 50, Streams: 20, Fields: 30, Records: 1}

var s017 = &Check{ID: "S017", Slug: "schema-global-compact-index", Mode: ModeBB, Run: func(t *T) {
	c, rows := schemaIndex(t)
	t.Record("global schema result bytes", c.Bytes())
	expectSchemaIndex(t, c, rows, streamNames(rows))
	if !t.Target.Has(CapFixture) {
		t.Record("capped index", "not exercised: "+CapFixture.SkipReason())
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
	bc, brows := schemaIndex(big)
	big.Record("global schema result bytes, 1,000 streams", bc.Bytes())
	expectSchemaIndex(big, bc, brows, granted)
	recordScaleFootprint(t)
}}

// Issue 4's footprint targets, reported (not judged) so any fixture-backed
// adapter can be compared with the reference figures.
var (
	verboseGrant = fakers.ScaleSpec{Connectors: 4, Streams: 6, Fields: 30, Records: 1, DescriptionChars: 1200}
	fieldGrowth  = [2]int{15, 30}
)

const (
	maxIndexShareOfVerbatim = 10 // the whole index is at most a tenth of GET /v1/schema
	maxIndexTextBytes       = 8000
	maxBytesPerField        = 200
)

func recordScaleFootprint(t *T) {
	fork := func(sp fakers.ScaleSpec) *T {
		fx, err := fakers.Scale(sp)
		t.Expect(err).NotTo(HaveOccurred())
		fx.SpecClientReads = true
		return t.On(t.Fork(fx))
	}
	v := fork(verboseGrant)
	_, body := v.RS().Replay(fakers.Request{Method: "GET", Path: "/v1/schema", Authorization: "Bearer " + v.RS().ClientToken()})
	c := v.Call("schema", map[string]any{})
	t.Expect(c.IsError()).To(BeFalse(), "schema {} on the 4×6×30 grant must succeed: %s", c.Describe())
	verbatim, whole, text := len(body), c.Bytes(), len(c.Text())
	t.Record("4×6×30 index / verbatim GET /v1/schema", fmt.Sprintf("%d / %d B, %s (target ≤ 1/%d)", whole, verbatim,
		within(whole*maxIndexShareOfVerbatim <= verbatim), maxIndexShareOfVerbatim))
	t.Record("4×6×30 index text", fmt.Sprintf("%d B, %s (target ≤ %d B)", text, within(text <= maxIndexTextBytes), maxIndexTextBytes))

	var sizes [2]int
	for i, n := range fieldGrowth {
		f := fork(fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: n, Records: 1, DescriptionChars: 1200})
		sc := f.Call("schema", map[string]any{"stream": "stream_0_0"})
		t.Expect(sc.IsError()).To(BeFalse(), "schema(stream) on a %d-field stream must succeed: %s", n, sc.Describe())
		sizes[i] = sc.Bytes()
	}
	per := (sizes[1] - sizes[0]) / (fieldGrowth[1] - fieldGrowth[0])
	t.Record("schema(stream) growth per field", fmt.Sprintf("%d B (%d fields: %d B, %d: %d B), %s (target ≤ %d B)",
		per, fieldGrowth[0], sizes[0], fieldGrowth[1], sizes[1], within(per <= maxBytesPerField), maxBytesPerField))
}

func within(ok bool) string {
	if ok {
		return "within"
	}
	return "OVER"
}

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
