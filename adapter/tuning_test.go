package adapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// sessionTuned is session with the adapter's knobs set.
func sessionTuned(t *testing.T, tune adapter.Tuning) (*mcp.ClientSession, *fakers.RS) {
	t.Helper()
	rs := fakers.New(specFixture(t))
	return connectInMemory(t, adapter.Options{ProviderURL: fakers.MockBaseURL, Token: rs.ClientToken(),
		HTTPClient: &http.Client{Transport: rs.Transport()}, Tuning: tune}), rs
}

// answer calls a tool and returns its result, an error result included.
func answer(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var previewConnRe = regexp.MustCompile(`(?m)^record\[\d+\] id=(\w+)/messages:\S+ \{"connection_id":"(\w+)"`)

// UnscopedListsFanIn forwards an unscoped read of a shared stream, which
// the RS fans in: no schema lookup, records of every connection, each
// preview naming its own, and the RS's partial_results warning in text.
// The default asks which connection before any record read.
func TestUnscopedListsFanIn(t *testing.T) {
	args := map[string]any{"stream": "messages", "limit": 2}

	ask, rs := sessionTuned(t, adapter.Tuning{})
	res := answer(t, ask, "query_records", args)
	if !res.IsError || !strings.Contains(text(res), `"code":"ambiguous_connection"`) {
		t.Errorf("by default an unscoped read of a shared stream asks which connection, got %s", text(res))
	}
	if n := len(rs.RequestsTo("/v1/streams/")); n != 0 {
		t.Errorf("the ambiguity error read %d record pages", n)
	}

	fan, rs := sessionTuned(t, adapter.Tuning{UnscopedLists: adapter.UnscopedListsFanIn})
	res = answer(t, fan, "query_records", args)
	out := text(res)
	if res.IsError {
		t.Fatalf("fan-in read failed: %s", out)
	}
	if n := len(rs.RequestsTo("/v1/schema")); n != 0 {
		t.Errorf("a fanned-in read looked up the schema %d times", n)
	}
	conns := map[string]bool{}
	for _, m := range previewConnRe.FindAllStringSubmatch(out, -1) {
		if m[1] != m[2] {
			t.Errorf("preview id names connection %s but its record %s", m[1], m[2])
		}
		conns[m[2]] = true
	}
	if len(conns) < 2 {
		t.Errorf("the fanned-in page previews records of %d connection(s), want several:\n%s", len(conns), out)
	}
	if !strings.Contains(out, "warning=partial_results ") || strings.Contains(out, "next_cursor=") {
		t.Errorf("the text must carry the RS's partial_results warning and no cursor:\n%s", out)
	}

	// Source-required record reads still ask; the expand gate still holds.
	res = answer(t, fan, "fetch", map[string]any{"id": "messages:" + fakers.SharedRecordID})
	if !strings.Contains(text(res), `"code":"ambiguous_connection"`) {
		t.Errorf("fetch without connection_id must still ask which connection, got %s", text(res))
	}
	// So does a changes feed: the RS binds its bookmark to one connection.
	res = answer(t, fan, "query_records", map[string]any{"stream": "messages", "changes_since": "beginning"})
	if !res.IsError || !strings.Contains(text(res), `"code":"ambiguous_connection"`) {
		t.Errorf("a changes feed without connection_id must ask which connection, got %s", text(res))
	}
	// A distinct count needs one source (the RS refuses it across
	// connections): it asks too, with no record read.
	before := len(rs.RequestsTo("/v1/streams/"))
	res = answer(t, fan, "aggregate", map[string]any{"stream": "messages", "metric": "count_distinct", "field": "from_email"})
	if !res.IsError || !strings.Contains(text(res), `"code":"ambiguous_connection"`) || len(rs.RequestsTo("/v1/streams/")) != before {
		t.Errorf("count_distinct without connection_id must ask which connection before any RS read, got %s", text(res))
	}
	res = answer(t, fan, "query_records", map[string]any{"stream": "channels", "expand": []string{"messages"}})
	if !strings.Contains(text(res), `"code":"invalid_expand"`) {
		t.Errorf("a fanned-in read must still gate expand, got %s", text(res))
	}
}

// Every cut mark stays out of the characters that structure key=value and
// name[flags] text, whatever Tuning.Ellipsis is.
func TestInlineValuesKeepTheirStructureWithABracketedEllipsis(t *testing.T) {
	long := strings.Repeat("x", 70)
	row := map[string]any{"field_capabilities": map[string]any{long: "t=string,eq"}, "cursor_field": long}
	segs := adapter.CompactGrammar{Ellipsis: "[…]"}.Row(row)
	fields := segs[0]
	if want := "fields=" + strings.Repeat("x", 57) + "_…_[t=string,eq]"; fields != want {
		t.Errorf("a cut field name must not open a bracket: got %s, want %s", fields, want)
	}
	for _, s := range segs[1:] {
		if strings.Contains(s, "[…]") {
			t.Errorf("segment %q carries the raw bracketed ellipsis", s)
		}
	}
}

// FallbackTitle names what has no source title, in search and in fetch;
// nil keeps "source / stream / time".
func TestFallbackTitle(t *testing.T) {
	id := map[string]any{"id": "cin_work/messages:" + fakers.NoSubjectRecordID}
	title := func(cs *mcp.ClientSession) string {
		var doc struct{ Title, Text string }
		res := answer(t, cs, "fetch", id)
		if err := json.Unmarshal([]byte(text(res)), &doc); err != nil {
			t.Fatalf("fetch: %v: %s", err, text(res))
		}
		return doc.Title
	}
	shipped, _ := sessionTuned(t, adapter.Tuning{})
	def := title(shipped)
	if !strings.HasPrefix(def, "Work Mail / messages / 2026-") {
		t.Errorf("default fallback title %q", def)
	}
	named, _ := sessionTuned(t, adapter.Tuning{FallbackTitle: func(source, stream, at string) string { return source + " | " + stream + " | " + at }})
	if got, want := title(named), strings.ReplaceAll(def, " / ", " | "); got != want {
		t.Errorf("fetch title %q, want %q", got, want)
	}
	res := answer(t, named, "search", map[string]any{"q": "Work Mail", "connection_id": "cin_work", "limit": 100})
	if !strings.Contains(text(res), `title="Work Mail | messages | 2026-`) {
		t.Errorf("search's untitled hits must use FallbackTitle:\n%s", text(res))
	}
}
