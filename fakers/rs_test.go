package fakers

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type client struct {
	t     *testing.T
	http  *http.Client
	token string
}

func newClient(t *testing.T, fixture string, token func(*RS) string) (*client, *RS) {
	t.Helper()
	fx, err := LoadFixture(fixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := New(fx)
	return &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: token(rs)}, rs
}

func (c *client) get(path string, q url.Values) (int, map[string]any, http.Header) {
	c.t.Helper()
	u := MockBaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, _ := http.NewRequest("GET", u, nil)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		c.t.Fatalf("%s: not JSON: %s", path, raw)
	}
	return resp.StatusCode, body, resp.Header
}

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func TestAuthGate(t *testing.T) {
	cases := []struct {
		name   string
		token  func(*RS) string
		path   string
		q      url.Values
		status int
		code   string
	}{
		{"missing bearer", func(*RS) string { return "" }, "/v1/schema", nil, 401, "authentication_error"},
		{"unknown bearer", func(*RS) string { return "nope" }, "/v1/schema", nil, 401, "authentication_error"},
		{"revoked grant", (*RS).RevokedToken, "/v1/schema", nil, 403, "grant_revoked"},
		{"ungranted stream", (*RS).ClientToken, "/v1/streams/secrets/records", nil, 401, "context.stream_not_allowed"},
		{"connection outside grant", (*RS).ClientToken, "/v1/streams/attachments/records", url.Values{"connection_id": {"cin_home"}}, 401, "context.instance_mismatch"},
		{"client filter", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"filter[label]": {"inbox"}}, 400, "invalid_request"},
		{"unknown param", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"bogus": {"1"}}, 400, "invalid_request"},
		{"owner filter ok", (*RS).OwnerToken, "/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}}, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newClient(t, DefaultFixture, tc.token)
			status, body, h := c.get(tc.path, tc.q)
			if status != tc.status || errCode(body) != tc.code {
				t.Fatalf("%d %s, want %d %s: %v", status, errCode(body), tc.status, tc.code, body)
			}
			if status == 401 && !strings.Contains(h.Get("WWW-Authenticate"), `resource_metadata="http://fixture-rs.test/.well-known/oauth-protected-resource"`) {
				t.Errorf("401 without challenge: %q", h.Get("WWW-Authenticate"))
			}
			if h.Get("Request-Id") == "" || (status == 200 && h.Get("PDPP-Version") != PDPPVersion) {
				t.Errorf("headers %v", h)
			}
		})
	}
}

func TestSchemaCompactAndFull(t *testing.T) {
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	_, doc, _ := owner.get("/v1/schema", url.Values{"view": {"compact"}, "stream": {"messages"}})
	conns := doc["connectors"].([]any)
	row := conns[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
	caps := row["field_capabilities"].(map[string]any)
	for f, want := range map[string]string{
		"sent_at":    "t=timestamp,eq,r=gte|gt|lte|lt,a=group_by_time|max|min",
		"subject":    "t=string,role=primary-title,eq,lex",
		"from_email": "t=string,eq,a=count_distinct|group_by",
	} {
		if caps[f] != want {
			t.Errorf("%s flags %q, want %q", f, caps[f], want)
		}
	}
	if doc["detail"] != "compact" || conns[0].(map[string]any)["granted_connections"] == nil || row["granted_connections"] != nil {
		t.Errorf("compact shape: %v", doc)
	}
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	if status, body, _ := c.get("/v1/schema", url.Values{"detail": {"full"}}); status != 400 || errCode(body) != "invalid_request" {
		t.Errorf("full without stream: %d %v", status, body)
	}
	status, body, _ := c.get("/v1/schema", url.Values{"detail": {"full"}, "stream": {"messages"}})
	if e, _ := body["error"].(map[string]any); status != 409 || e["retry_with"] != "connection_id" || len(e["available_connections"].([]any)) != 2 {
		t.Errorf("ambiguous full: %d %v", status, body)
	}
	status, body, _ = c.get("/v1/schema", url.Values{"detail": {"full"}, "stream": {"messages"}, "connection_id": {"cin_home"}})
	if status != 200 || body["stream_count"] != float64(1) {
		t.Errorf("scoped full: %d %v", status, body)
	}
	_, body, _ = c.get("/v1/schema", url.Values{"view": {"compact"}})
	if body["stream_count"] != float64(3) {
		t.Errorf("client compact stream_count %v", body["stream_count"])
	}
}

func TestRecordsPagingFanInAndClamp(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).ClientToken)
	seen := map[string]bool{}
	q := url.Values{"connection_id": {"cin_work"}, "limit": {"15"}, "count": {"exact"}}
	for pages := 0; ; pages++ {
		status, body, _ := c.get("/v1/streams/messages/records", q)
		if status != 200 || pages > 10 {
			t.Fatalf("page %d: %d %v", pages, status, body)
		}
		for _, r := range body["data"].([]any) {
			seen[r.(map[string]any)["id"].(string)] = true
		}
		if body["has_more"] != true {
			break
		}
		q.Set("cursor", body["next_cursor"].(string))
	}
	if len(seen) != 41 {
		t.Errorf("paged %d records of cin_work, want 41", len(seen))
	}
	_, body, _ := c.get("/v1/streams/messages/records", url.Values{"limit": {"500"}})
	if len(body["data"].([]any)) != 82 || body["next_cursor"] != nil {
		t.Errorf("fan-in: %d records, next_cursor %v", len(body["data"].([]any)), body["next_cursor"])
	}
	warn := body["meta"].(map[string]any)["warnings"].([]any)
	if len(warn) != 1 || warn[0].(map[string]any)["code"] != "limit_clamped" {
		t.Errorf("warnings %v", warn)
	}
	_, body, _ = c.get("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "fields": {"id,subject"}, "limit": {"1"}})
	data := body["data"].([]any)[0].(map[string]any)["data"].(map[string]any)
	if len(data) != 2 {
		t.Errorf("projection %v", data)
	}
	if n := len(rs.RequestsTo("/v1/streams/messages/records")); n < 4 {
		t.Errorf("request log has %d record calls", n)
	}
}

