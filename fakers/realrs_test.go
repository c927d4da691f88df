package fakers

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// realClient reads the default fixture's real profile with the token tok
// picks. fakers/realrsdiff compares this profile with the reference RS
// itself; these tests pin the profile where the kit is absent.
func realClient(t *testing.T, tok func(*RS) string) *client {
	t.Helper()
	fx, err := LoadFixture(DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.RealRS = true
	rs := New(fx)
	return &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: tok(rs)}
}

func TestRealProfileBindsEachClientTokenToOneConnector(t *testing.T) {
	for _, tc := range []struct {
		name string
		tok  func(*RS) string
		want string
	}{
		{"ClientToken", (*RS).ClientToken, "gmail"}, // the first connector
		{"gmail", func(rs *RS) string { return rs.ClientTokenFor("gmail") }, "gmail"},
		{"github", func(rs *RS) string { return rs.ClientTokenFor("github") }, "github"},
	} {
		c := realClient(t, tc.tok)
		_, body, _ := c.get("/v1/schema", url.Values{"view": {"compact"}})
		conns, _ := body["connectors"].([]any)
		if len(conns) != 1 {
			t.Fatalf("%s: %d connectors, want 1: %v", tc.name, len(conns), body)
		}
		conn := conns[0].(map[string]any)
		src := conn["source"].(map[string]any)
		if conn["connector_key"] != tc.want || src["id"] != "https://registry.pdpp.dev/connectors/"+tc.want || conn["display_name"] != nil {
			t.Errorf("%s: connector %v, want key %s, the manifest URI as source.id and no display_name", tc.name, conn, tc.want)
		}
		for _, row := range conn["streams"].([]any) {
			var keys []string
			for k := range row.(map[string]any) {
				if k != "granted_connections" {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			if got := strings.Join(keys, ","); got != "expand_capabilities,field_capabilities,name,primary_key" {
				t.Errorf("%s: compact row keys %s", tc.name, got)
			}
			for f, v := range row.(map[string]any)["field_capabilities"].(map[string]any) {
				if v != "declared" {
					t.Errorf("%s: field %s is %v, want only declared", tc.name, f, v)
				}
			}
		}
	}
	gm := realClient(t, func(rs *RS) string { return rs.ClientTokenFor("gmail") })
	gm.expectError("/v1/streams/issues/records", nil, 401, "context.stream_not_allowed")
	if _, body, _ := gm.get("/v1/search", url.Values{"q": {FanInTerm}, "limit": {"100"}}); len(body["data"].([]any)) == 0 {
		t.Errorf("search %s: no hits", FanInTerm)
	} else {
		for _, h := range body["data"].([]any) {
			if k := h.(map[string]any)["connector_id"]; k != "gmail" {
				t.Errorf("gmail token's search hit from %v", k)
			}
		}
	}
}

func TestRealProfileAnswersAsTheReferenceRS(t *testing.T) {
	c := realClient(t, (*RS).ClientToken)
	on := func(kv ...string) url.Values {
		q := url.Values{"connection_id": {"cin_work"}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	param := func(e map[string]any) any { return e["param"] }
	recs := "/v1/streams/messages/records"

	// M3: filter and expand refused.
	if e := c.expectError(recs, on("filter[sent_at][gte]", "2026-01-01"), 400, "invalid_request"); param(e) != "filter" {
		t.Errorf("filter refusal param %v", param(e))
	}
	if e := c.expectError(recs, on("expand", "attachments"), 400, "invalid_request"); param(e) != "expand" || e["message"] != "expand[] is not supported for client-token reads in PDPP v0.1" {
		t.Errorf("expand refusal %v", e)
	}
	// M4: record detail names the connector by its manifest URI.
	if _, body, _ := c.get(recs+"/"+ShortBodyRecordID, on()); body["connector_key"] != "https://registry.pdpp.dev/connectors/gmail" {
		t.Errorf("record detail connector_key %v", body["connector_key"])
	}
	// M5: sort and order that disagree; sort on the cursor field works.
	e := c.expectError(recs, on("sort", "sent_at", "order", "desc"), 400, "invalid_sort")
	if e["message"] != "sort and order disagree: sort resolves to ASC, order=desc. Send only canonical `sort`." {
		t.Errorf("invalid_sort message %q", e["message"])
	}
	if st, body, _ := c.get(recs, on("sort", "-sent_at", "limit", "2")); st != 200 || len(body["data"].([]any)) != 2 {
		t.Errorf("sort=-sent_at: %d %v", st, body)
	}
	// M6: no param on unknown_field and field_not_text.
	if e := c.expectError(recs, on("fields", "no_such_field"), 400, "unknown_field"); param(e) != nil {
		t.Errorf("unknown_field param %v", param(e))
	}
	if e := c.expectError(recs+"/"+ShortBodyRecordID+"/field-window", on("field", "size_bytes"), 422, "field_not_text"); param(e) != nil ||
		e["message"] != "field 'size_bytes' is number, not a readable text field; non-text and binary fields are metadata-only" {
		t.Errorf("field_not_text %v", e)
	}
	// M7: fan-in over the token's two connections, limit rows each.
	_, body, _ := c.get(recs, url.Values{"limit": {"3"}})
	warnings := body["meta"].(map[string]any)["warnings"].([]any)
	if len(body["data"].([]any)) != 6 || body["has_more"] != true || body["next_cursor"] != nil || len(warnings) != 1 ||
		warnings[0].(map[string]any)["code"] != "partial_results" {
		t.Errorf("fan-in: %d rows, has_more %v, next_cursor %v, warnings %v", len(body["data"].([]any)), body["has_more"], body["next_cursor"], warnings)
	}
	// M8: the 401's next_step.
	if e := c.expectError("/v1/streams/issues", nil, 401, "context.stream_not_allowed"); !strings.Contains(e["next_step"].(string), "pdpp_agent_discovery.cli") {
		t.Errorf("next_step %q", e["next_step"])
	}
	// Manifest aggregations still work.
	if st, body, _ := c.get("/v1/streams/messages/aggregate", on("metric", "max", "field", "sent_at")); st != 200 || body["value"] == nil {
		t.Errorf("aggregate max sent_at: %d %v", st, body)
	}
}

// The other profiles keep the multi-connector client token.
func TestDigestProfileClientTokenSpansConnectors(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/schema", url.Values{"view": {"compact"}})
	if n := len(body["connectors"].([]any)); n != 3 {
		t.Errorf("%d connectors, want 3", n)
	}
}
