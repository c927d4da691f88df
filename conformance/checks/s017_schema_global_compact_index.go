package checks

import (
	"fmt"
	"slices"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// The capped-index half runs on a grant larger than any sensible row cap:
// 50 connectors × 20 streams × 30 fields (issue 4's scale target).
var bigGrant = fakers.ScaleSpec{Connectors: 50, Streams: 20, Fields: 30, Records: 1}

// S017 judges the index on the target's grant, on a 1,000-stream grant
// (the capped case) and on a grant whose streams sit on different sets of
// one connector's connections (the connections the index lists).
var s017 = &Check{ID: "S017", Slug: "schema-global-compact-index", Mode: ModeBB, Tools: []string{"schema"}, Run: func(t *T) {
	c := probe.IndexCall(t)
	t.Record("global schema result bytes", c.Bytes())
	judgeIndex(t, c)
	if !t.Target.Has(CapFixture) {
		t.Record("capped index", "not exercised: "+CapFixture.SkipReason())
		return
	}
	fx := probe.MustFixture(fakers.Scale(bigGrant))
	fx.SpecClientReads = true
	big := t.On(t.Fork(fx))
	bc := big.Call("schema", map[string]any{})
	big.Record("global schema result bytes, 1,000 streams", bc.Bytes())
	judgeIndex(big, bc)
	split := probe.MustFixture(fakers.LoadFixture(fakers.SplitConnectionsFixture))
	split.SpecClientReads = true
	on := t.On(t.Fork(split))
	judgeIndex(on, on.Call("schema", map[string]any{}))
	recordScaleFootprint(t)
}}

// judgeIndex holds a global schema() result to S017's clauses, against
// what the RS grants (by value), or what the index itself lists when
// mcpcheck does not control the RS. Rows, connections and field detail
// are found by the values they hold, in any shape.
func judgeIndex(t *T, c *Call) {
	doc := probe.SchemaDoc(c)
	truth := probe.TruthRows(t, "", "", probe.SchemaRows(doc))
	shown := probe.ShownRows(doc, truth)
	t.Clause(1, func() {
		if !t.Works(c, nil, "schema {} must return the compact index, not an error") {
			return
		}
		data := c.Data()
		if !t.AssertWith(data != nil, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "structuredContent.data", In: []string{c.Describe()}}, nil
		}, "schema {} must put the index under structuredContent.data: %s", clipText(string(c.Raw), 400)) {
			return
		}
		inner, nested := data["data"].(map[string]any)
		t.AssertWith(!nested || len(probe.ShownRows(data, truth)) > len(probe.ShownRows(inner, truth)), func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "structuredContent.data.data", In: []string{c.Describe()}, Excerpt: clipText(probe.CompactJSON(inner), 200)}, nil
		}, "the schema document sits directly under structuredContent.data, not data.data")
		for _, r := range shown {
			f, detail := probe.FieldDetail(r)
			t.AssertWith(f == "", func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: f, In: []string{"the row of stream " + r.Truth.Ident() + " in schema {}'s structuredContent"}, Excerpt: clipText(detail, 200)}, nil
			}, "the global index carries no per-field capabilities or JSON Schema (stream %s shows field %s's)", r.Truth.Ident(), f)
			rowEv := conformance.Shown("the row of stream "+r.Truth.Ident()+" in schema {}'s structuredContent", probe.CompactJSON(r.Obj))
			for _, id := range r.Truth.Connections {
				if len(r.Own) > 0 {
					t.Shows(rowEv, read.Text(id), "a row that lists its stream's connections lists every granted one: stream %s lacks %s", r.Truth.Ident(), id)
				}
			}
			for _, id := range r.Own {
				t.AssertWith(slices.Contains(r.Truth.Connections, id), func() (conformance.Witness, error) {
					return conformance.Present(id, rowEv)
				}, "the index lists connection %s for stream %s; the grant has %v", id, r.Truth.Ident(), r.Truth.Connections)
			}
		}
	})
	text := conformance.TextOf(c)
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("schema {} failed (S017.1)")
		}
		names := probe.StreamNames(truth)
		var visible []string
		for _, name := range names {
			if read.ContainsToken(c.Text(), name) {
				visible = append(visible, name)
			}
		}
		if !t.AssertWith(len(visible) > 0, func() (conformance.Witness, error) { return conformance.AbsentAll(facts(names...), text) },
			"the text must name streams a client can choose from:\n%s", clipText(c.Text(), 600)) {
			return
		}
		// A stream name taken from the text is what schema(stream) takes.
		name := visible[0]
		if shared, ok := probe.SharedStream(truth); ok && slices.Contains(visible, shared) {
			name = shared
		}
		sc := t.CallRoles("schema", dialect.Args{dialect.Stream: name})
		t.Works(sc, text, "schema(stream) with the name %q shown in the index text must succeed", name)
	})
	t.Clause(3, func() {
		if c.IsError() {
			t.Skipf("schema {} failed (S017.1)")
		}
		for _, name := range probe.StreamNames(truth) {
			t.Shows(text, read.Text(name), "every granted stream name must appear in content[] text, even past the cap on detailed rows; %s does not", name)
		}
		probe.ExpectGroupedByConnector(t, c.Text(), truth)
	})
	t.Clause(4, func() {
		if c.IsError() {
			t.Skipf("schema {} failed (S017.1)")
		}
		sf := t.Settings.Surface
		budget := sf.SchemaIndexBudget(len(truth))
		t.Threshold().Expect(c.Bytes()).To(BeNumerically("<=", budget),
			"the whole global schema() result, structuredContent included, must stay within %d B: mcpcheck's own rule (recommended), %d B plus %d B per granted stream, for %d streams",
			budget, sf.SchemaIndexBaseBytes, sf.SchemaIndexBytesPerStream, len(truth))
	})
}

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
		fx := probe.MustFixture(fakers.Scale(sp))
		fx.SpecClientReads = true
		return t.On(t.Fork(fx))
	}
	v := fork(verboseGrant)
	_, body := v.RS().Replay(fakers.Request{Method: "GET", Path: "/v1/schema", Authorization: "Bearer " + v.RS().ClientToken()})
	c := v.Call("schema", map[string]any{})
	if c.IsError() {
		t.Record("4×6×30 index", "schema {} failed: "+c.Describe())
		return
	}
	verbatim, whole, text := len(body), c.Bytes(), len(c.Text())
	t.Record("4×6×30 index / verbatim GET /v1/schema", fmt.Sprintf("%d / %d B, %s (target ≤ 1/%d)", whole, verbatim,
		within(whole*maxIndexShareOfVerbatim <= verbatim), maxIndexShareOfVerbatim))
	t.Record("4×6×30 index text", fmt.Sprintf("%d B, %s (target ≤ %d B)", text, within(text <= maxIndexTextBytes), maxIndexTextBytes))

	var sizes [2]int
	for i, n := range fieldGrowth {
		f := fork(fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: n, Records: 1, DescriptionChars: 1200})
		sc := f.CallRoles("schema", dialect.Args{dialect.Stream: "stream_0_0"})
		if sc.IsError() {
			t.Record("schema(stream) growth per field", fmt.Sprintf("schema(stream) on a %d-field stream failed: %s", n, sc.Describe()))
			return
		}
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
