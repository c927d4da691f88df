package adapter_test

// The reference adapter against the answers of the real PDPP reference RS
// for a client token (../shared/realrs/README.md, M1–M6), replayed by
// httpmock: the integration suite (integration/realrs) drives the RS itself.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

const (
	realConn = "cin_a04c279a74d7d404a1bc1159"
	// realSchema is the real RS's compact schema for a client token: every
	// field only "declared", no key, no cursor_field, no roles (M2).
	realSchema = `{"bearer":{"scope":"grant","token_kind":"client","grant_id":"grt_1"},"connectors":[{"object":"connector","source":{"id":"https://registry.pdpp.dev/connectors/gmail","kind":"connector"},` +
		`"stream_count":1,"streams":[{"name":"messages","primary_key":[],"field_capabilities":{"date":"declared","subject":"declared"},"expand_capabilities":[]}],` +
		`"connector_key":"gmail","connector_id":"gmail","granted_connections":[{"connection_id":"` + realConn + `","display_name":"Work Gmail"}]}],"object":"schema","detail":"compact","connector_count":1,"stream_count":1}`
	// realDetail is its record detail: connector_key is the manifest URI (M4).
	realDetail = `{"object":"record","id":"wmsg_001","stream":"messages","connection_id":"` + realConn + `","display_name":"Work Gmail",` +
		`"connector_key":"https://registry.pdpp.dev/connectors/gmail","emitted_at":"2026-02-19T09:00:00.000Z","data":{"subject":"Quarterly report","date":"2026-01-05T08:00:00.000Z"}}`
	realFilterRefusal = `{"error":{"code":"invalid_request","message":"filter[...] is not supported for client-token reads in PDPP v0.1","type":"invalid_request_error","param":"filter","request_id":"req_1"}}`
	realUnknownField  = `{"error":{"code":"unknown_field","message":"Unknown field: nope","type":"invalid_request_error","request_id":"req_2"}}`
	realEmptyPage     = `{"object":"list","has_more":false,"data":[]}`
)

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// realRSSession serves the adapter the real RS's shapes; queries records
// every /records query the adapter sent.
func realRSSession(t *testing.T) (cs *mcp.ClientSession, queries *[]url.Values) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	var sent []url.Values
	mt.RegisterResponder("GET", "=~^"+fakers.MockBaseURL+`/v1/schema\?`, httpmock.NewStringResponder(200, realSchema).HeaderSet(jsonHeader))
	mt.RegisterResponder("GET", "=~^"+fakers.MockBaseURL+`/v1/streams/messages/records/wmsg_001`, httpmock.NewStringResponder(200, realDetail).HeaderSet(jsonHeader))
	mt.RegisterResponder("GET", "=~^"+fakers.MockBaseURL+`/v1/streams/messages/records\?`, func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		sent = append(sent, q)
		body, status := realEmptyPage, 200
		switch {
		case q.Has("filter[subject]"):
			body, status = realFilterRefusal, 400
		case q.Get("fields") == "nope":
			body, status = realUnknownField, 400
		case q.Has("sort") && q.Has("order"):
			body, status = `{"error":{"code":"invalid_sort","message":"sort and order disagree","type":"invalid_request_error","param":"sort"}}`, 400
		}
		resp := httpmock.NewStringResponse(status, body)
		resp.Header = jsonHeader.Clone()
		return resp, nil
	})
	return connectInMemory(t, adapter.Options{ProviderURL: fakers.MockBaseURL, Token: "tok", HTTPClient: &http.Client{Transport: mt}}), &sent
}

// An agent's descending read reaches the RS as canonical sort alone (M5).
func TestSortAndOrderFoldIntoCanonicalSort(t *testing.T) {
	cs, sent := realRSSession(t)
	for _, c := range []struct {
		args      map[string]any
		sort, ord string
	}{
		{map[string]any{"sort": "date", "order": "desc"}, "-date", ""},
		{map[string]any{"sort": "date", "order": "asc"}, "date", ""},
		{map[string]any{"sort": "-date"}, "-date", ""},
		{map[string]any{"order": "asc"}, "", "asc"},
	} {
		c.args["stream"], c.args["connection_id"] = "messages", realConn
		if res := answer(t, cs, "query_records", c.args); res.IsError {
			t.Errorf("%v: %s", c.args, text(res))
			continue
		}
		q := (*sent)[len(*sent)-1]
		if q.Get("sort") != c.sort || q.Get("order") != c.ord {
			t.Errorf("%v reached the RS as sort=%q order=%q, want sort=%q order=%q", c.args, q.Get("sort"), q.Get("order"), c.sort, c.ord)
		}
	}
	res := answer(t, cs, "query_records", map[string]any{"stream": "messages", "connection_id": realConn, "sort": "-date", "order": "asc"})
	if !res.IsError || !strings.Contains(text(res), `"code":"invalid_sort"`) || !strings.Contains(text(res), `"param":"order"`) {
		t.Errorf("a sign that contradicts order must be a typed invalid_sort naming order, got %s", text(res))
	}
}

// fetch names the connector as schema and search do, not by the record
// detail's manifest URI (M4).
func TestFetchTakesConnectorKeyFromTheGrant(t *testing.T) {
	cs, _ := realRSSession(t)
	res := answer(t, cs, "fetch", map[string]any{"id": realConn + "/messages:wmsg_001"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if out := text(res); !strings.Contains(out, `"connector_key":"gmail"`) || strings.Contains(out, "registry.pdpp.dev") {
		t.Errorf("metadata.connector_key must be the grant's key gmail:\n%s", out)
	}
}

// A filter the grant cannot use is refused with what the grant can do
// instead (M3); an RS error without param gets the argument at fault (M6).
func TestRealRSRefusalsAreExplained(t *testing.T) {
	cs, _ := realRSSession(t)
	res := answer(t, cs, "query_records", map[string]any{"stream": "messages", "connection_id": realConn, "filter": map[string]any{"subject": "x"}})
	out := text(res)
	for _, want := range []string{`"code":"invalid_request"`, `"param":"filter"`, `"grant_limit":"filter"`, `"next_step":"this grant cannot filter`, "search(q, streams)"} {
		if !res.IsError || !strings.Contains(out, want) {
			t.Errorf("filter refusal must carry %s:\n%s", want, out)
		}
	}
	res = answer(t, cs, "query_records", map[string]any{"stream": "messages", "connection_id": realConn, "fields": []string{"nope"}})
	if out := text(res); !res.IsError || !strings.Contains(out, `"code":"unknown_field"`) || !strings.Contains(out, `"param":"fields"`) {
		t.Errorf("unknown_field without param must name fields:\n%s", out)
	}
}

// A schema that flags nothing still says what the RS contract guarantees,
// and where that comes from.
func TestCapabilityBlindSchemaShowsContractGuarantees(t *testing.T) {
	cs, _ := realRSSession(t)
	res := answer(t, cs, "schema", map[string]any{"stream": "messages", "connection_id": realConn})
	out := text(res)
	for _, want := range []string{"order=asc|desc", "per the RS contract", "search=unflagged"} {
		if res.IsError || !strings.Contains(out, want) {
			t.Errorf("schema(stream) text must carry %q:\n%s", want, out)
		}
	}
}
