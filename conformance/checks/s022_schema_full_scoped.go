package checks

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// S022 judges detail "full" on a single-source stream and on a shared
// one: the matching rows only, at full detail (S022.1); a typed
// disambiguation error naming connection_id as the retry, before any
// exhaustive content, when the name resolves to several sources (S022.2);
// the one connection asked for (S022.3); a bounded result (S022.4, by
// mcpcheck's own number); the document at structuredContent.data (S022.5);
// no rows repeated top-level and connector-nested (S022.6).
var s022 = &Check{ID: "S022", Slug: "schema-full-scoped", Mode: ModeBBD, Tools: []string{"schema"}, Run: func(t *T) {
	index := probe.Grant(t)
	truth := probe.TruthRows(t, "", "", index)
	single, hasSingle := probe.SingleSourceStream(truth)
	shared, hasShared := probe.SharedStream(truth)
	if !hasSingle && !hasShared {
		t.NotApplicable("the target's grant has no stream to ask for exhaustive schema")
	}
	on := t.Private()
	if hasSingle {
		c := on.CallRoles("schema", dialect.Args{dialect.Stream: single, dialect.Detail: "full"})
		if conn := disambiguation(on, c, single, truth); conn != "" {
			// The target knows the stream sits under several sources, which
			// its schema did not show mcpcheck: its typed refusal is the
			// seed's answer, not a failure. Follow the retry it names.
			t.Record("single-source stream", fmt.Sprintf("%s: the target answers with a typed disambiguation error, so it resolves to several sources there; judged again with connection_id %s, a candidate the error lists", single, conn))
			c = on.CallRoles("schema", dialect.Args{dialect.Stream: single, dialect.Connection: conn, dialect.Detail: "full"})
			judgeScopedFull(t, on, c, single, conn)
		} else {
			judgeScopedFull(t, on, c, single, "")
		}
	}
	if !hasShared {
		for _, n := range []int{2, 3} { // the shared stream's clauses
			t.Clause(n, func() { probe.SkipNoSharedStream(t) })
		}
		return
	}
	before := probe.RSRequestCount(on, "/v1/schema")
	amb := on.CallRoles("schema", dialect.Args{dialect.Stream: shared, dialect.Detail: "full"})
	t.Clause(2, func() {
		if !t.AssertWith(amb.IsError(), func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "an answer, not a disambiguation error", In: []string{amb.Describe()}}, nil
		}, "stream %q resolves to several sources: detail \"full\" without connection_id must be a typed disambiguation error", shared) {
			return
		}
		t.AssertWith(!carriesRawSchema(amb.Structured()) && !strings.Contains(amb.Text(), `"properties"`), func() (conformance.Witness, error) {
			return conformance.Present("properties", amb)
		}, "the disambiguation error must come before any exhaustive schema content: %s", clipText(string(amb.Raw), 400))
		t.AssertWith(probe.TypedRejection(amb, "connection_id") && amb.ErrorCode() != "", func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "an error code", In: []string{amb.Describe()}}, nil
		}, "the disambiguation error must be typed (an error code): %s", amb.Describe())
		// Typed as a disambiguation: its code names the ambiguity or the
		// source to choose, not a request merely invalid.
		if code := amb.ErrorCode(); code != "" && !disambiguationCodeRe.MatchString(code) {
			t.AssertWith(false, func() (conformance.Witness, error) { return conformance.Present(code, amb) },
				"stream %q resolves to several sources, but the error's code %q types it as something else than a disambiguation (seed 001: a typed disambiguation error)", shared, code)
		}
		t.AssertWith(retriesWithConnection(amb), func() (conformance.Witness, error) { return wrongRetry(amb) },
			"the disambiguation error must say retry_with: \"connection_id\": %s", amb.Describe())
		// The candidates it lists, if any, are the stream's: a connection
		// of the grant that does not serve it, listed, is a wrong retry.
		for _, other := range notServing(truth, shared) {
			t.ShowsNone(amb, other, "the disambiguation error for stream %q lists connection %s, which does not serve it", shared, other)
		}
		// A source ambiguity error (seed 001): the candidates it lists are
		// true of the fixture, and on a small package name every source.
		// Which keys an entry carries is S032.3's, asked of reads only.
		if avail := ambiguityCandidates(amb); len(avail) > 0 {
			for _, am := range avail {
				judgeCandidate(t, on, am, shared)
			}
			judgeSmallPackage(t, refusal{call: amb, conns: fixtureStreamConnections(on, shared)}, avail)
		}
		if on.Target.Has(CapControlledRS) {
			reqs := on.RS().RequestsTo("/v1/schema")[before:]
			for _, r := range reqs {
				q, _ := url.ParseQuery(r.RawQuery)
				t.AssertWith(!(q.Get("detail") == "full" && q.Get("connection_id") == "" && r.Status == 200), func() (conformance.Witness, error) {
					return conformance.Present("GET /v1/schema?"+r.RawQuery, rsLog(reqs))
				}, "the adapter fetched exhaustive schema over every source before disambiguating (GET /v1/schema?%s)", r.RawQuery)
			}
		}
	})
	for _, row := range probe.RowsNamed(truth, shared) {
		if len(row.Connections) == 0 {
			continue
		}
		conn := row.Connections[0]
		c := on.CallRoles("schema", dialect.Args{dialect.Stream: shared, dialect.Connection: conn, dialect.Detail: "full"})
		judgeScopedFull(t, on, c, shared, conn)
		t.Clause(3, func() {
			if c.IsError() {
				t.Skipf("schema(stream, connection_id, detail: \"full\") failed (S022.1)")
			}
			t.Shows(c, read.Text(conn), "with connection_id %s, that connection comes back", conn)
			for _, other := range otherConnections(probe.RowsNamed(truth, shared), conn) {
				if probe.Widens(t, c, other, probe.SchemaQuery(shared, conn, true)) {
					t.ShowsNone(c, other, "with connection_id %s only that connection comes back, not %s", conn, other)
				} else {
					t.Held() // named no more than the RS's own answer to that scope names it
				}
			}
		})
		break
	}
}}

