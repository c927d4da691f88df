package fakers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ControlPrefix is where the control plane is mounted: the request log,
// the served data, faults and tokens, for a harness that does not run the
// RS in its own process (mcpcheck --url --rs-control).
const ControlPrefix = "/_fixture/"

// maxControlBody bounds a control request body (a scale fixture is a few MB).
const maxControlBody = 64 << 20

// EnableControl mounts the control plane under [ControlPrefix] and returns
// its bearer token, random, high-entropy and unknown to the /v1 routes. The data served
// now is what the "restore" mutation returns to.
func (rs *RS) EnableControl() (string, error) {
	tok, err := randomToken()
	if err != nil {
		return "", err
	}
	base, err := json.Marshal(rs.Fixture())
	if err != nil {
		return "", fmt.Errorf("snapshot the fixture: %w", err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.controlToken = tok
	rs.baseline = base
	return rs.controlToken, nil
}

// Tokens are the RS's bearer tokens by role, as GET /_fixture/tokens lists them.
type Tokens struct {
	Client    string `json:"client"`
	Owner     string `json:"owner"`
	Expired   string `json:"expired"`
	Revoked   string `json:"revoked"`
	Malformed string `json:"malformed"`
	Legacy    string `json:"legacy"`
	Package   string `json:"package"`
}

// AllTokens lists the RS's bearer tokens by role.
func (rs *RS) AllTokens() Tokens {
	return Tokens{Client: rs.ClientToken(), Owner: rs.OwnerToken(), Expired: rs.ExpiredToken(), Revoked: rs.RevokedToken(),
		Malformed: rs.MalformedGrantToken(), Legacy: rs.LegacyConsentToken(), Package: rs.PackageToken()}
}

// A Mutation is one named change posted to /_fixture/mutations.
type Mutation struct {
	// Op is set-relationships, replace, restore, expire-changes,
	// inject-fault, clear-faults or exempt.
	Op string `json:"op"`
	// set-relationships: the stream (of Connector) whose advertised
	// relations become Relationships; an empty list withdraws them all.
	Connector     string         `json:"connector,omitempty"`
	Stream        string         `json:"stream,omitempty"`
	Relationships []Relationship `json:"relationships,omitempty"`
	// replace: the data set to serve from now on, changed live.
	Fixture *Fixture `json:"fixture,omitempty"`
	// inject-fault: the path prefix and the fault.
	Prefix string `json:"prefix,omitempty"`
	Fault  *Fault `json:"fault,omitempty"`
	// exempt: requests for exactly this path and query are served without
	// faults and kept out of the log (see RS.Exempt); an empty path clears it.
	Path  string     `json:"path,omitempty"`
	Query url.Values `json:"query,omitempty"`
}

// A ControlError is the control plane's typed error body.
type ControlError struct {
	Code    string `json:"code"` // control_unauthorized, control_not_found, control_method_not_allowed, invalid_control_request
	Message string `json:"message"`
}

func (e *ControlError) Error() string { return e.Code + ": " + e.Message }

// control serves the control plane and reports whether r was for it.
// Control requests are never logged and never see faults.
func (rs *RS) control(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, ControlPrefix) {
		return false
	}
	rs.mu.Lock()
	want := rs.controlToken
	rs.mu.Unlock()
	fail := func(status int, code, format string, args ...any) {
		writeJSON(w, status, map[string]any{"error": &ControlError{Code: code, Message: fmt.Sprintf(format, args...)}})
	}
	if want == "" {
		fail(http.StatusNotFound, "control_not_found", "the control plane is disabled")
		return true
	}
	if got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); got != want {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fixture-control"`)
		fail(http.StatusUnauthorized, "control_unauthorized", "missing or wrong control token")
		return true
	}
	method := func(m string) bool {
		if r.Method != m {
			w.Header().Set("Allow", m)
			fail(http.StatusMethodNotAllowed, "control_method_not_allowed", "%s %s: want %s", r.Method, r.URL.Path, m)
			return false
		}
		return true
	}
	decode := func(v any) bool {
		dec := json.NewDecoder(io.LimitReader(r.Body, maxControlBody))
		dec.UseNumber() // record values keep their exact text, as the fixture serves them
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			fail(http.StatusBadRequest, "invalid_control_request", "body: %v", err)
			return false
		}
		return true
	}
	switch strings.TrimPrefix(r.URL.Path, ControlPrefix) {
	case "requests":
		if !method(http.MethodGet) {
			return true
		}
		since, limit := int64(0), DefaultLogLimit
		q := r.URL.Query()
		for name, dst := range map[string]*int64{"since": &since} {
			if v := q.Get(name); v != "" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					fail(http.StatusBadRequest, "invalid_control_request", "%s=%q: want a non-negative integer", name, v)
					return true
				}
				*dst = n
			}
		}
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > DefaultLogLimit {
				fail(http.StatusBadRequest, "invalid_control_request", "limit=%q: want 1..%d", v, DefaultLogLimit)
				return true
			}
			limit = n
		}
		out := []Request{}
		for _, req := range rs.Requests() {
			if req.Seq > since && len(out) < limit {
				out = append(out, req)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"requests": out})
	case "requests/reset":
		if method(http.MethodPost) {
			rs.ResetRequests()
			writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		}
	case "fixture":
		if method(http.MethodGet) {
			writeJSON(w, http.StatusOK, rs.Fixture())
		}
	case "fixture/baseline":
		if method(http.MethodGet) {
			rs.mu.Lock()
			base := rs.baseline
			rs.mu.Unlock()
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write(base)
		}
	case "tokens":
		if method(http.MethodGet) {
			writeJSON(w, http.StatusOK, rs.AllTokens())
		}
	case "replay":
		var req Request
		if !method(http.MethodPost) || !decode(&req) {
			return true
		}
		if req.Method == "" || !strings.HasPrefix(req.Path, "/") || strings.HasPrefix(req.Path, ControlPrefix) {
			fail(http.StatusBadRequest, "invalid_control_request", "replay: want a logged request (method, and a path outside %s)", ControlPrefix)
			return true
		}
		status, body := rs.Replay(req)
		writeJSON(w, http.StatusOK, map[string]any{"status": status, "body": string(body)})
	case "client-tokens":
		if !method(http.MethodPost) {
			return true
		}
		tok, err := rs.MintClientToken()
		if err != nil {
			fail(http.StatusInternalServerError, "invalid_control_request", "mint a token: %v", err)
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"token": tok})
	case "mutations":
		var m Mutation
		if !method(http.MethodPost) || !decode(&m) {
			return true
		}
		if err := rs.mutate(m); err != nil {
			fail(http.StatusBadRequest, "invalid_control_request", "%v", err)
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	default:
		fail(http.StatusNotFound, "control_not_found", "no control endpoint %s", r.URL.Path)
	}
	return true
}

