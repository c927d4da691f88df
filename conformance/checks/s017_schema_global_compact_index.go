package checks

import (
	"fmt"
	"slices"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
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
// mcpcheck does not control the RS.
func judgeIndex(t *T, c *Call) {
	doc := probe.SchemaDoc(c)
	rows := probe.SchemaRows(doc)
	truth := probe.TruthRows(t, "", "", rows)
	t.Clause(1, func() {
		if c.IsError() {
			t.Fatalf("schema {} must return the compact index, not an error: %s", c.Describe())
		}
		data := c.Data()
		if !t.Assert(data != nil, "schema {} must put the index under structuredContent.data: %s", clipText(string(c.Raw), 400)) {
			return
		}
		_, nested := data["data"]
		t.Assert(!nested, "the schema document sits directly under structuredContent.data, not data.data")
		for _, r := range rows {
			t.Expect(r.FieldCaps).To(BeEmpty(), "the global index carries no per-field capabilities (stream %s)", r.Ident())
			sch, _ := r.Raw["schema"].(map[string]any)
			t.Expect(sch["properties"]).To(BeNil(), "the global index carries no per-field JSON Schema (stream %s)", r.Ident())
		}
		expectIndexConnections(t, rows, truth)
	})
	text := c.Text()
	t.Clause(2, func() {
		if c.IsError() {
			t.Skipf("schema {} failed (S017.1)")
		}
		var visible []string
		for _, name := range probe.StreamNames(truth) {
			if probe.ContainsToken(text, name) {
				visible = append(visible, name)
			}
		}
		if !t.Assert(len(visible) > 0, "the text must name streams a client can choose from:\n%s", clipText(text, 600)) {
			return
		}
		// A stream name taken from the text is what schema(stream) takes.
		name := visible[0]
		if shared, ok := probe.SharedStream(truth); ok && slices.Contains(visible, shared) {
			name = shared
		}
		sc := t.CallRoles("schema", dialect.Args{dialect.Stream: name})
		t.Assert(!sc.IsError(), "schema(stream) with the name %q shown in the index text must succeed: %s", name, sc.Describe())
	})
	t.Clause(3, func() {
		if c.IsError() {
			t.Skipf("schema {} failed (S017.1)")
		}
		var missing []string
		for _, name := range probe.StreamNames(truth) {
			if !probe.ContainsToken(text, name) {
				missing = append(missing, name)
			}
		}
		t.Expect(missing).To(BeEmpty(), "every granted stream name must appear in content[] text, even past the detailed-row cap")
		probe.ExpectGroupedByConnector(t, text, truth)
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

// expectIndexConnections holds the connections the index lists for each
// stream to the connections the grant has for it: no fewer, no others.
// An index that names no connection at all is judged on the rest.
func expectIndexConnections(t *T, rows, truth []probe.SchemaRow) {
	if !slices.ContainsFunc(rows, func(r probe.SchemaRow) bool { return len(r.Connections) > 0 }) {
		return
	}
	granted := func(r probe.SchemaRow) []string {
		var out []string
		for _, g := range truth {
			if g.Name == r.Name && (r.ConnectorKey == "" || g.ConnectorKey == r.ConnectorKey) {
				out = append(out, g.Connections...)
			}
		}
		return out
	}
	listed := map[string][]string{}
	var order []string
	for _, r := range rows {
		key := r.Ident()
		if _, seen := listed[key]; !seen {
			order = append(order, key)
		}
		listed[key] = append(listed[key], r.Connections...)
	}
	for _, key := range order {
		r := rows[slices.IndexFunc(rows, func(x probe.SchemaRow) bool { return x.Ident() == key })]
		want := granted(r)
		if len(want) == 0 {
			continue // a stream the RS does not grant: clause 3 and S014 judge it
		}
		t.Assert(probe.SameSet(listed[key], want), "the index lists connections %v for stream %s; the grant has %v",
			probe.SortedCopy(listed[key]), key, probe.SortedCopy(want))
	}
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
