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

func (c *client) do(method, path string, q url.Values) (*http.Response, []byte) {
	c.t.Helper()
	u := MockBaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, _ := http.NewRequest(method, u, nil)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func (c *client) get(path string, q url.Values) (int, map[string]any, http.Header) {
	c.t.Helper()
	resp, raw := c.do("GET", path, q)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		c.t.Fatalf("%s: not JSON: %.200s", path, raw)
	}
	return resp.StatusCode, body, resp.Header
}

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// expectError asserts one typed error answer.
func (c *client) expectError(path string, q url.Values, status int, code string) map[string]any {
	c.t.Helper()
	got, body, _ := c.get(path, q)
	if got != status || errCode(body) != code {
		c.t.Errorf("%s?%s: %d %s, want %d %s (%v)", path, q.Encode(), got, errCode(body), status, code, body)
	}
	e, _ := body["error"].(map[string]any)
	if e != nil && (e["request_id"] == nil || e["type"] != envelopeType(got) || e["message"] == nil) {
		c.t.Errorf("%s: error envelope wants type %s, a message and a request_id: %v", path, envelopeType(got), e)
	}
	return e
}

// envelopeType is the contract's status-to-type table, written out here so
// the test does not share the implementation's switch.
func envelopeType(status int) string {
	if t, ok := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		410: "gone_error", 413: "request_entity_too_large_error", 429: "rate_limit_error"}[status]; ok {
		return t
	}
	return "api_error"
}

func TestDefaultFixtureShape(t *testing.T) {
	fx, err := LoadFixture(DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	conns := 0
	for _, c := range fx.Connectors {
		conns += len(c.Connections)
	}
	if len(fx.Connectors) < 3 || conns < 4 {
		t.Errorf("%d connectors, %d connections; want at least 3 and 4", len(fx.Connectors), conns)
	}
	if n := len(fx.StreamsNamed("messages")); n != 2 {
		t.Errorf("messages under %d connectors, want 2", n)
	}
	var long, short, expand, noExpand, roles, noRoles bool
	for _, s := range fx.Streams {
		if len(s.Relationships) > 0 {
			expand = true
		} else {
			noExpand = true
		}
		for _, f := range s.Fields {
			if f.Role != "" {
				roles = true
			} else {
				noRoles = true
			}
		}
		for _, r := range s.Records {
			if b, ok := r.Data["body"].(string); ok {
				long = long || len([]rune(b)) >= 60000
				short = short || (r.ID == ShortBodyRecordID && len([]rune(b)) <= 200)
			}
		}
	}
	if !long || !short || !expand || !noExpand || !roles || !noRoles {
		t.Errorf("long=%t short=%t expand=%t noExpand=%t roles=%t noRoles=%t", long, short, expand, noExpand, roles, noRoles)
	}
	a := fx.StreamsNamed("attachments")[0].Records[0].Data
	if _, ok := a["payload"].(string); !ok || len(a["payload"].(string)) < 256 {
		t.Error("want a base64 blob under a neutral field name")
	}
	m := fx.StreamsNamed("messages")[0].Records[0].Data
	if m["image"] != "sunset over the bay" || m["headers"] == nil {
		t.Error("want a plain-text field named like binary, and a JSON object field")
	}
}

func TestAuthGateAndEnvelope(t *testing.T) {
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
		{"expired grant", (*RS).ExpiredToken, "/v1/streams", nil, 403, "grant_expired"},
		{"ungranted stream", (*RS).ClientToken, "/v1/streams/secrets/records", nil, 401, "context.stream_not_allowed"},
		{"connection outside grant", (*RS).ClientToken, "/v1/streams/attachments/records", url.Values{"connection_id": {"cin_home"}}, 401, "context.instance_mismatch"},
		{"client filter", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"filter[label]": {"inbox"}}, 400, "invalid_request"},
		{"client expand", (*RS).ClientToken, "/v1/streams/messages/records/m001", url.Values{"expand": {"attachments"}, "connection_id": {"cin_work"}}, 400, "invalid_request"},
		{"client view", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"view": {"basic"}}, 400, "invalid_request"},
		{"unknown param", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"bogus": {"1"}}, 400, "invalid_request"},
		{"alias disagrees", (*RS).ClientToken, "/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "connector_instance_id": {"cin_home"}}, 400, "invalid_argument"},
		{"bad version", (*RS).ClientToken, "/v1/schema", nil, 0, ""},
	}
	for _, tc := range cases[:len(cases)-1] {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newClient(t, DefaultFixture, tc.token)
			status, body, h := c.get(tc.path, tc.q)
			if status != tc.status || errCode(body) != tc.code {
				t.Fatalf("%d %s, want %d %s: %v", status, errCode(body), tc.status, tc.code, body)
			}
			e := body["error"].(map[string]any)
			if want := envelopeType(status); e["type"] != want {
				t.Errorf("type %v, want %s", e["type"], want)
			}
			if status == 401 && (!strings.Contains(h.Get("WWW-Authenticate"), `resource_metadata="http://fixture-rs.test/.well-known/oauth-protected-resource"`) || e["next_step"] == nil) {
				t.Errorf("401 without challenge: %q %v", h.Get("WWW-Authenticate"), e)
			}
			if h.Get("Request-Id") == "" || h.Get("Request-Id") != e["request_id"] {
				t.Errorf("Request-Id %q vs %v", h.Get("Request-Id"), e["request_id"])
			}
		})
	}
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	req, _ := http.NewRequest("GET", MockBaseURL+"/v1/schema", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("PDPP-Version", "1999-01-01")
	resp, _ := c.http.Do(req)
	var verr map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&verr)
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("PDPP-Version") != "" || errCode(verr) != "unsupported_version" {
		t.Errorf("unsupported version: %d %s, PDPP-Version %q", resp.StatusCode, errCode(verr), resp.Header.Get("PDPP-Version"))
	}
	// A grant with no semantic fields has no embedding backend: the route is
	// the framework's 404, not the PDPP envelope.
	scale, _ := newClient(t, "scale:1,1,2,1", (*RS).ClientToken)
	status, body, _ := scale.get("/v1/search/semantic", url.Values{"q": {"x"}})
	if status != 404 || body["error"] != "Not Found" || body["statusCode"] != float64(404) {
		t.Errorf("unconfigured semantic route: %d %v", status, body)
	}
	for name, tok := range map[string]func(*RS) string{"grant_invalid": (*RS).MalformedGrantToken,
		"authorization_state.unsupported_legacy_shape": (*RS).LegacyConsentToken, "authentication_error": (*RS).PackageToken} {
		other, _ := newClient(t, DefaultFixture, tok)
		want := map[string]int{"grant_invalid": 403}[name]
		if want == 0 {
			want = 401
		}
		other.expectError("/v1/schema", nil, want, name)
	}
	foreign, _ := newClient(t, DefaultFixture, (*RS).ForeignResourceToken)
	foreign.expectError("/v1/schema", nil, 401, "authentication_error")
	control, _ := newClient(t, DefaultFixture, (*RS).ControlPlaneToken)
	control.expectError("/v1/schema", nil, 403, "permission_error")
}