func (rs *RS) mutate(m Mutation) error {
	switch m.Op {
	case "set-relationships":
		if m.Stream == "" || m.Connector == "" {
			return fmt.Errorf("set-relationships: want connector and stream")
		}
		found := false
		rs.Update(func(f *Fixture) {
			for _, s := range f.Streams {
				if s.Connector == m.Connector && s.Name == m.Stream {
					s.Relationships, found = m.Relationships, true
				}
			}
		})
		if !found {
			return fmt.Errorf("set-relationships: no stream %s of connector %s", m.Stream, m.Connector)
		}
	case "replace":
		if m.Fixture == nil || m.Fixture.Name == "" {
			return fmt.Errorf("replace: want a fixture with a name")
		}
		for i, s := range m.Fixture.Streams {
			if s == nil || s.Name == "" || s.Connector == "" {
				return fmt.Errorf("replace: stream %d needs a name and a connector", i)
			}
		}
		rs.Update(func(f *Fixture) { *f = *m.Fixture })
	case "restore":
		rs.mu.Lock()
		base := rs.baseline
		rs.mu.Unlock()
		dec := json.NewDecoder(bytes.NewReader(base))
		dec.UseNumber()
		var fx Fixture
		if err := dec.Decode(&fx); err != nil {
			return fmt.Errorf("restore: %v", err)
		}
		rs.Update(func(f *Fixture) { *f = fx })
		rs.ClearFaults()
		rs.ResetRequests()
	case "expire-changes":
		rs.ExpireChanges()
	case "inject-fault":
		if m.Prefix == "" || m.Fault == nil {
			return fmt.Errorf("inject-fault: want prefix and fault")
		}
		rs.InjectFault(m.Prefix, *m.Fault)
	case "clear-faults":
		rs.ClearFaults()
	case "exempt":
		if m.Path == "" {
			rs.Exempt(nil)
			break
		}
		want := m.Query.Encode()
		rs.Exempt(func(path string, q url.Values) bool { return path == m.Path && q.Encode() == want })
	default:
		return fmt.Errorf("unknown op %q (want set-relationships, replace, restore, expire-changes, inject-fault, clear-faults or exempt)", m.Op)
	}
	return nil
}
