package checks

import (
	"net/url"

	. "github.com/onsi/gomega"
)

var s022 = &Check{ID: "S022", Slug: "schema-full-scoped", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	single, hasSingle := singleSourceStream(index)
	shared, hasShared := sharedStream(index)
	if !hasSingle && !hasShared {
		t.Skipf("the target's grant has no stream to ask for exhaustive schema")
	}
	if hasSingle {
		c := t.Call("schema", map[string]any{"stream": single, "detail": "full"})
		t.Expect(c.IsError()).To(BeFalse(), "schema(stream, detail: \"full\") on a single-source stream must succeed: %s", c.Describe())
		expectScopedFull(t, c, single, "")
	}
	if !hasShared {
		return
	}
	amb := t.Call("schema", map[string]any{"stream": shared, "detail": "full"})
	t.Expect(amb.IsError()).To(BeTrue(), "stream %q resolves to several sources: detail \"full\" without connection_id must be a typed disambiguation error: %s", shared, amb.Describe())
	e := amb.ErrorObject()
	t.Expect(e).NotTo(BeNil(), "the disambiguation error must be a typed object: %s", amb.Describe())
	t.Expect(retryWith(e["retry_with"])).To(Equal("connection_id"), "the error must say retry_with: \"connection_id\": %v", e)
	avail, _ := e["available_connections"].([]any)
	t.Expect(avail).NotTo(BeEmpty(), "the error must list available_connections to retry with: %v", e)
	for _, a := range avail {
		am, _ := a.(map[string]any)
		t.Expect(am["connection_id"]).NotTo(BeEmpty(), "each available connection names its connection_id: %v", a)
	}
	t.Expect(amb.Text()).To(ContainSubstring("connection_id"), "the visible error must mention connection_id")

	conn := rowsNamed(index, shared)[0].Connections[0]
	c := t.Call("schema", map[string]any{"stream": shared, "connection_id": conn, "detail": "full"})
	t.Expect(c.IsError()).To(BeFalse(), "schema(stream, connection_id, detail: \"full\") must succeed: %s", c.Describe())
	rows := expectScopedFull(t, c, shared, conn)
	t.Expect(rows[0].Connections).To(Equal([]string{conn}), "the exhaustive schema must hold connection %s only", conn)
	if t.Target.Has(CapControlledRS) {
		var asked bool
		for _, r := range t.RS().RequestsTo("/v1/schema") {
			q, _ := url.ParseQuery(r.RawQuery)
			if q.Get("detail") == "full" && q.Get("stream") == shared && q.Get("connection_id") == conn {
				asked = true
				t.Expect(q.Has("view")).To(BeFalse(), "the exhaustive call must not also ask for view=compact (GET /v1/schema?%s)", r.RawQuery)
			}
		}
		t.Expect(asked).To(BeTrue(), "the adapter must ask the RS for detail=full&stream=%s&connection_id=%s", shared, conn)
	}
}}

// expectScopedFull holds a detail="full" result to one stream's rows with
// raw per-field JSON Schema, unnested, unduplicated and bounded.
func expectScopedFull(t *T, c *Call, stream, conn string) []schemaRow {
	doc := c.Data()
	t.Expect(doc).NotTo(BeNil(), "the exhaustive schema must sit under structuredContent.data")
	t.Expect(doc).NotTo(HaveKey("data"), "the schema document sits directly under structuredContent.data, not data.data")
	if cs, _ := doc["connectors"].([]any); len(cs) > 0 {
		t.Expect(doc).NotTo(HaveKey("streams"), "with connectors[] present, the selected rows must not repeat in a top-level streams list")
		if conn != "" {
			t.Expect(cs).To(HaveLen(1), "with connection_id, exactly one connector")
		}
	}
	all := schemaRows(doc)
	rows := rowsNamed(all, stream)
	t.Expect(rows).To(HaveLen(len(all)), "only rows of stream %q, not the grant-wide schema", stream)
	t.Expect(rows).To(HaveLen(1), "exactly one source for stream %q", stream)
	sch, _ := rows[0].Raw["schema"].(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	raw := 0
	for _, p := range props {
		if pm, _ := p.(map[string]any); len(pm) > 0 {
			raw++
		}
	}
	t.Expect(raw).To(BeNumerically(">", 0), "detail \"full\" keeps the raw per-field JSON Schema (schema.properties): %v", clipText(string(c.Raw), 400))
	t.Record("scoped full schema bytes", c.Bytes())
	t.Expect(c.Bytes()).To(BeNumerically("<=", t.Settings.Surface.ScopedFullBudgetBytes), "the exhaustive result must stay small enough for a host to accept as one tool result")
	return rows
}

// retryWith reads retry_with as a string or as {field, guidance} (catalog C6).
func retryWith(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		s, _ := x["field"].(string)
		return s
	}
	return ""
}
