package fakers

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
)

type route struct {
	mounted  func(Fixture) bool // nil: always; else the route exists only when true
	pattern  string
	streamed bool // the path names a stream: the client stream gate applies
	public   bool // no bearer needed
	raw      bool // the handler writes its own body
	handle   func(*request) (int, any)
	re       *regexp.Regexp
}

// request is one call being served, with a consistent view of the data.
type request struct {
	*http.Request
	rs     *RS
	w      http.ResponseWriter
	fx     *Fixture
	q      url.Values
	token  tokenInfo
	grant  *Grant // what the bearer may read; set by authenticate
	params []string
	reqID  string
}

func (r *request) client() bool { return r.token.kind == KindClient }

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// ServeHTTP runs faults, the version check, the auth gate and the route, and
// logs the request.
func (rs *RS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rs.control(w, r) {
		return
	}
	q, _ := parseQuery(r) // an unparseable query is refused in serve, and logged without values
	rs.mu.Lock()
	exempt := rs.exempt != nil && rs.exempt(r.URL.Path, q)
	rs.mu.Unlock()
	if exempt {
		rs.serve(w, r)
		return
	}
	sr := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	defer func() { rs.logRequest(r, q, sr.status) }() // a closure: sr.status is read when the request ends
	if f := rs.takeFault(r.URL.Path); f != nil {
		if f.apply(sr, r, func(w http.ResponseWriter) { rs.serve(w, r) }) {
			return
		}
	}
	rs.serve(sr, r)
}

func (rs *RS) serve(w http.ResponseWriter, r *http.Request) {
	reqID := r.Header.Get("Request-Id")
	if reqID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		reqID = "req_" + hex.EncodeToString(b[:])
	}
	w.Header().Set("Request-Id", reqID)
	w.Header().Set("X-Request-Id", reqID)
	if v := r.Header.Get("PDPP-Version"); v != "" && v != PDPPVersion {
		writeError(w, r, reqID, errf("unsupported_version", "", "Unsupported PDPP-Version "+v))
		return
	}
	w.Header().Set("PDPP-Version", PDPPVersion)
	rs.dataMu.RLock()
	defer rs.dataMu.RUnlock()
	rt, params := rs.match(r)
	if rt == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		// The framework's own 404, not the PDPP envelope (docs/RS-CONTRACT.md §1.4).
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Route " + r.Method + ":" + r.URL.Path + " not found", "error": "Not Found", "statusCode": 404})
		return
	}
	q, qerr := parseQuery(r)
	if qerr != nil {
		writeError(w, r, reqID, qerr)
		return
	}
	req := &request{Request: r, rs: rs, w: w, fx: rs.fx, q: q, params: params, reqID: reqID}
	if !rt.public {
		if e := rs.authenticate(req, rt); e != nil {
			e.realRS = rs.fx.RealRS
			writeError(w, r, reqID, e)
			return
		}
	}
	status, body := rt.handle(req)
	if e, isErr := body.(*apiError); isErr {
		e.realRS = rs.fx.RealRS
		writeError(w, r, reqID, e)
		return
	}
	if rt.raw {
		return
	}
	if !rt.public {
		finalize(body, r)
	}
	writeJSON(w, status, body)
}

func (rs *RS) match(r *http.Request) (*route, []string) {
	for i := range rs.routes {
		if mounted := rs.routes[i].mounted; mounted != nil && !mounted(*rs.fx) {
			continue
		}
		if m := rs.routes[i].re.FindStringSubmatch(r.URL.EscapedPath()); m != nil {
			var params []string
			for _, p := range m[1:] {
				u, _ := url.PathUnescape(p)
				params = append(params, u)
			}
			return &rs.routes[i], params
		}
	}
	return nil, nil
}

// finalize adds links and meta defaults to object bodies (docs/RS-CONTRACT.md §1.3).
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
			q := r.URL.Query()
			next := false
			if c, ok := m["next_cursor"].(string); ok {
				q.Set("cursor", c)
				next = true
			}
			if c, ok := m["next_changes_since"].(string); ok && next {
				q.Set("changes_since", c) // quirk copied from the implementation (docs/RS-CONTRACT.md §1.3)
			}
			if next {
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
