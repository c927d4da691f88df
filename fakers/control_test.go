package fakers

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func controlRS(t *testing.T) (*RS, string, func(method, path, token, body string) (int, []byte)) {
	t.Helper()
	fx, err := LoadFixture(DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := New(fx)
	tok, err := rs.EnableControl()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: rs.Transport()}
	do := func(method, path, token, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, MockBaseURL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	return rs, tok, do
}

func controlCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct{ Error ControlError }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not a control error: %s", body)
	}
	return e.Error.Code
}

func TestControlPlaneAuth(t *testing.T) {
	rs, tok, do := controlRS(t)
	if len(tok) != tokenLen || !mixedAlphanumeric(tok) || rs.tokens[tok].kind != "" {
		t.Fatalf("control token %q must not be a PDPP token", tok)
	}
	for _, bad := range []string{"", "wrong", rs.ClientToken(), rs.OwnerToken()} {
		if code, body := do("GET", "/_fixture/tokens", bad, ""); code != 401 || controlCode(t, body) != "control_unauthorized" {
			t.Errorf("token %q: %d %s", bad, code, body)
		}
	}
	if code, _ := do("GET", "/v1/schema", tok, ""); code != 401 {
		t.Errorf("/v1 with the control token: %d, want 401", code)
	}
	// Off unless enabled.
	fx, _ := LoadFixture(DefaultFixture)
	off := New(fx)
	rec := &http.Client{Transport: off.Transport()}
	resp, err := rec.Get(MockBaseURL + "/_fixture/tokens")
	if err != nil || resp.StatusCode != 404 {
		t.Errorf("disabled control plane: %v %v", err, resp)
	}
	if len(off.Requests()) != 0 {
		t.Error("a control request was logged")
	}
}

func TestControlPlaneEndpoints(t *testing.T) {
	rs, tok, do := controlRS(t)
	code, body := do("GET", "/_fixture/tokens", tok, "")
	var toks Tokens
	if code != 200 || json.Unmarshal(body, &toks) != nil || toks != rs.AllTokens() || toks.Expired == "" {
		t.Fatalf("tokens: %d %s", code, body)
	}
	for i := 0; i < 3; i++ {
		do("GET", "/v1/schema", rs.ClientToken(), "")
	}
	code, body = do("GET", "/_fixture/requests?since=1&limit=1", tok, "")
	var log struct{ Requests []Request }
	if code != 200 || json.Unmarshal(body, &log) != nil || len(log.Requests) != 1 || log.Requests[0].Seq != 2 || log.Requests[0].Path != "/v1/schema" {
		t.Fatalf("requests: %d %s", code, body)
	}
	// Replay answers as the RS did, unlogged.
	code, body = do("POST", "/_fixture/replay", tok, string(mustJSON(t, log.Requests[0])))
	var rep struct {
		Status int
		Body   string
	}
	if code != 200 || json.Unmarshal(body, &rep) != nil || rep.Status != 200 || !strings.Contains(rep.Body, `"streams"`) {
		t.Fatalf("replay: %d %.200s", code, body)
	}
	if n := len(rs.Requests()); n != 3 {
		t.Errorf("log holds %d requests after control calls, want the 3 /v1 calls", n)
	}
	if code, _ := do("POST", "/_fixture/requests/reset", tok, ""); code != 200 || len(rs.Requests()) != 0 {
		t.Errorf("reset: %d, %d left", code, len(rs.Requests()))
	}
	// Fixture round trip, then a live relation flip and a restore.
	code, body = do("GET", "/_fixture/fixture", tok, "")
	var fx Fixture
	if code != 200 || json.Unmarshal(body, &fx) != nil || fx.Name != rs.Fixture().Name {
		t.Fatalf("fixture: %d", code)
	}
	var s *Stream
	for _, st := range rs.Fixture().Streams {
		if len(st.Relationships) > 0 {
			s = st
			break
		}
	}
	if s == nil {
		t.Fatal("default fixture has no relations")
	}
	m := Mutation{Op: "set-relationships", Connector: s.Connector, Stream: s.Name}
	if code, body := do("POST", "/_fixture/mutations", tok, string(mustJSON(t, m))); code != 200 || len(s.Relationships) != 0 {
		t.Fatalf("set-relationships: %d %s", code, body)
	}
	if code, body := do("POST", "/_fixture/mutations", tok, `{"op":"inject-fault","prefix":"/v1/","fault":{"Status":503}}`); code != 200 {
		t.Fatalf("inject-fault: %d %s", code, body)
	}
	if code, _ := do("GET", "/v1/schema", rs.ClientToken(), ""); code != 503 {
		t.Errorf("fault not applied: %d", code)
	}
	// An exempt request escapes the fault and the log; others do not.
	if code, body := do("POST", "/_fixture/mutations", tok, `{"op":"exempt","path":"/v1/schema","query":{"stream":["probe"]}}`); code != 200 {
		t.Fatalf("exempt: %d %s", code, body)
	}
	rs.ResetRequests()
	if code, _ := do("GET", "/v1/schema?stream=probe", rs.ClientToken(), ""); code == 503 || len(rs.Requests()) != 0 {
		t.Errorf("exempt request: %d, %d logged", code, len(rs.Requests()))
	}
	if code, _ := do("GET", "/v1/schema?stream=probe&x=1", rs.ClientToken(), ""); code != 503 || len(rs.Requests()) != 1 {
		t.Errorf("a near miss is not exempt: %d, %d logged", code, len(rs.Requests()))
	}
	if code, body := do("POST", "/_fixture/mutations", tok, `{"op":"restore"}`); code != 200 {
		t.Fatalf("restore: %d %s", code, body)
	}
	if code, _ := do("GET", "/v1/schema", rs.ClientToken(), ""); code != 200 {
		t.Errorf("after restore: %d", code)
	}
	restored := rs.Fixture().StreamsNamed(s.Name)
	ok := false
	for _, st := range restored {
		ok = ok || (st.Connector == s.Connector && len(st.Relationships) > 0)
	}
	if !ok {
		t.Error("restore did not bring the relations back")
	}
}