func TestSchemaCompactFullAndScoping(t *testing.T) {
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	_, doc, _ := owner.get("/v1/schema", url.Values{"view": {"compact"}, "stream": {"messages"}})
	conns := doc["connectors"].([]any)
	if len(conns) != 2 || doc["detail"] != "compact" || doc["stream_count"] != float64(2) {
		t.Fatalf("compact messages: %v", doc)
	}
	gmail := conns[0].(map[string]any)
	row := gmail["streams"].([]any)[0].(map[string]any)
	caps := row["field_capabilities"].(map[string]any)
	for f, want := range map[string]string{
		"sent_at":    "t=timestamp,eq,r=gte|gt|lte|lt,a=group_by_time|max|min",
		"subject":    "t=string,role=primary-title,eq,lex",
		"from_email": "t=string,eq,a=count_distinct|group_by",
		"headers":    "t=object",
		"body":       "t=string,role=primary-text,eq,lex,sem",
	} {
		if caps[f] != want {
			t.Errorf("%s flags %q, want %q", f, caps[f], want)
		}
	}
	if gmail["granted_connections"] == nil || row["granted_connections"] != nil || len(row["expand_capabilities"].([]any)) != 1 {
		t.Errorf("lifting or expand: %v", gmail)
	}
	if ex := row["expand_capabilities"].([]any)[0].(map[string]any); ex["child_parent_key_field"] != nil || ex["foreign_key"] != "message_id" || ex["max_limit"] != float64(50) {
		t.Errorf("compact expand entries keep the reduced key set: %v", ex)
	}
	if row["record_count"] != float64(82) || row["granted"] != true || row["schema"] != nil || row["query"] != nil {
		t.Errorf("compact row keys: %v", row)
	}
	_, scoped, _ := owner.get("/v1/schema", url.Values{"view": {"compact"}, "stream": {"messages"}, "connection_id": {"cin_slack"}})
	srow := scoped["connectors"].([]any)[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
	if srow["connection_id"] != "cin_slack" || srow["connector_instance_id"] != "cin_slack" || srow["display_name"] != "Acme Slack" {
		t.Errorf("a one-connection row carries connection_id, its deprecated alias and the label: %v", srow)
	}
	_, full, _ := owner.get("/v1/schema", url.Values{"stream": {"issues"}})
	issue := full["connectors"].([]any)[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
	fc := issue["field_capabilities"].(map[string]any)["created_at"].(map[string]any)
	if fc["range_filter"].(map[string]any)["operators"] == nil || issue["query"] == nil || issue["freshness"] == nil {
		t.Errorf("full owner entry: %v", issue)
	}
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	c.expectError("/v1/schema", url.Values{"detail": {"full"}}, 400, "invalid_request")
	e := c.expectError("/v1/schema", url.Values{"detail": {"full"}, "stream": {"messages"}}, 409, "ambiguous_schema_detail")
	if e["retry_with"] != "connection_id" || len(e["available_connections"].([]any)) != 3 {
		t.Errorf("ambiguous full: %v", e)
	}
	_, body, _ := c.get("/v1/schema", url.Values{"detail": {"full"}, "stream": {"messages"}, "connection_id": {"cin_slack"}})
	if body["stream_count"] != float64(1) || body["connectors"].([]any)[0].(map[string]any)["connector_key"] != "slack" {
		t.Errorf("scoped full: %v", body)
	}
	_, body, _ = c.get("/v1/schema", url.Values{"view": {"compact"}})
	if body["stream_count"] != float64(5) || body["bearer"].(map[string]any)["token_kind"] != "client" {
		t.Errorf("client compact: %v", body)
	}
	row = body["connectors"].([]any)[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
	if row["field_capabilities"].(map[string]any)["subject"] != "declared" {
		t.Errorf("client compact is grant-projected in the implementation: %v", row["field_capabilities"])
	}
	_, body, _ = c.get("/v1/schema", url.Values{"connection_id": {"cin_unknown"}})
	if len(body["connectors"].([]any)) != 0 {
		t.Errorf("unknown connection_id yields no connectors: %v", body)
	}
}

func TestSpecClientReadsShowLiveCapabilities(t *testing.T) {
	fx, _ := LoadFixture(DefaultFixture)
	fx.SpecClientReads = true
	rs := New(fx)
	c := &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: rs.ClientToken()}
	_, body, _ := c.get("/v1/schema", url.Values{"view": {"compact"}, "stream": {"issues"}})
	row := body["connectors"].([]any)[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
	if row["field_capabilities"].(map[string]any)["state"] != "t=string,eq,a=group_by" {
		t.Errorf("spec mode flags: %v", row["field_capabilities"])
	}
	status, body, _ := c.get("/v1/streams/issues/records", url.Values{"filter[state]": {"open"}, "filter[created_at][gte]": {"2025-01-01T00:00:00Z"}, "limit": {"100"}})
	if status != 200 {
		t.Fatalf("spec-mode filter: %d %v", status, body)
	}
	for _, r := range body["data"].([]any) {
		d := r.(map[string]any)["data"].(map[string]any)
		if d["state"] != "open" || d["created_at"].(string) < "2025-01-01" {
			t.Errorf("filter leaked %v", d)
		}
	}
}

func TestRecordsParameters(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).ClientToken)
	seen := map[string]bool{}
	q := url.Values{"connection_id": {"cin_work"}, "limit": {"15"}, "count": {"exact"}}
	for pages := 0; ; pages++ {
		status, body, _ := c.get("/v1/streams/messages/records", q)
		if status != 200 || pages > 10 {
			t.Fatalf("page %d: %d %v", pages, status, body)
		}
		if body["meta"].(map[string]any)["count"].(map[string]any)["value"] != float64(41) {
			t.Errorf("count %v", body["meta"])
		}
		for _, r := range body["data"].([]any) {
			seen[r.(map[string]any)["id"].(string)] = true
		}
		if body["has_more"] != true {
			if body["links"].(map[string]any)["next"] != nil {
				t.Error("links.next on the last page")
			}
			break
		}
		if !strings.Contains(body["links"].(map[string]any)["next"].(string), "cursor=") {
			t.Errorf("links.next %v", body["links"])
		}
		q.Set("cursor", body["next_cursor"].(string))
	}
	if len(seen) != 41 {
		t.Errorf("paged %d records of cin_work, want 41", len(seen))
	}
	_, body, _ := c.get("/v1/streams/messages/records", url.Values{"limit": {"500"}})
	if body["next_cursor"] != nil || body["has_more"] != false {
		t.Errorf("fan-in: has_more %v next_cursor %v", body["has_more"], body["next_cursor"])
	}
	if n := len(body["data"].([]any)); n != 41+41+20 {
		t.Errorf("fan-in returned %d records across three connections", n)
	}
	if w := body["meta"].(map[string]any)["warnings"].([]any); len(w) != 1 || w[0].(map[string]any)["code"] != "limit_clamped" {
		t.Errorf("warnings %v", w)
	}
	_, body, _ = c.get("/v1/streams/messages/records", url.Values{"limit": {"2"}})
	if w := body["meta"].(map[string]any)["warnings"].([]any); len(w) != 1 || w[0].(map[string]any)["code"] != "partial_results" {
		t.Errorf("fan-in has_more warning %v", w)
	}
	_, body, _ = c.get("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "fields": {"id,subject", "label"}, "limit": {"1"}})
	if d := body["data"].([]any)[0].(map[string]any)["data"].(map[string]any); len(d) != 3 {
		t.Errorf("projection %v", d)
	}
	_, asc, _ := c.get("/v1/streams/issues/records", url.Values{"sort": {"created_at"}, "limit": {"2"}})
	_, desc, _ := c.get("/v1/streams/issues/records", url.Values{"order": {"desc"}, "limit": {"2"}})
	if asc["data"].([]any)[0].(map[string]any)["id"] != "i001" || desc["data"].([]any)[0].(map[string]any)["id"] != "i080" {
		t.Errorf("ordering: asc %v desc %v", asc["data"].([]any)[0], desc["data"].([]any)[0])
	}
	for _, tc := range []struct {
		q    url.Values
		code string
	}{
		{url.Values{"cursor": {"not-a-cursor"}, "connection_id": {"cin_work"}}, "invalid_cursor"},
		{url.Values{"sort": {"subject"}}, "invalid_sort"},
		{url.Values{"sort": {"sent_at"}, "order": {"desc"}}, "invalid_sort"},
		{url.Values{"order": {"sideways"}}, "invalid_request"},
		{url.Values{"count": {"maybe"}}, "invalid_request"},
		{url.Values{"fields": {"nope"}}, "unknown_field"},
		{url.Values{"fields": {""}}, "invalid_request"},
		{url.Values{"changes_since": {"beginning"}}, "invalid_argument"},
		{url.Values{"changes_since": {"2026-01-01"}, "connection_id": {"cin_work"}}, "invalid_cursor"},
		{url.Values{"changes_since": {"beginning"}, "connection_id": {"cin_work"}, "order": {"asc"}}, "invalid_request"},
	} {
		c.expectError("/v1/streams/messages/records", tc.q, map[string]int{"invalid_argument": 400}[tc.code]|400, tc.code)
	}
	c.expectError("/v1/streams/nope/records", nil, 401, "context.stream_not_allowed")
	if n := len(rs.RequestsTo("/v1/streams/messages/records")); n < 10 {
		t.Errorf("request log has %d record calls", n)
	}
}

func TestOwnerFiltersAndExpand(t *testing.T) {
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	owner.expectError("/v1/streams/issues/records", nil, 400, "invalid_request") // polyfill owner access names a source
	_, body, _ := owner.get("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter[state]": {"closed"}, "filter[created_at][gte]": {"2025-06-01T00:00:00Z"}, "limit": {"100"}})
	if body["data"] == nil || len(body["data"].([]any)) == 0 {
		t.Fatalf("%v", body)
	}
	for _, r := range body["data"].([]any) {
		d := r.(map[string]any)["data"].(map[string]any)
		if d["state"] != "closed" || d["created_at"].(string) < "2025-06-01" {
			t.Errorf("filter leaked %v", d)
		}
	}
	owner.expectError("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter[created_at][between]": {"1"}}, 400, "invalid_request")
	owner.expectError("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter[comments][gte]": {"3"}}, 400, "invalid_request")
	owner.expectError("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter[title][gte]": {"a"}}, 400, "invalid_request")
	owner.expectError("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter[nope]": {"a"}}, 400, "unknown_field")
	owner.expectError("/v1/streams/issues/records", url.Values{"connector_id": {"github"}, "filter": {"state=open"}}, 400, "invalid_request")
	_, body, _ = owner.get("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "expand": {"attachments"}, "expand_limit[attachments]": {"5"}, "filter[label]": {"inbox"}})
	found := false
	for _, r := range body["data"].([]any) {
		if ex, ok := r.(map[string]any)["expanded"].(map[string]any); ok && ex["attachments"] != nil {
			found = true
		}
	}
	if !found {
		t.Errorf("expand: %v", body)
	}
	owner.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "expand": {"labels"}}, 400, "invalid_expand")
	owner.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "expand": {"attachments"}, "expand_limit[attachments]": {"51"}}, 400, "invalid_expand")
	owner.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "expand_limit[attachments]": {"3"}}, 400, "invalid_expand")
	owner.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_slack"}, "expand": {"attachments"}}, 400, "invalid_expand")
}

