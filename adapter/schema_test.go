package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

func scaleSession(t *testing.T, sp fakers.ScaleSpec) (*mcp.ClientSession, *fakers.RS, *fakers.Fixture) {
	t.Helper()
	fx, err := fakers.Scale(sp)
	if err != nil {
		t.Fatal(err)
	}
	fx.SpecClientReads = true
	cs, rs := sessionWith(t, fx)
	return cs, rs, fx
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, int) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, text(res))
	}
	whole, _ := json.Marshal(res)
	return res, len(whole)
}

// rsBytes is the size of an RS answer read with the client token.
func rsBytes(t *testing.T, rs *fakers.RS, path string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", fakers.MockBaseURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
	resp, err := (&http.Client{Transport: rs.Transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return len(b)
}

// Issue 4's footprint targets for the global index, held by the reference
// adapter itself.
func TestSchemaIndexFootprint(t *testing.T) {
	t.Run("4 connectors × 6 streams × 30 fields: a tenth of verbatim, text under 8,000 B", func(t *testing.T) {
		cs, rs, _ := scaleSession(t, fakers.ScaleSpec{Connectors: 4, Streams: 6, Fields: 30, Records: 1, DescriptionChars: 1200})
		verbatim := rsBytes(t, rs, "/v1/schema")
		res, whole := call(t, cs, "schema", map[string]any{})
		t.Logf("verbatim %d B, whole index %d B, text %d B", verbatim, whole, len(text(res)))
		if whole*10 > verbatim {
			t.Errorf("whole index %d B is more than a tenth of the verbatim schema (%d B)", whole, verbatim)
		}
		if n := len(text(res)); n > 8000 {
			t.Errorf("index text is %d B, want <= 8,000", n)
		}
	})
	t.Run("50 × 20 × 30: whole result under 60,000 B, every name in text", func(t *testing.T) {
		cs, _, fx := scaleSession(t, fakers.ScaleSpec{Connectors: 50, Streams: 20, Fields: 30, Records: 1})
		res, whole := call(t, cs, "schema", map[string]any{})
		t.Logf("whole index %d B, text %d B", whole, len(text(res)))
		if whole > 60000 {
			t.Errorf("whole index is %d B, want <= 60,000", whole)
		}
		for _, s := range fx.Streams {
			if !strings.Contains(text(res), s.Name+"|") && !strings.Contains(text(res), s.Name+"\n") && !strings.HasSuffix(text(res), s.Name) {
				t.Fatalf("stream %s is missing from the index text", s.Name)
			}
		}
	})
	t.Run("compact growth per field under 200 B", func(t *testing.T) {
		size := func(fields int) int {
			cs, _, _ := scaleSession(t, fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: fields, Records: 1, DescriptionChars: 1200})
			_, whole := call(t, cs, "schema", map[string]any{"stream": "stream_0_0"})
			return whole
		}
		small, large := size(15), size(30)
		if per := (large - small) / 15; per > 200 {
			t.Errorf("schema(stream) grows %d B per field (15 fields: %d B, 30: %d B), want <= 200", per, small, large)
		}
	})
}

// gateSession serves the adapter from a mock RS whose /v1/schema answer the
// test chooses, and counts calls to the records endpoint.
func gateSession(t *testing.T, schema string, schemaStatus int) (*mcp.ClientSession, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "=~^"+fakers.MockBaseURL+`/v1/schema\?`, httpmock.NewStringResponder(schemaStatus, schema).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
	mt.RegisterResponder("GET", "=~^"+fakers.MockBaseURL+`/v1/streams/orders/records`, httpmock.NewStringResponder(200, `{"object":"list","has_more":false,"data":[]}`).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
	a, err := adapter.New(adapter.Options{ProviderURL: fakers.MockBaseURL, Token: "tok", HTTPClient: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := a.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs, mt
}

func TestExpandGateReadsEitherSchemaShape(t *testing.T) {
	records := "GET =~^" + fakers.MockBaseURL + `/v1/streams/orders/records`
	for _, tc := range []struct {
		name, schema string
		status       int
		rejected     bool
	}{
		{"top-level streams, advertised", `{"streams":[{"name":"orders","expand_capabilities":[{"name":"items"}]}]}`, 200, false},
		{"top-level streams, none", `{"streams":[{"stream":"orders","expand_capabilities":[]}]}`, 200, true},
		{"connector-nested, missing", `{"connectors":[{"streams":[{"name":"orders"}]}]}`, 200, true},
		{"connector-nested, advertised", `{"connectors":[{"streams":[{"stream_name":"orders","expand_capabilities":[{"name":"items"}]}]}]}`, 200, false},
		{"unknown stream fails open", `{"connectors":[{"streams":[{"name":"invoices"}]}]}`, 200, false},
		{"schema unavailable fails open", `{"error":{"code":"unavailable"}}`, 503, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, mt := gateSession(t, tc.schema, tc.status)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query_records", Arguments: map[string]any{"stream": "orders", "expand": []string{"items"}}})
			if err != nil {
				t.Fatal(err)
			}
			calls := mt.GetCallCountInfo()[records]
			if tc.rejected {
				if !res.IsError || !strings.Contains(text(res), "invalid_expand") || !strings.Contains(text(res), "orders") || calls != 0 {
					t.Errorf("want invalid_expand naming orders and no records call; got %d calls: %s", calls, text(res))
				}
				return
			}
			if res.IsError || calls != 1 {
				t.Errorf("want the call forwarded once; got %d calls: %s", calls, text(res))
			}
		})
	}
}

// A 100-record page of fat records keeps its visible text under 1,800 B; the
// canonical envelope stays whole in structuredContent (issue 5).
func TestRecordTextStaysBounded(t *testing.T) {
	cs, _, fx := scaleSession(t, fakers.ScaleSpec{Connectors: 1, Streams: 1, Fields: 30, Records: 120})
	for _, r := range fx.Streams[0].Records {
		for k := range r.Data {
			if k != "id" {
				r.Data[k] = strings.Repeat("fat value ", 50)
			}
		}
	}
	res, _ := call(t, cs, "query_records", map[string]any{"stream": "stream_0_0", "limit": 100})
	if n := len(text(res)); n > 1800 {
		t.Errorf("text is %d B for a 100-record page, want <= 1,800", n)
	}
	var sc struct {
		Data struct {
			Data []json.RawMessage `json:"data"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &sc); err != nil || len(sc.Data.Data) != 100 {
		t.Errorf("structuredContent.data holds %d records, want the whole page of 100 (%v)", len(sc.Data.Data), err)
	}
}

// A flat RS schema (top-level streams[], no connectors[]) past the row cap
// still names every stream in the index text (S017).
func TestSchemaIndexNamesEveryStreamOfAFlatSchema(t *testing.T) {
	var rows []string
	var names []string
	for i := 0; i < 60; i++ {
		n := fmt.Sprintf("flat_stream_%02d", i)
		names = append(names, n)
		rows = append(rows, fmt.Sprintf(`{"name":%q,"connector_key":"conn_%d","connection_id":"cin_%d"}`, n, i%3, i%3))
	}
	cs, _ := gateSession(t, `{"object":"schema","streams":[`+strings.Join(rows, ",")+`]}`, 200)
	res, _ := call(t, cs, "schema", map[string]any{})
	txt := text(res)
	for _, n := range names {
		if !regexp.MustCompile(`(^|[^\w])` + n + `([^\w]|$)`).MatchString(txt) {
			t.Fatalf("stream %s is missing from the index text:\n%s", n, txt)
		}
	}
}