func TestDetailAmbiguityAndFieldWindow(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	status, body, _ := c.get("/v1/streams/messages/records/"+SharedRecordID, nil)
	if e, _ := body["error"].(map[string]any); status != 409 || e["retry_with"] != "connection_id" {
		t.Errorf("shared id: %d %v", status, body)
	}
	path := "/v1/streams/messages/records/" + LongBodyRecordID + "/field-window"
	_, body, _ = c.get(path, url.Values{"field": {"body"}, "limit_chars": {"1000"}, "offset_chars": {"1000"}})
	w := body["window"].(map[string]any)
	if w["start_chars"] != float64(1000) || w["end_chars"] != float64(2000) || w["complete"] != false || w["next_offset_chars"] != float64(2000) || w["previous_offset_chars"] != float64(0) {
		t.Errorf("window %v", w)
	}
	_, body, _ = c.get(path, url.Values{"field": {"body"}, "q": {LongBodyPhrase}, "before_chars": {"20"}, "after_chars": {"20"}})
	w = body["window"].(map[string]any)
	if !strings.Contains(w["text"].(string), LongBodyPhrase) || w["match_start_chars"] == nil {
		t.Errorf("q window %v", w)
	}
	for _, tc := range []struct {
		q    url.Values
		code string
	}{
		{url.Values{"field": {"size_bytes"}}, "field_not_text"},
		{url.Values{"field": {"missing"}}, "field_not_granted"},
		{url.Values{"field": {"body"}, "offset_chars": {"x"}}, "invalid_window"},
		{url.Values{"field": {"body"}, "q": {"zzz-not-there"}}, "query_not_found"},
	} {
		if _, body, _ := c.get(path, tc.q); errCode(body) != tc.code {
			t.Errorf("%v: %v, want %s", tc.q, body, tc.code)
		}
	}
	if _, body, _ := c.get("/v1/streams/messages/records/"+NoSubjectRecord+"/field-window", url.Values{"field": {"subject"}, "connection_id": {"cin_work"}}); errCode(body) != "field_not_found" {
		t.Errorf("absent field: %v", body)
	}
}

func TestAggregateAndSearch(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/streams/messages/aggregate", url.Values{"metric": {"count"}, "group_by": {"label"}, "limit": {"2"}, "connection_id": {"cin_work"}})
	groups := body["groups"].([]any)
	if len(groups) != 2 || body["other_count"] == nil || body["other_count"].(float64) <= 0 {
		t.Errorf("grouped: %v", body)
	}
	if _, body, _ := c.get("/v1/streams/messages/aggregate", url.Values{"metric": {"sum"}, "field": {"size_bytes"}, "group_by": {"label"}}); errCode(body) != "invalid_request" {
		t.Errorf("sum grouped must be rejected: %v", body)
	}
	_, body, _ = c.get("/v1/search", url.Values{"q": {FanInTerm}, "limit": {"5"}})
	hits := body["data"].([]any)
	conns := map[string]bool{}
	for _, h := range hits {
		hm := h.(map[string]any)
		conns[hm["connection_id"].(string)] = true
		s := hm["snippet"].(map[string]any)["text"].(string)
		if strings.Count(s, "<mark>") == 0 || strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
			t.Errorf("snippet %q", s)
		}
	}
	if len(hits) != 5 || len(conns) != 2 || body["has_more"] != true || body["next_cursor"] == nil {
		t.Errorf("search: %d hits from %d connections: %v", len(hits), len(conns), body["has_more"])
	}
	if status, body, _ := c.get("/v1/search", url.Values{"q": {"x"}, "streams": {"secrets"}}); status != 403 || errCode(body) != "grant_stream_not_allowed" {
		t.Errorf("ungranted streams: %d %v", status, body)
	}
}

func TestStartServesOnLoopback(t *testing.T) {
	fx, _ := LoadFixture("single-connection")
	rs := New(fx)
	u, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(t.Context())
	req, _ := http.NewRequest("GET", u+"/v1/streams", nil)
	req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", err, resp)
	}
	resp.Body.Close()
	if _, err := LoadFixture("nope"); err == nil || !strings.Contains(err.Error(), "two-connections") {
		t.Errorf("unknown fixture error %v", err)
	}
}