func TestChangesFeed(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).ClientToken)
	q := url.Values{"changes_since": {"beginning"}, "limit": {"30"}}
	var ids []string
	horizon := ""
	for page := 0; ; page++ {
		status, body, _ := c.get("/v1/streams/issues/records", q)
		if status != 200 || page > 5 {
			t.Fatalf("page %d: %d %v", page, status, body)
		}
		for _, r := range body["data"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		if h, _ := body["next_changes_since"].(string); h == "" || (horizon != "" && h != horizon) {
			t.Fatalf("every page carries the first page's horizon: %q then %q", horizon, h)
		} else {
			horizon = h
		}
		if body["has_more"] != true {
			break
		}
		// Quirk copied from the implementation: links.next sets both cursor and changes_since.
		if next := body["links"].(map[string]any)["next"].(string); !strings.Contains(next, "cursor=") || !strings.Contains(next, "changes_since=") {
			t.Errorf("links.next %q", next)
		}
		q = url.Values{"cursor": {body["next_cursor"].(string)}, "limit": {"30"}}
	}
	if len(ids) != 80 {
		t.Fatalf("beginning listed %d issues, want 80", len(ids))
	}
	_, body, _ := c.get("/v1/streams/issues/records", url.Values{"changes_since": {horizon}})
	if len(body["data"].([]any)) != 0 {
		t.Errorf("no changes expected yet: %v", body["data"])
	}
	rs.Update(func(f *Fixture) {
		s := f.StreamsNamed("issues")[0]
		s.Records[0].Data = map[string]any{"id": "i001", "title": "Issue 1: reopened", "state": "open", "comments": 9, "created_at": "2024-01-01T00:00:00Z"}
		s.Records = s.Records[:len(s.Records)-1] // delete i080
	})
	_, body, _ = c.get("/v1/streams/issues/records", url.Values{"changes_since": {horizon}})
	data := body["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("changes after the update: %v", data)
	}
	if got := data[0].(map[string]any); got["id"] != "i001" || got["data"].(map[string]any)["title"] != "Issue 1: reopened" {
		t.Errorf("changed record %v", got)
	}
	if tomb := data[1].(map[string]any); tomb["id"] != "i080" || tomb["deleted"] != true || tomb["deleted_at"] == nil || tomb["data"] != nil {
		t.Errorf("tombstone %v", tomb)
	}
	_, body, _ = c.get("/v1/streams/issues/records", url.Values{"changes_since": {horizon}, "fields": {"id", "title"}})
	if tomb := body["data"].([]any)[1].(map[string]any); len(tomb) != 1 || tomb["id"] != "i080" {
		t.Errorf("fields cut a tombstone to its matching top-level keys: %v", tomb)
	}
	c.expectError("/v1/streams/issues/records", url.Values{"changes_since": {horizon}, "sort": {"created_at"}}, 400, "invalid_request")
	c.expectError("/v1/streams/issues/records", url.Values{"changes_since": {horizon}, "window": {"exact"}}, 400, "invalid_request")
	rs.ExpireChanges()
	c.expectError("/v1/streams/issues/records", url.Values{"changes_since": {horizon}}, 410, "cursor_expired")
	if _, body, _ := c.get("/v1/streams/issues/records", url.Values{"changes_since": {"beginning"}, "limit": {"100"}}); len(body["data"].([]any)) != 79 {
		t.Errorf("beginning after expiry lists the live records: %d", len(body["data"].([]any)))
	}
}