// judgeScopedFull holds one schema(stream[, connection_id], detail:
// "full") result to S022.1 and S022.4–6.
func judgeScopedFull(t, on *T, c *Call, stream, conn string) {
	doc := probe.SchemaDoc(c)
	what := "schema(" + stream
	if conn != "" {
		what += ", " + conn
	}
	what += ", detail: \"full\")"
	truth := probe.TruthRows(t, "", "", probe.SchemaRows(doc))
	t.Clause(1, func() {
		if !t.Works(c, probe.GrantNames(t), "%s must return that stream's exhaustive schema", what) {
			return
		}
		t.Shows(c, read.Text(stream), "%s must return rows of %q", what, stream)
		for _, r := range probe.ShownRows(doc, truth) {
			t.AssertWith(r.Truth.Name == stream, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: r.Truth.Name, In: []string{what + "'s structuredContent"}, Excerpt: clipText(probe.CompactJSON(r.Obj), 200)}, nil
			}, "%s must return only rows of %q, not the grant-wide schema; it also holds %s", what, stream, r.Truth.Ident())
		}
		t.AssertWith(carriesRawSchema(c.Structured()), func() (conformance.Witness, error) { return conformance.Absent(read.Text("properties"), c) },
			"%s must keep the raw per-field JSON Schema (schema.properties): %s", what, clipText(string(c.Raw), 300))
		if on.Target.Has(CapControlledRS) {
			reqs := on.RS().RequestsTo("/v1/schema")
			for _, r := range reqs {
				q, _ := url.ParseQuery(r.RawQuery)
				t.AssertWith(!(q.Get("detail") == "full" && q.Get("stream") == "" && r.Status == 200), func() (conformance.Witness, error) {
					return conformance.Present("GET /v1/schema?"+r.RawQuery, rsLog(reqs))
				}, "%s fetched the grant-wide exhaustive schema (GET /v1/schema?%s)", what, r.RawQuery)
			}
		}
	})
	if c.IsError() {
		return
	}
	t.Clause(4, func() {
		t.Record("scoped full schema bytes", c.Bytes())
		t.Threshold().Expect(c.Bytes()).To(BeNumerically("<=", t.Settings.Surface.ScopedFullBudgetBytes),
			"%s must stay within mcpcheck's %d bytes for one tool result", what, t.Settings.Surface.ScopedFullBudgetBytes)
	})
	t.Clause(5, func() {
		data := c.Data()
		if !t.AssertWith(data != nil, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "structuredContent.data", In: []string{c.Describe()}}, nil
		}, "%s must put the schema document under structuredContent.data: %s", what, clipText(string(c.Raw), 300)) {
			return
		}
		inner, nested := data["data"].(map[string]any)
		t.AssertWith(!nested, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: "structuredContent.data.data", In: []string{c.Describe()}, Excerpt: clipText(probe.CompactJSON(inner), 200)}, nil
		}, "%s: the schema document sits directly under structuredContent.data, not data.data", what)
	})
	t.Clause(6, func() {
		if cs, _ := doc["connectors"].([]any); len(cs) == 0 {
			t.Skipf("%s has no connector-grouped streams", what)
		}
		rep := probe.RepeatedRows(doc)
		t.AssertWith(len(rep) == 0, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: rep[0], In: []string{what + "'s structuredContent: in top-level streams and in connectors[].streams"}}, nil
		}, "%s lists rows %v both in top-level streams and in connectors[].streams", what, rep)
	})
}

