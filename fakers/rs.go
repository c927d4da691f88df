package fakers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jarcoal/httpmock"
)

// PDPPVersion is the protocol version the RS speaks.
const PDPPVersion = "2026-04-06"

// MockBaseURL is the RS origin for the in-process httpmock transport.
const MockBaseURL = "http://fixture-rs.test"

// Token kinds.
const (
	KindClient = "client"
	KindOwner  = "owner"
)

type tokenInfo struct {
	kind    string
	revoked bool
}

// RS is the fixture resource server. It is safe for concurrent use.
type RS struct {
	fx     *Fixture
	tokens map[string]tokenInfo
	routes []route

	mu  sync.Mutex
	log []Request
}

// A Request is one logged RS call, appended after the response is written.
type Request struct {
	Method        string
	Path          string
	Query         url.Values
	RawQuery      string
	Authorization string
	Status        int
}

// New returns an RS serving the fixture.
func New(f *Fixture) *RS {
	base := "pdpp_" + strings.ReplaceAll(f.Name, "-", "_")
	rs := &RS{fx: f, tokens: map[string]tokenInfo{
		base + "_client":         {kind: KindClient},
		base + "_owner":          {kind: KindOwner},
		base + "_client_revoked": {kind: KindClient, revoked: true},
	}}
	rs.routes = []route{
		{pattern: `^/v1/schema$`, streamed: false, handle: rs.schema},
		{pattern: `^/v1/streams$`, streamed: false, handle: rs.streams},
		{pattern: `^/v1/streams/([^/]+)$`, streamed: true, handle: rs.streamDetail},
		{pattern: `^/v1/streams/([^/]+)/records$`, streamed: true, handle: rs.records},
		{pattern: `^/v1/streams/([^/]+)/records/([^/]+)$`, streamed: true, handle: rs.recordDetail},
		{pattern: `^/v1/streams/([^/]+)/records/([^/]+)/field-window$`, streamed: true, handle: rs.fieldWindow},
		{pattern: `^/v1/streams/([^/]+)/aggregate$`, streamed: true, handle: rs.aggregate},
		{pattern: `^/v1/search$`, streamed: false, handle: rs.search},
	}
	for i := range rs.routes {
		rs.routes[i].re = regexp.MustCompile(rs.routes[i].pattern)
	}
	return rs
}

// Fixture returns the data set being served.
func (rs *RS) Fixture() *Fixture { return rs.fx }

func (rs *RS) tokenOf(kind string, revoked bool) string {
	for t, info := range rs.tokens {
		if info.kind == kind && info.revoked == revoked {
			return t
		}
	}
	return ""
}

// ClientToken is the grant-scoped client token.
func (rs *RS) ClientToken() string { return rs.tokenOf(KindClient, false) }

// OwnerToken is the owner (self-export) token.
func (rs *RS) OwnerToken() string { return rs.tokenOf(KindOwner, false) }

// RevokedToken is a client token whose grant was revoked.
func (rs *RS) RevokedToken() string { return rs.tokenOf(KindClient, true) }

// Requests returns a copy of the request log.
func (rs *RS) Requests() []Request {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]Request(nil), rs.log...)
}