// When a request has several faults, the first in the implementation's
// order wins (docs/RS-CONTRACT.md §6.1).
func TestRecordsErrorOrder(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	for _, tc := range []struct {
		name   string
		q      url.Values
		status int
		code   string
	}{
		{"client filter before unknown param", url.Values{"filter[label]": {"x"}, "bogus": {"1"}}, 400, "invalid_request"},
		{"unknown field before unknown param", url.Values{"fields": {"nope"}, "bogus": {"1"}}, 400, "unknown_field"},
		{"fan-in changes before unknown param", url.Values{"changes_since": {"beginning"}, "bogus": {"1"}}, 400, "invalid_argument"},
		{"unknown param before bad count", url.Values{"bogus": {"1"}, "count": {"maybe"}}, 400, "invalid_request"},
		{"bad window", url.Values{"window": {"all"}, "connection_id": {"cin_work"}}, 400, "invalid_request"},
		{"bad sort before ungranted field", url.Values{"sort": {"subject"}, "fields": {"subject"}, "connection_id": {"cin_work"}}, 400, "invalid_sort"},
		{"malformed cursor", url.Values{"cursor": {"e30="}, "connection_id": {"cin_work"}}, 400, "invalid_cursor"},
	} {
		t.Run(tc.name, func(t *testing.T) { c.expectError("/v1/streams/messages/records", tc.q, tc.status, tc.code) })
	}
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	owner.expectError("/v1/streams/messages/records", url.Values{"fields": {"nope"}, "connection_id": {"cin_nope"}}, 400, "unknown_field")
	owner.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_nope"}}, 404, "connection_not_found")
	_, body, _ := c.get("/v1/streams/issues/records", url.Values{"window": {"exact"}, "limit": {"1"}})
	w := body["meta"].(map[string]any)["window"].(map[string]any)
	if w["total"] != float64(80) || w["earliest_at"] != "2024-01-01T00:00:00Z" || w["latest_at"] == nil {
		t.Errorf("window=exact: %v", w)
	}
}

func TestOwnerPolyfillScoping(t *testing.T) {
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	e := owner.expectError("/v1/streams/messages/records", nil, 400, "invalid_request")
	if e["param"] != "connector_id" {
		t.Errorf("param %v", e["param"])
	}
	_, body, _ := owner.get("/v1/streams/messages/records", url.Values{"connector_id": {"slack"}, "limit": {"100"}})
	for _, r := range body["data"].([]any) {
		if r.(map[string]any)["connection_id"] != "cin_slack" {
			t.Errorf("connector_id=slack leaked %v", r)
		}
	}
	_, body, _ = owner.get("/v1/streams", url.Values{"connector_id": {"gmail"}})
	for _, s := range body["data"].([]any) {
		if sm := s.(map[string]any); sm["connector_id"] != "gmail" || sm["source"] == nil {
			t.Errorf("owner stream entry %v", sm)
		}
	}
	_, body, _ = owner.get("/v1/search", url.Values{"q": {"budget"}, "streams": {"issues"}, "filter[state]": {"closed"}})
	for _, h := range body["data"].([]any) {
		hm := h.(map[string]any)
		if !strings.HasSuffix(hm["record_url"].(string), "?connector_id=github") {
			t.Errorf("owner record_url %v", hm["record_url"])
		}
	}
	if len(body["data"].([]any)) == 0 {
		t.Error("owner filtered search found nothing")
	}
	owner.expectError("/v1/search", url.Values{"q": {"budget"}, "filter[state]": {"open"}}, 400, "invalid_request")
	owner.expectError("/v1/search", url.Values{"q": {"budget"}, "streams": {"issues"}, "filter[state][between]": {"1"}}, 400, "invalid_request")
}

