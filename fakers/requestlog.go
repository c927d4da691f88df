package fakers

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
)

// DefaultLogLimit bounds the request log so a long load run does not grow
// it without end; the oldest entries go first.
const DefaultLogLimit = 1 << 14

// KeepRequests bounds the request log to the newest n requests; n = 0
// turns logging off (load benchmarks).
func (rs *RS) KeepRequests(n int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if n == 0 {
		n = -1
	}
	rs.logMax, rs.log = n, nil
}

// Exempt serves requests that match without faults and without logging
// them: how a harness keeps an adapter's per-request bearer check out of
// the RS calls its checks count and the faults they inject.
func (rs *RS) Exempt(match func(path string, q url.Values) bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.exempt = match
}

// A Request is one logged RS call, appended after the response is written.
type Request struct {
	Seq           int64      `json:"seq"` // 1, 2, …: the order the RS served requests in
	Method        string     `json:"method"`
	Path          string     `json:"path"`
	Query         url.Values `json:"query,omitempty"`
	RawQuery      string     `json:"raw_query,omitempty"`
	Authorization string     `json:"authorization,omitempty"`
	Status        int        `json:"status"`
}

// logRequest appends a served request to the log, within its bound.
func (rs *RS) logRequest(r *http.Request, q url.Values, status int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	limit := rs.logMax
	if limit == 0 {
		limit = DefaultLogLimit
	}
	if limit < 0 {
		return
	}
	if len(rs.log) >= limit { // drop the oldest half at once: amortised O(1)
		rs.log = append(rs.log[:0], rs.log[len(rs.log)-limit/2:]...)
	}
	rs.seq++
	rs.log = append(rs.log, Request{Seq: rs.seq, Method: r.Method, Path: r.URL.Path, Query: q, RawQuery: r.URL.RawQuery,
		Authorization: r.Header.Get("Authorization"), Status: status})
}

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

// Replay serves a logged request again, in-process, and returns its status
// and body: what the RS answered, for comparing with what an adapter passed
// on. Replays skip faults and are not logged.
func (rs *RS) Replay(r Request) (int, []byte) {
	req := httptest.NewRequest(r.Method, MockBaseURL+r.Path+"?"+r.RawQuery, nil)
	req.Header.Set("Authorization", r.Authorization)
	rec := httptest.NewRecorder()
	rs.serve(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// ResetRequests clears the log.
func (rs *RS) ResetRequests() { rs.mu.Lock(); rs.log = nil; rs.mu.Unlock() }