// disambiguationCodeRe is an error code that types a disambiguation: it
// names the ambiguity, or the connection or source to choose.
var disambiguationCodeRe = regexp.MustCompile(`(?i)ambig|connection|source|multiple`)

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
// disambiguation follows c, a typed refusal asking for connection_id: the
// first candidate it shows (a connection of the grant's schema, else an
// id-like token of the error) with which the same schema call works; ""
// when c is no such refusal or no candidate works.
func disambiguation(on *T, c *Call, stream string, rows []probe.SchemaRow) string {
	if !c.IsError() || !probe.TypedRejection(c, "connection_id") || !retriesWithConnection(c) {
		return ""
	}
	shown := c.Text() + " " + strings.Join(probe.StringValues(c.Structured()), " ")
	var cands []string
	for _, r := range rows {
		for _, conn := range r.Connections {
			if strings.Contains(shown, conn) && !slices.Contains(cands, conn) {
				cands = append(cands, conn)
			}
		}
	}
	for _, w := range idLike.FindAllString(shown, -1) {
		if w != stream && !slices.Contains(cands, w) {
			cands = append(cands, w)
		}
	}
	for i, conn := range cands {
		if i == maxDisambiguationTries {
			break
		}
		if !on.CallRoles("schema", dialect.Args{dialect.Stream: stream, dialect.Connection: conn, dialect.Detail: "full"}).IsError() {
			return conn
		}
	}
	return ""
}

// idLike are the tokens of an error that may be a connection id: a letter,
// then id characters, one of them a digit.
var idLike = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9_:.-]*[0-9][A-Za-z0-9_:.-]*\b`)

// maxDisambiguationTries bounds the candidates followed.
const maxDisambiguationTries = 4

// wrongRetry witnesses an ambiguity error that does not name connection_id
// as the retry: the other argument its retry_with names, or no retry_with
// anywhere in it (the seed's field; prose alone does not carry it).
func wrongRetry(c *Call) (conformance.Witness, error) {
	if v := retryWith(c.ErrorObject()["retry_with"]); v != "" && v != "connection_id" {
		return conformance.Present(v, c)
	}
	return conformance.Absent(read.Text("retry_with"), c)
}

func retriesWithConnection(c *Call) bool {
	if v := retryWith(c.ErrorObject()["retry_with"]); v != "" {
		return v == "connection_id" // the value it gives, whatever the text says
	}
	text := c.Text()
	if m := retryWithTextRe.FindStringSubmatch(text); m != nil {
		return m[1] == "connection_id"
	}
	i := strings.Index(text, "retry_with")
	return i >= 0 && strings.Contains(text[i:min(len(text), i+80)], "connection_id")
}

// retryWithTextRe is retry_with and the name a text gives it
// (retry_with: connection_id, "retry_with":"connection_id").
var retryWithTextRe = regexp.MustCompile("retry_with[\"'`]?\\s*[:=]\\s*[\"'`]?([A-Za-z_]+)")

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

// notServing are the grant's connections that serve no row of stream.
func notServing(rows []probe.SchemaRow, stream string) []string {
	serving := map[string]bool{}
	for _, r := range probe.RowsNamed(rows, stream) {
		for _, c := range r.Connections {
			serving[c] = true
		}
	}
	var out []string
	for _, r := range rows {
		for _, c := range r.Connections {
			if !serving[c] && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}