func TestSemanticAndHybridApproximation(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/search/semantic", url.Values{"q": {"budget numbers review"}, "limit": {"5"}})
	hits := body["data"].([]any)
	if len(hits) != 5 || body["next_cursor"] == nil || !strings.HasPrefix(body["next_cursor"].(string), "sem1.") {
		t.Fatalf("semantic page: %v", body)
	}
	if body["meta"].(map[string]any)["approximation"] == nil {
		t.Error("the semantic approximation must say it is one")
	}
	last := -1.0
	for _, h := range hits {
		hm := h.(map[string]any)
		sc := hm["score"].(map[string]any)
		if hm["retrieval_mode"] != "semantic" || sc["kind"] != "semantic_distance" || hm["evidence_excerpts"] != nil || sc["value"].(float64) < last && len(hits) == 1 {
			t.Errorf("semantic hit %v", hm)
		}
		if s := hm["snippet"].(map[string]any)["text"].(string); strings.Contains(s, "<mark>") {
			t.Errorf("semantic snippets are unhighlighted: %q", s)
		}
	}
	_, page2, _ := c.get("/v1/search/semantic", url.Values{"q": {"budget numbers review"}, "limit": {"5"}, "cursor": {body["next_cursor"].(string)}})
	if len(page2["data"].([]any)) == 0 {
		t.Error("semantic page 2 empty")
	}
	_, lex, _ := c.get("/v1/search", url.Values{"q": {"budget"}, "limit": {"1"}})
	c.expectError("/v1/search/semantic", url.Values{"q": {"budget"}, "cursor": {lex["next_cursor"].(string)}}, 400, "invalid_cursor")
	c.expectError("/v1/search", url.Values{"q": {"budget numbers review"}, "cursor": {body["next_cursor"].(string)}}, 400, "invalid_cursor")
	c.expectError("/v1/search/semantic", url.Values{"q": {"budget"}, "embedding": {"1,2"}}, 400, "invalid_request")
	_, body, _ = c.get("/v1/search/hybrid", url.Values{"q": {"budget"}, "limit": {"4"}})
	for _, h := range body["data"].([]any) {
		hm := h.(map[string]any)
		if hm["retrieval_mode"] != "hybrid" || hm["score"] != nil || len(hm["retrieval_sources"].([]any)) == 0 || hm["scores"] == nil {
			t.Errorf("hybrid hit %v", hm)
		}
	}
	if body["next_cursor"] != nil || body["has_more"] != true {
		t.Errorf("hybrid has_more without a cursor: %v %v", body["has_more"], body["next_cursor"])
	}
	c.expectError("/v1/search/hybrid", url.Values{"q": {"budget"}, "cursor": {"x"}}, 400, "invalid_request")
	_, meta, _ := (&client{t: t, http: c.http}).get("/.well-known/oauth-protected-resource", nil)
	caps := meta["capabilities"].(map[string]any)
	if caps["semantic_retrieval"] == nil || caps["hybrid_retrieval"].(map[string]any)["cursor_supported"] != false {
		t.Errorf("retrieval capabilities %v", caps)
	}
}

func TestDetailFieldWindowAndBlobs(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).ClientToken)
	e := c.expectError("/v1/streams/messages/records/"+SharedRecordID, nil, 409, "ambiguous_connection")
	if e["retry_with"] != "connection_id" || len(e["available_connections"].([]any)) != 2 {
		t.Errorf("shared id: %v", e)
	}
	_, body, _ := c.get("/v1/streams/messages/records/m001", url.Values{"connection_id": {"cin_work"}, "fields": {"subject"}})
	if body["connector_key"] != "gmail" || body["record_json_bytes"] == nil || len(body["data"].(map[string]any)) != 1 {
		t.Errorf("detail: %v", body)
	}
	c.expectError("/v1/streams/messages/records/zzz", url.Values{"connection_id": {"cin_work"}}, 404, "not_found")
	path := "/v1/streams/messages/records/" + LongBodyRecordID + "/field-window"
	_, body, _ = c.get(path, url.Values{"field": {"body"}, "limit_chars": {"1000"}, "offset_chars": {"1000"}})
	w := body["window"].(map[string]any)
	if w["start_chars"] != float64(1000) || w["end_chars"] != float64(2000) || w["complete"] != false || w["next_offset_chars"] != float64(2000) || w["previous_offset_chars"] != float64(0) || w["total_chars"].(float64) < 60000 {
		t.Errorf("window %v", w)
	}
	_, body, _ = c.get(path, url.Values{"field": {"body"}})
	if body["window"].(map[string]any)["limit_chars"] != float64(4096) {
		t.Errorf("default limit %v", body["window"])
	}
	_, body, _ = c.get(path, url.Values{"field": {"body"}, "limit_chars": {"99999"}})
	if w := body["meta"].(map[string]any)["warnings"].([]any); body["window"].(map[string]any)["limit_chars"] != float64(16384) || len(w) != 1 {
		t.Errorf("clamp %v", body["meta"])
	}
	_, body, _ = c.get(path, url.Values{"field": {"body"}, "q": {LongBodyPhrase}, "before_chars": {"20"}, "after_chars": {"20"}})
	w = body["window"].(map[string]any)
	if !strings.Contains(w["text"].(string), LongBodyPhrase) || w["match_end_chars"].(float64)-w["match_start_chars"].(float64) != float64(len(LongBodyPhrase)) {
		t.Errorf("q window %v", w)
	}
	_, body, _ = c.get("/v1/streams/messages/records/"+ShortBodyRecordID+"/field-window", url.Values{"field": {"body"}, "connection_id": {"cin_work"}})
	if body["window"].(map[string]any)["complete"] != true {
		t.Errorf("short body window %v", body["window"])
	}
	for _, tc := range []struct {
		q      url.Values
		status int
		code   string
	}{
		{url.Values{"field": {"size_bytes"}}, 422, "field_not_text"},
		{url.Values{"field": {"headers"}}, 422, "field_not_text"},
		{url.Values{"field": {"missing"}}, 403, "field_not_granted"},
		{url.Values{}, 400, "invalid_field_path"},
		{url.Values{"field": {"body", "subject"}}, 400, "invalid_field_path"},
		{url.Values{"field": {"body"}, "offset_chars": {"x"}}, 400, "invalid_window"},
		{url.Values{"field": {"body"}, "offset_chars": {"-1"}}, 400, "invalid_window"},
		{url.Values{"field": {"body"}, "q": {"x"}, "offset_chars": {"3"}}, 400, "invalid_window"},
		{url.Values{"field": {"body"}, "before_chars": {"3"}}, 400, "invalid_window"},
		{url.Values{"field": {"body"}, "q": {"the"}, "after_chars": {"9000"}}, 400, "invalid_window"},
		{url.Values{"field": {"body"}, "q": {"zzz-not-there"}}, 404, "query_not_found"},
	} {
		c.expectError(path, tc.q, tc.status, tc.code)
	}
	c.expectError("/v1/streams/messages/records/"+NoSubjectRecordID+"/field-window", url.Values{"field": {"subject"}, "connection_id": {"cin_work"}}, 404, "field_not_found")
	c.expectError("/v1/streams/messages/records/"+SharedRecordID+"/field-window", url.Values{"field": {"body"}}, 409, "ambiguous_connection")

	resp, raw := c.do("GET", "/v1/blobs/blob_"+BlobRecordID, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(string(raw), "PNG-1-") {
		t.Errorf("blob: %d %v %.20s", resp.StatusCode, resp.Header, raw)
	}
	if resp, raw := c.do("HEAD", "/v1/blobs/blob_"+BlobRecordID, nil); resp.StatusCode != 200 || len(raw) != 0 {
		t.Errorf("HEAD blob: %d %d bytes", resp.StatusCode, len(raw))
	}
	if log := rs.Requests(); len(log) < 2 || log[len(log)-1].Method != "HEAD" || log[len(log)-2].Method != "GET" ||
		log[len(log)-1].Path != "/v1/blobs/blob_"+BlobRecordID || log[len(log)-1].Authorization != "Bearer "+c.token || log[len(log)-1].Status != 200 {
		t.Errorf("the request log must keep method, path, bearer and status: %+v", log[max(0, len(log)-2):])
	}
	c.expectError("/v1/blobs/blob_nope", nil, 404, "blob_not_found")
	// Live mutation: a second connection now references the same blob.
	rs.Update(func(f *Fixture) {
		s := f.StreamsNamed("attachments")[0]
		s.Connections = append(s.Connections, "cin_home")
		rec := s.Records[0]
		rec.ConnectionID = "cin_home"
		s.Records = append(s.Records, rec)
		f.grantAll()
	})
	c.expectError("/v1/blobs/blob_"+BlobRecordID, nil, 409, "ambiguous_connection")
	if resp, _ := c.do("GET", "/v1/blobs/blob_"+BlobRecordID, url.Values{"connection_id": {"cin_home"}}); resp.StatusCode != 200 {
		t.Errorf("scoped blob: %d", resp.StatusCode)
	}
}