// RequestsTo returns logged requests whose path starts with prefix.
func (rs *RS) RequestsTo(prefix string) []Request {
	var out []Request
	for _, r := range rs.Requests() {
		if strings.HasPrefix(r.Path, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests clears the log.
func (rs *RS) ResetRequests() { rs.mu.Lock(); rs.log = nil; rs.mu.Unlock() }

// Transport serves every request in-process through httpmock, with no socket.
// It never activates httpmock globally, which would replace
// http.DefaultTransport for the whole process.
func (rs *RS) Transport() http.RoundTripper {
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		rs.ServeHTTP(rec, req)
		return rec.Result(), nil
	})
	return mt
}

// Start serves on a real listener (e.g. "127.0.0.1:0") and returns its URL.
func (rs *RS) Start(addr string) (string, func(context.Context) error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: rs, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv.Shutdown, nil
}

type route struct {
	pattern  string
	streamed bool // the path names a stream: the client stream gate applies
	handle   func(*request) (int, any)
	re       *regexp.Regexp
}

// request is one call being served.
type request struct {
	*http.Request
	q      url.Values
	token  tokenInfo
	params []string
}

func (r *request) client() bool { return r.token.kind == KindClient }

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// ServeHTTP runs the auth gate, routes the request and logs it.
func (rs *RS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sr := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		rs.mu.Lock()
		rs.log = append(rs.log, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RawQuery: r.URL.RawQuery,
			Authorization: r.Header.Get("Authorization"), Status: sr.status})
		rs.mu.Unlock()
	}()
	reqID := r.Header.Get("Request-Id")
	if reqID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		reqID = "req_" + hex.EncodeToString(b[:])
	}
	sr.Header().Set("Request-Id", reqID)
	sr.Header().Set("X-Request-Id", reqID)
	if v := r.Header.Get("PDPP-Version"); v != "" && v != PDPPVersion {
		writeError(sr, r, reqID, &apiError{Code: "unsupported_version", Message: "Unsupported PDPP-Version " + v})
		return
	}
	sr.Header().Set("PDPP-Version", PDPPVersion)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(sr, r, reqID, &apiError{Code: "not_found", Message: "Route " + r.Method + ":" + r.URL.Path + " not found"})
		return
	}
	var rt *route
	var params []string
	for i := range rs.routes {
		if m := rs.routes[i].re.FindStringSubmatch(r.URL.EscapedPath()); m != nil {
			rt = &rs.routes[i]
			for _, p := range m[1:] {
				u, _ := url.PathUnescape(p)
				params = append(params, u)
			}
			break
		}
	}
	if rt == nil {
		writeError(sr, r, reqID, &apiError{Code: "not_found", Message: "Route GET:" + r.URL.Path + " not found"})
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		writeError(sr, r, reqID, &apiError{Code: "authentication_error", Message: "Missing Bearer token"})
		return
	}
	info, known := rs.tokens[tok]
	switch {
	case !known:
		writeError(sr, r, reqID, &apiError{Code: "authentication_error", Message: "Invalid or expired token"})
		return
	case info.revoked:
		writeError(sr, r, reqID, &apiError{Code: "grant_revoked", Message: "Grant has been revoked"})
		return
	}
	req := &request{Request: r, q: r.URL.Query(), token: info, params: params}
	if rt.streamed && req.client() {
		// Implementation, not spec: 401 context.* at the gate (contract §15 #1, #2).
		gs := rs.grantStream(params[0])
		if gs == nil {
			writeError(sr, r, reqID, &apiError{Code: "context.stream_not_allowed", Message: "Token introspection failed closed"})
			return
		}
		if c := req.q.Get("connection_id"); c != "" && !contains(gs.InstanceIDs, c) {
			writeError(sr, r, reqID, &apiError{Code: "context.instance_mismatch", Message: "Token introspection failed closed"})
			return
		}
	}
	status, body := rt.handle(req)
	if e, isErr := body.(*apiError); isErr {
		writeError(sr, r, reqID, e)
		return
	}
	finalize(body, r)
	writeJSON(sr, status, body)
}

func (rs *RS) grantStream(name string) *GrantStream {
	for i := range rs.fx.Grant.Streams {
		if rs.fx.Grant.Streams[i].Name == name {
			return &rs.fx.Grant.Streams[i]
		}
	}
	return nil
}

// finalize adds links and meta defaults to object bodies (contract §1.3).
func finalize(body any, r *http.Request) {
	m, ok := body.(map[string]any)
	if !ok {
		return
	}
	self := r.URL.Path
	if r.URL.RawQuery != "" {
		self += "?" + r.URL.RawQuery
	}
	links := map[string]any{"self": self}
	if _, list := m["has_more"]; list {
		links["next"] = nil
		if m["has_more"] == true {
			if c, ok := m["next_cursor"].(string); ok {
				q := r.URL.Query()
				q.Set("cursor", c)
				links["next"] = r.URL.Path + "?" + q.Encode()
			}
		}
	}
	m["links"] = links
	meta, _ := m["meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	if _, ok := meta["count"]; !ok {
		meta["count"] = map[string]any{"kind": "none"}
	}
	if _, ok := meta["warnings"]; !ok {
		meta["warnings"] = []any{}
	}
	m["meta"] = meta
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