func TestControlPlaneBadInput(t *testing.T) {
	_, tok, do := controlRS(t)
	for _, c := range []struct{ method, path, body, code string }{
		{"GET", "/_fixture/requests?since=x", "", "invalid_control_request"},
		{"GET", "/_fixture/requests?limit=0", "", "invalid_control_request"},
		{"POST", "/_fixture/mutations", `{"op":"nope"}`, "invalid_control_request"},
		{"POST", "/_fixture/mutations", `{"op":"set-relationships","connector":"x","stream":"y"}`, "invalid_control_request"},
		{"POST", "/_fixture/mutations", `{"op":"replace","fixture":{}}`, "invalid_control_request"},
		{"POST", "/_fixture/mutations", `not json`, "invalid_control_request"},
		{"POST", "/_fixture/mutations", `{"op":"restore","extra":1}`, "invalid_control_request"},
		{"POST", "/_fixture/replay", `{"method":"GET","path":"/_fixture/tokens"}`, "invalid_control_request"},
		{"GET", "/_fixture/mutations", "", "control_method_not_allowed"},
		{"GET", "/_fixture/nope", "", "control_not_found"},
	} {
		code, body := do(c.method, c.path, tok, c.body)
		if code/100 != 4 || controlCode(t, body) != c.code {
			t.Errorf("%s %s %s: %d %s, want %s", c.method, c.path, c.body, code, body, c.code)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A minted client token reads the data served now, as the named client
// token does, and never takes that token's place.
func TestControlMintsClientTokens(t *testing.T) {
	rs, tok, do := controlRS(t)
	if code, _ := do("GET", "/_fixture/client-tokens", tok, ""); code != 405 {
		t.Errorf("GET client-tokens: %d, want 405", code)
	}
	code, body := do("POST", "/_fixture/client-tokens", tok, "")
	var out struct{ Token string }
	if code != 200 || json.Unmarshal(body, &out) != nil || out.Token == "" {
		t.Fatalf("POST client-tokens: %d %s", code, body)
	}
	if out.Token == rs.ClientToken() || out.Token == tok {
		t.Fatalf("the minted token is another token of the RS")
	}
	c1, want := do("GET", "/v1/schema", rs.ClientToken(), "")
	c2, got := do("GET", "/v1/schema", out.Token, "")
	if c1 != 200 || c2 != 200 || string(got) != string(want) {
		t.Errorf("minted token reads %d %.120s; the client token %d %.120s", c2, got, c1, want)
	}
	for i := 0; i < 20; i++ {
		do("POST", "/_fixture/client-tokens", tok, "")
		if rs.ClientToken() == "" || rs.tokens[rs.ClientToken()].minted {
			t.Fatal("ClientToken returned a minted token")
		}
	}
}