func TestLiveExpandMutation(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).OwnerToken)
	caps := func() int {
		_, body, _ := c.get("/v1/schema", url.Values{"view": {"compact"}, "stream": {"messages"}, "connection_id": {"cin_work"}})
		row := body["connectors"].([]any)[0].(map[string]any)["streams"].([]any)[0].(map[string]any)
		return len(row["expand_capabilities"].([]any))
	}
	if caps() != 1 {
		t.Fatal("messages should advertise attachments")
	}
	rs.Update(func(f *Fixture) { f.StreamsNamed("messages")[0].Relationships = nil })
	if caps() != 0 {
		t.Error("the update did not reach the next call")
	}
}

func TestAggregate(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/streams/messages/aggregate", url.Values{"metric": {"count"}, "group_by": {"label"}, "limit": {"2"}, "connection_id": {"cin_work"}})
	if len(body["groups"].([]any)) != 2 || body["other_count"].(float64) <= 0 || body["time_zone"] != nil {
		t.Errorf("grouped: %v", body)
	}
	_, body, _ = c.get("/v1/streams/messages/aggregate", url.Values{"metric": {"count"}, "group_by": {"label"}})
	if _, has := body["other_count"]; has {
		t.Errorf("fan-in grouped aggregate omits other_count in the implementation: %v", body)
	}
	for gran, minBuckets := range map[string]int{"minute": 50, "hour": 50, "day": 50, "week": 50, "month": 20, "quarter": 8, "year": 3} {
		_, body, _ := c.get("/v1/streams/issues/aggregate", url.Values{"metric": {"count"}, "group_by_time": {"created_at"}, "granularity": {gran}, "limit": {"100"}, "time_zone": {"Europe/Berlin"}})
		if g, _ := body["groups"].([]any); len(g) < minBuckets || body["time_zone"] != "Europe/Berlin" {
			t.Errorf("%s: %d buckets (want >= %d), time_zone %v", gran, len(g), minBuckets, body["time_zone"])
		}
	}
	fx, _ := LoadFixture(DefaultFixture)
	wantSum, wantMin := 0.0, ""
	for _, r := range fx.StreamsNamed("issues")[0].Records {
		wantSum += float64(r.Data["comments"].(int))
		if at := r.Data["created_at"].(string); wantMin == "" || at < wantMin {
			wantMin = at
		}
	}
	_, body, _ = c.get("/v1/streams/issues/aggregate", url.Values{"metric": {"sum"}, "field": {"comments"}})
	if body["value"] != wantSum || wantSum == 0 {
		t.Errorf("sum: %v, want %v", body["value"], wantSum)
	}
	_, body, _ = c.get("/v1/streams/issues/aggregate", url.Values{"metric": {"min"}, "field": {"created_at"}})
	if body["value"] != wantMin {
		t.Errorf("min timestamp: %v, want %s", body["value"], wantMin)
	}
	_, body, _ = c.get("/v1/streams/issues/aggregate", url.Values{"metric": {"max"}, "field": {"created_at"}})
	if v, _ := body["value"].(string); !strings.HasPrefix(v, "2026") {
		t.Errorf("max timestamp: %v", body["value"])
	}
	_, body, _ = c.get("/v1/streams/messages/aggregate", url.Values{"metric": {"count_distinct"}, "field": {"from_email"}, "connection_id": {"cin_work"}})
	if body["value"].(float64) < 2 {
		t.Errorf("count_distinct %v", body["value"])
	}
	for _, q := range []url.Values{
		{},
		{"metric": {"median"}},
		{"metric": {"count"}, "field": {"label"}},
		{"metric": {"sum"}, "field": {"label"}},
		{"metric": {"sum"}, "field": {"size_bytes"}, "group_by": {"label"}},
		{"metric": {"count"}, "group_by": {"label"}, "group_by_time": {"sent_at"}, "granularity": {"day"}},
		{"metric": {"count"}, "group_by_time": {"sent_at"}},
		{"metric": {"count"}, "granularity": {"day"}},
		{"metric": {"count"}, "group_by_time": {"sent_at"}, "granularity": {"fortnight"}},
		{"metric": {"count"}, "group_by_time": {"sent_at"}, "granularity": {"day"}, "time_zone": {"Mars/Olympus"}},
		{"metric": {"count"}, "group_by": {"label"}, "limit": {"101"}},
		{"metric": {"count_distinct"}, "field": {"from_email"}},
		{"metric": {"count"}, "bogus": {"1"}},
	} {
		c.expectError("/v1/streams/messages/aggregate", q, 400, "invalid_request")
	}
	if e := c.expectError("/v1/streams/messages/aggregate", url.Values{"metric": {"count"}, "zeta": {"1"}, "alpha": {"2"}}, 400, "invalid_request"); e["message"] != "Unsupported query parameter: alpha, zeta" {
		t.Errorf("every unsupported parameter is named: %v", e["message"])
	}
	c.expectError("/v1/streams/channels/aggregate", url.Values{"metric": {"count"}}, 400, "invalid_request")
	c.expectError("/v1/streams/messages/aggregate", url.Values{"metric": {"count"}, "group_by": {"nope"}}, 400, "unknown_field")
}

