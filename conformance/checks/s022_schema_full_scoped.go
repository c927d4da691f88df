package checks

import (
	"net/url"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S022 judges detail "full" on a single-source stream and on a shared
// one: the matching rows only, at full detail (S022.1); a typed
// disambiguation error naming connection_id as the retry, before any
// exhaustive content, when the name resolves to several sources (S022.2);
// the one connection asked for (S022.3); a bounded result (S022.4, by
// mcpcheck's own number); the document at structuredContent.data (S022.5);
// no rows repeated top-level and connector-nested (S022.6).
var s022 = &Check{ID: "S022", Slug: "schema-full-scoped", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	_, index := probe.SchemaIndex(t)
	truth := probe.TruthRows(t, "", "", index)
	single, hasSingle := probe.SingleSourceStream(truth)
	shared, hasShared := probe.SharedStream(truth)
	if !hasSingle && !hasShared {
		t.NotApplicable("the target's grant has no stream to ask for exhaustive schema")
	}
	on := t.Private()
	if hasSingle {
		c := on.CallRoles("schema", dialect.Args{dialect.Stream: single, dialect.Detail: "full"})
		judgeScopedFull(t, on, c, single, "")
	}
	if !hasShared {
		t.Record("shared stream", "not exercised: "+probe.NoSharedStream)
		return
	}
	before := probe.RSRequestCount(on, "/v1/schema")
	amb := on.CallRoles("schema", dialect.Args{dialect.Stream: shared, dialect.Detail: "full"})
	t.Clause(2, func() {
		if !t.Assert(amb.IsError(), "stream %q resolves to several sources: detail \"full\" without connection_id must be a typed disambiguation error: %s", shared, amb.Describe()) {
			return
		}
		t.Assert(!carriesRawSchema(amb.Structured()) && !strings.Contains(amb.Text(), `"properties"`),
			"the disambiguation error must come before any exhaustive schema content: %s", clipText(string(amb.Raw), 400))
		t.Assert(probe.TypedRejection(amb, "connection_id") && amb.ErrorCode() != "", "the disambiguation error must be typed (an error code): %s", amb.Describe())
		t.Assert(retriesWithConnection(amb), "the disambiguation error must say retry_with: \"connection_id\": %s", amb.Describe())
		if on.Target.Has(CapControlledRS) {
			for _, r := range on.RS().RequestsTo("/v1/schema")[before:] {
				q, _ := url.ParseQuery(r.RawQuery)
				t.Assert(!(q.Get("detail") == "full" && q.Get("connection_id") == "" && r.Status == 200),
					"the adapter fetched exhaustive schema over every source before disambiguating (GET /v1/schema?%s)", r.RawQuery)
			}
		}
	})
	for _, row := range probe.RowsNamed(truth, shared) {
		if len(row.Connections) == 0 {
			continue
		}
		conn := row.Connections[0]
		c := on.CallRoles("schema", dialect.Args{dialect.Stream: shared, dialect.Connection: conn, dialect.Detail: "full"})
		rows := judgeScopedFull(t, on, c, shared, conn)
		t.Clause(3, func() {
			if c.IsError() {
				t.Skipf("schema(stream, connection_id, detail: \"full\") failed (S022.1)")
			}
			if cs, _ := probe.SchemaDoc(c)["connectors"].([]any); len(cs) > 0 {
				t.Assert(len(cs) == 1, "with connection_id, exactly one connector comes back, not %d", len(cs))
			}
			for _, r := range rows {
				t.Assert(len(r.Connections) == 0 || slices.Equal(r.Connections, []string{conn}),
					"with connection_id %s only that connection comes back; row %s covers %v", conn, r.Ident(), r.Connections)
			}
		})
		break
	}
}}

// judgeScopedFull holds one schema(stream[, connection_id], detail:
// "full") result to S022.1 and S022.4–6, and returns its rows.
func judgeScopedFull(t, on *T, c *Call, stream, conn string) []probe.SchemaRow {
	doc := probe.SchemaDoc(c)
	all := probe.SchemaRows(doc)
	rows := probe.RowsNamed(all, stream)
	what := "schema(" + stream
	if conn != "" {
		what += ", " + conn
	}
	what += ", detail: \"full\")"
	t.Clause(1, func() {
		if !t.Assert(!c.IsError() && doc != nil, "%s must return that stream's exhaustive schema: %s", what, c.Describe()) {
			return
		}
		var others []string
		for _, r := range all {
			if r.Name != stream {
				others = append(others, r.Ident())
			}
		}
		t.Assert(len(others) == 0, "%s must return only rows of %q, not the grant-wide schema; it also holds %v", what, stream, others)
		t.Assert(len(rows) > 0, "%s holds no row of %q", what, stream)
		for _, r := range rows {
			t.Assert(carriesRawSchema(r.Raw), "%s must keep row %s's raw per-field JSON Schema (schema.properties): %s", what, r.Ident(), clipText(string(c.Raw), 300))
		}
		if on.Target.Has(CapControlledRS) {
			for _, r := range on.RS().RequestsTo("/v1/schema") {
				q, _ := url.ParseQuery(r.RawQuery)
				t.Assert(!(q.Get("detail") == "full" && q.Get("stream") == "" && r.Status == 200),
					"%s fetched the grant-wide exhaustive schema (GET /v1/schema?%s)", what, r.RawQuery)
			}
		}
	})
	if c.IsError() {
		return rows
	}
	t.Clause(4, func() {
		t.Record("scoped full schema bytes", c.Bytes())
		t.Threshold().Expect(c.Bytes()).To(BeNumerically("<=", t.Settings.Surface.ScopedFullBudgetBytes),
			"%s must stay within mcpcheck's %d bytes for one tool result", what, t.Settings.Surface.ScopedFullBudgetBytes)
	})
	t.Clause(5, func() {
		data := c.Data()
		if !t.Assert(data != nil, "%s must put the schema document under structuredContent.data: %s", what, clipText(string(c.Raw), 300)) {
			return
		}
		_, nested := data["data"]
		t.Assert(!nested, "%s: the schema document sits directly under structuredContent.data, not data.data", what)
	})
	t.Clause(6, func() {
		if cs, _ := doc["connectors"].([]any); len(cs) == 0 {
			t.Skipf("%s has no connector-grouped streams", what)
		}
		rep := probe.RepeatedRows(doc)
		t.Assert(len(rep) == 0, "%s lists rows %v both in top-level streams and in connectors[].streams", what, rep)
	})
	return rows
}

// carriesRawSchema reports a row (or any object within v) that keeps a
// per-field JSON Schema: a schema object with non-empty properties.
func carriesRawSchema(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if sch, ok := x["schema"].(map[string]any); ok {
			if props, _ := sch["properties"].(map[string]any); len(props) > 0 {
				return true
			}
		}
		for _, e := range x {
			if carriesRawSchema(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, carriesRawSchema)
	}
	return false
}

// retriesWithConnection reads an error's retry_with as a string or as
// {field, guidance} (catalog C6), else as retry_with named with
// connection_id in its text.
func retriesWithConnection(c *Call) bool {
	if retryWith(c.ErrorObject()["retry_with"]) == "connection_id" {
		return true
	}
	text := c.Text()
	i := strings.Index(text, "retry_with")
	return i >= 0 && strings.Contains(text[i:min(len(text), i+80)], "connection_id")
}

// retryWith reads retry_with as a string or as {field, guidance} (catalog C6).
func retryWith(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		return probe.String(x["field"])
	}
	return ""
}