// checkEvidenceDescriptor is the S051 REST parity proof: a hit's evidence
// names the field, previews the match, says it is cut, and its read
// descriptor is a working field-window read of the same record and field.
func checkEvidenceDescriptor(t *testing.T, c *client, hit map[string]any) {
	t.Helper()
	ev := hit["evidence_excerpts"].([]any)[0].(map[string]any)
	read := ev["read"].(map[string]any)
	stream, id := hit["stream"].(string), hit["record_key"].(string)
	preview, _ := ev["preview_text"].(string)
	if ev["object"] != "evidence_excerpt" || ev["field_path"] == nil || ev["provenance"] != "lexical_match" || ev["truncated"] != true ||
		!strings.Contains(preview, "<mark>") || read["object"] != "field_window_read" || read["method"] != "GET" ||
		read["route"] != "/v1/streams/"+stream+"/records/"+id+"/field-window" || read["stream"] != stream || read["record_id"] != id ||
		read["field"] != ev["field_path"] || read["connection_id"] != hit["connection_id"] {
		t.Errorf("S051 evidence descriptor: %v", ev)
		return
	}
	resp, win, _ := c.get(read["route"].(string), url.Values{"field": {read["field"].(string)}, "connection_id": {read["connection_id"].(string)}})
	w, _ := win["window"].(map[string]any)
	f, _ := win["field"].(map[string]any)
	if resp != 200 || w == nil || w["text"] == "" || f["path"] != read["field"] || win["record_id"] != id {
		t.Errorf("following the S051 read descriptor: %d %v", resp, win)
	}
}

func TestSnippetsStayBalancedOverLiteralTags(t *testing.T) {
	c, rs := newClient(t, DefaultFixture, (*RS).ClientToken)
	rs.Update(func(f *Fixture) {
		s := f.StreamsNamed("messages")[0]
		s.Records[0].Data["body"] = "zebra<mark>x and </mark> stray <MARK>unclosed zebra"
	})
	_, body, _ := c.get("/v1/search", url.Values{"q": {"zebra"}})
	hits := body["data"].([]any)
	if len(hits) == 0 {
		t.Fatal("no hit for the planted term")
	}
	for _, h := range hits {
		s := h.(map[string]any)["snippet"].(map[string]any)["text"].(string)
		if strings.Count(s, "<mark>") != 2 || strings.Count(s, "</mark>") != 2 || !strings.Contains(s, "&lt;mark&gt;") {
			t.Errorf("literal tags must be escaped, only highlights tagged: %q", s)
		}
	}
}

func TestSearch(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/search", url.Values{"q": {FanInTerm}, "limit": {"6"}})
	hits := body["data"].([]any)
	conns := map[string]bool{}
	for _, h := range hits {
		hm := h.(map[string]any)
		conns[hm["connection_id"].(string)] = true
		s := hm["snippet"].(map[string]any)["text"].(string)
		if strings.Count(s, "<mark>") == 0 || strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
			t.Errorf("snippet %q", s)
		}
		checkEvidenceDescriptor(t, c, hm)
	}
	if len(hits) != 6 || len(conns) < 3 || body["has_more"] != true || body["next_cursor"] == nil {
		t.Errorf("search: %d hits from %d connections", len(hits), len(conns))
	}
	if rec := body["meta"].(map[string]any)["recall"].(map[string]any); rec["complete"] != true || body["meta"].(map[string]any)["count_accuracy"] != "exact" {
		t.Errorf("recall %v", body["meta"])
	}
	_, page2, _ := c.get("/v1/search", url.Values{"q": {FanInTerm}, "limit": {"6"}, "cursor": {body["next_cursor"].(string)}})
	if len(page2["data"].([]any)) == 0 {
		t.Error("second page empty")
	}
	c.expectError("/v1/search", url.Values{"q": {"other"}, "cursor": {body["next_cursor"].(string)}}, 400, "invalid_cursor")
	_, body, _ = c.get("/v1/search", url.Values{"q": {MetadataTerm}})
	for _, h := range body["data"].([]any) {
		hm := h.(map[string]any)
		if hm["snippet"] != nil || hm["evidence_excerpts"] != nil || hm["matched_fields"].([]any)[0] != "label" {
			t.Errorf("metadata-only match must carry no body evidence: %v", hm)
		}
	}
	if len(body["data"].([]any)) == 0 {
		t.Error("no metadata-only match")
	}
	_, body, _ = c.get("/v1/search", url.Values{"q": {FanInTerm}, "connection_id": {"cin_slack"}})
	for _, h := range body["data"].([]any) {
		if h.(map[string]any)["connection_id"] != "cin_slack" {
			t.Errorf("connection scope leaked %v", h)
		}
	}
	_, body, _ = c.get("/v1/search", url.Values{"q": {FanInTerm}, "limit": {"500"}})
	if body["meta"].(map[string]any)["warnings"].([]any)[0].(map[string]any)["code"] != "limit_clamped" {
		t.Errorf("search clamp %v", body["meta"])
	}
	c.expectError("/v1/search", url.Values{}, 400, "invalid_request")
	c.expectError("/v1/search", url.Values{"q": {"x"}, "bogus": {"1"}}, 400, "invalid_request")
	c.expectError("/v1/search", url.Values{"q": {"x"}, "streams": {"secrets"}}, 403, "grant_stream_not_allowed")
	c.expectError("/v1/search", url.Values{"q": {"x"}, "connection_id": {"cin_nope"}}, 404, "connection_not_found")
	c.expectError("/v1/search", url.Values{"q": {"x"}, "cursor": {"!!"}}, 400, "invalid_cursor")
}

func TestStreamsAndWellKnown(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	_, body, _ := c.get("/v1/streams", nil)
	if len(body["data"].([]any)) != 6 {
		t.Errorf("one entry per (stream, connection): %d", len(body["data"].([]any)))
	}
	_, body, _ = c.get("/v1/streams/issues", nil)
	if body["name"] != "issues" || body["granted_connections"] != nil || body["freshness"] == nil {
		t.Errorf("stream detail: %v", body)
	}
	c.expectError("/v1/streams", url.Values{"connection_id": {"cin_nope"}}, 404, "connection_not_found")
	anon := &client{t: t, http: c.http}
	_, body, _ = anon.get("/.well-known/oauth-protected-resource", nil)
	if body["pdpp_core_query_base"] != "http://fixture-rs.test/v1" || body["links"] != nil {
		t.Errorf("metadata: %v", body)
	}
}

func TestScaleFixture(t *testing.T) {
	fx, err := LoadFixture("scale:4,20,30,10")
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Connectors) != 4 || len(fx.Streams) != 80 || len(fx.Streams[0].Fields) != 30 || len(fx.Streams[0].Records) != 10 {
		t.Errorf("scale shape: %d connectors, %d streams", len(fx.Connectors), len(fx.Streams))
	}
	for _, bad := range []string{"scale:0,1,2,3", "scale:1,2", "scale:1000,1000,1000,1000", "nope"} {
		if _, err := LoadFixture(bad); err == nil {
			t.Errorf("LoadFixture(%q): want an error", bad)
		}
	}
}

func TestRemainingErrors(t *testing.T) {
	owner, _ := newClient(t, DefaultFixture, (*RS).OwnerToken)
	owner.expectError("/v1/streams/nope/records", url.Values{"connector_id": {"gmail"}}, 404, "stream_not_declared")
	owner.expectError("/v1/streams/nope", nil, 404, "not_found")
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	c.expectError("/v1/streams/messages/records/m001/field-window", url.Values{"field": {"bo\x00dy"}, "connection_id": {"cin_work"}}, 400, "invalid_field_path")
	c.expectError("/v1/streams/messages/records/m001/field-window", url.Values{"field": {"body"}, "limit_chars": {"0"}, "connection_id": {"cin_work"}}, 400, "invalid_window")

	// In spec mode a client may expand, but only into granted streams.
	fx, _ := LoadFixture(DefaultFixture)
	fx.SpecClientReads = true
	var kept []GrantStream
	for _, gs := range fx.Grant.Streams {
		if gs.Name != "attachments" {
			kept = append(kept, gs)
		}
	}
	fx.Grant.Streams = kept
	rs := New(fx)
	spec := &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: rs.ClientToken()}
	spec.expectError("/v1/streams/messages/records", url.Values{"connection_id": {"cin_work"}, "expand": {"attachments"}}, 403, "insufficient_scope")
}

func TestRecordsLimitDefaultAndCap(t *testing.T) {
	fx, err := LoadFixture("scale:1,1,2,150")
	if err != nil {
		t.Fatal(err)
	}
	rs := New(fx)
	c := &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: rs.ClientToken()}
	stream := fx.Streams[0].Name
	_, body, _ := c.get("/v1/streams/"+stream+"/records", nil)
	if n := len(body["data"].([]any)); n != 25 || body["has_more"] != true {
		t.Errorf("no limit: %d records, has_more %v; want the default 25", n, body["has_more"])
	}
	_, body, _ = c.get("/v1/streams/"+stream+"/records", url.Values{"limit": {"500"}})
	w := body["meta"].(map[string]any)["warnings"].([]any)
	if n := len(body["data"].([]any)); n != 100 || len(w) != 1 {
		t.Fatalf("limit 500: %d records, warnings %v; want 100 and limit_clamped", n, w)
	}
	warn := w[0].(map[string]any)
	if d, _ := warn["detail"].(map[string]any); warn["code"] != "limit_clamped" || d["max_limit"] != 100.0 || d["requested_limit"] != 500.0 {
		t.Errorf("limit_clamped warning %v", warn)
	}
}

func TestExpandLimitCapsChildren(t *testing.T) {
	owner, rs := newClient(t, DefaultFixture, (*RS).OwnerToken)
	// m005 owns a001; give it two more children so the limit has work to do.
	rs.Update(func(f *Fixture) {
		s := f.StreamsNamed("attachments")[0]
		for _, id := range []string{"a901", "a902"} {
			rec := s.Records[0]
			rec.ID, rec.Data = id, map[string]any{"id": id, "message_id": "m005", "filename": id + ".txt", "mime_type": "text/plain"}
			s.Records = append(s.Records, rec)
		}
	})
	children := func(limit string) (int, any) {
		q := url.Values{"connection_id": {"cin_work"}, "expand": {"attachments"}, "filter[id]": {"m005"}}
		if limit != "" {
			q.Set("expand_limit[attachments]", limit)
		}
		_, body, _ := owner.get("/v1/streams/messages/records", q)
		data := body["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("filter[id]=m005: %v", body)
		}
		ex := data[0].(map[string]any)["expanded"].(map[string]any)["attachments"].(map[string]any)
		return len(ex["data"].([]any)), ex["has_more"]
	}
	if n, more := children(""); n != 3 || more != false {
		t.Errorf("default expand limit: %d children, has_more %v; want 3, false", n, more)
	}
	if n, more := children("1"); n != 1 || more != true {
		t.Errorf("expand_limit 1: %d children, has_more %v; want 1, true", n, more)
	}
}

func TestSeedIsDeterministic(t *testing.T) {
	encode := func(name string, seed uint64) string {
		fx, err := LoadFixtureSeed(name, seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(fx)
		return string(b)
	}
	for _, name := range []string{DefaultFixture, "scale:2,3,4,5"} {
		first, again := encode(name, 7), encode(name, 7) // two separate builds
		if first != again {
			t.Errorf("%s: the same seed gave different data", name)
		}
		if first == encode(name, 8) {
			t.Errorf("%s: another seed gave the same data", name)
		}
	}
}

func TestNarrowGrantRefusesUngrantedFields(t *testing.T) {
	fx, _ := LoadFixture(DefaultFixture)
	fx.SpecClientReads = true // clients may filter, so the filter path is reachable
	for i := range fx.Grant.Streams {
		if fx.Grant.Streams[i].Name == "messages" {
			fx.Grant.Streams[i].Fields = []string{"id", "subject", "sent_at"}
		}
	}
	rs := New(fx)
	c := &client{t: t, http: &http.Client{Transport: rs.Transport()}, token: rs.ClientToken()}
	scoped := func(q url.Values) url.Values { q.Set("connection_id", "cin_work"); return q }
	for name, tc := range map[string]struct {
		path, param string
		q           url.Values
	}{
		"projection":   {"/v1/streams/messages/records", "fields", url.Values{"fields": {"subject,label"}}},
		"filter":       {"/v1/streams/messages/records", "filter", url.Values{"filter[label]": {"inbox"}}},
		"aggregate":    {"/v1/streams/messages/aggregate", "field", url.Values{"metric": {"count"}, "group_by": {"label"}}},
		"field window": {"/v1/streams/messages/records/m001/field-window", "field", url.Values{"field": {"body"}}},
	} {
		e := c.expectError(tc.path, scoped(tc.q), 403, "field_not_granted")
		if e["param"] != tc.param {
			t.Errorf("%s: param %v, want %s", name, e["param"], tc.param)
		}
	}
	if status, _, _ := c.get("/v1/streams/messages/records", scoped(url.Values{"fields": {"subject"}})); status != 200 {
		t.Errorf("a granted projection: %d", status)
	}
}
