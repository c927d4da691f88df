// Package wiretap records JSON-RPC messages exactly as they cross the wire,
// below the MCP SDK, so footprints are measured on received bytes rather than
// on re-marshalled SDK values (which drop unknown fields and reorder keys).
package wiretap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
)

// DefaultMaxMessage bounds one recorded message or HTTP body. A target that
// sends more is cut off with [ErrTooLarge] instead of exhausting memory.
const DefaultMaxMessage = 32 << 20

// ErrTooLarge reports a message or body above the tap's limit.
var ErrTooLarge = errors.New("message exceeds the wire tap's size limit")

// An Exchange is one request and its response, as raw wire bytes.
type Exchange struct {
	Method   string
	ID       string
	Request  json.RawMessage // the whole request message
	Response json.RawMessage // the whole response message
	Result   json.RawMessage // the verbatim "result" member, if any
	Error    json.RawMessage // the verbatim "error" member, if any
	// Clipped says Request, Response, Result and Error are each only their
	// first KeptPrefix bytes (not JSON): the exchange was taken ([Tap.Take])
	// or pushed out of the tap's byte budget.
	Clipped bool
}

// size is what ex holds, in bytes.
func (ex *Exchange) size() int {
	return len(ex.Request) + len(ex.Response) + len(ex.Result) + len(ex.Error)
}

// clip cuts ex to its prefixes and returns how many bytes that freed.
func (ex *Exchange) clip() int {
	before := ex.size()
	for _, b := range []*json.RawMessage{&ex.Request, &ex.Response, &ex.Result, &ex.Error} {
		if len(*b) > KeptPrefix {
			*b = append(json.RawMessage(nil), (*b)[:KeptPrefix]...)
		}
	}
	ex.Clipped = true
	return before - ex.size()
}

// A Tap collects exchanges. It is safe for concurrent use.
type Tap struct {
	mu        sync.Mutex
	max       int
	pending   map[string]Exchange // by request id
	done      []Exchange
	garbage   []string // stdout lines that are not JSON
	stray     []string // responses whose id no request carried
	lastHTTP  int      // last HTTP status seen
	httpCodes []int
	refused   error // the first redirect refused for leaving the origin
	budget    int   // bytes the completed exchanges may hold
	kept      int   // bytes they hold
}

// DefaultBudget bounds the bytes a tap keeps of completed exchanges. The
// newest initialize and tools/list are always kept whole (the handshake
// bounds them: conformance.HandshakeLimit); past the budget, the oldest
// other exchanges are cut to their prefixes, then dropped. A tool call's
// caller takes its exchange whole as soon as it is answered ([Tap.Take]),
// so the budget holds only answers no caller has taken yet.
const DefaultBudget = 64 << 20

// KeptPrefix is how much of each part of an exchange a tap keeps once
// the exchange was taken or pushed out of the budget.
const KeptPrefix = 1 << 10

// MaxExchanges bounds how many completed exchanges a tap keeps. Older
// tool calls are dropped first; the newest initialize and tools/list are
// kept, since footprints and goldens read them after many calls. Between
// trims a tap holds up to a quarter more, so that a long load (bench over
// stdio) pays one pass per MaxExchanges/4 calls, not a shift per call.
const MaxExchanges = 4096

// New returns an empty tap with the default size limit.
func New() *Tap {
	return &Tap{max: DefaultMaxMessage, budget: DefaultBudget, pending: map[string]Exchange{}}
}

// SetBudget changes the byte budget ([DefaultBudget]).
func (t *Tap) SetBudget(n int) { t.mu.Lock(); t.budget = n; t.trim(); t.mu.Unlock() }

func pinned(method string) bool { return method == "initialize" || method == "tools/list" }

// keep appends ex; past MaxExchanges and its slack it drops the oldest
// unpinned exchanges, down to MaxExchanges. The caller holds t.mu.
func (t *Tap) keep(ex Exchange) {
	if pinned(ex.Method) { // earlier tools/list pages are copied out by their reader
		for i := range t.done {
			if t.done[i].Method == ex.Method {
				t.kept -= t.done[i].size()
				t.done = append(t.done[:i], t.done[i+1:]...)
				break
			}
		}
	}
	t.done = append(t.done, ex)
	t.kept += ex.size()
	t.trim()
	if len(t.done) <= MaxExchanges+MaxExchanges/4 {
		return
	}
	t.drop(len(t.done) - MaxExchanges)
}

// trim brings the kept bytes within the budget: it cuts the oldest
// unpinned exchanges to their prefixes, then drops them. The caller holds
// t.mu.
func (t *Tap) trim() {
	for i := 0; i < len(t.done) && t.kept > t.budget; i++ {
		if !pinned(t.done[i].Method) && !t.done[i].Clipped {
			t.kept -= t.done[i].clip()
		}
	}
	n, over := 0, t.kept-t.budget
	for i := 0; i < len(t.done) && over > 0; i++ {
		if !pinned(t.done[i].Method) {
			n++
			over -= t.done[i].size()
		}
	}
	t.drop(n)
}

// drop drops the n oldest unpinned exchanges. The caller holds t.mu.
func (t *Tap) drop(n int) {
	if n <= 0 {
		return
	}
	kept := t.done[:0]
	for _, e := range t.done {
		if n > 0 && !pinned(e.Method) {
			n--
			t.kept -= e.size()
			continue
		}
		kept = append(kept, e)
	}
	clear(t.done[len(kept):])
	t.done = kept
}

// Find returns the newest completed exchange whose request contains marker,
// so concurrent callers can each find their own call.
func (t *Tap) Find(marker string) (Exchange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := []byte(marker)
	for i := len(t.done) - 1; i >= 0; i-- {
		if bytes.Contains(t.done[i].Request, m) {
			return t.done[i], true
		}
	}
	return Exchange{}, false
}

// Take returns the newest completed exchange whose request contains
// marker, as Find does, and from then on keeps only its prefixes: the
// caller has it. ok is false when the tap no longer holds it whole.
func (t *Tap) Take(marker string) (Exchange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := []byte(marker)
	for i := len(t.done) - 1; i >= 0; i-- {
		if bytes.Contains(t.done[i].Request, m) {
			ex := t.done[i]
			if ex.Clipped {
				return Exchange{}, false
			}
			if !pinned(ex.Method) {
				t.kept -= t.done[i].clip()
			}
			return ex, true
		}
	}
	return Exchange{}, false
}

// Kept is how many bytes the completed exchanges hold.
func (t *Tap) Kept() int { t.mu.Lock(); defer t.mu.Unlock(); return t.kept }

// SetMaxMessage changes the size limit.
func (t *Tap) SetMaxMessage(n int) { t.mu.Lock(); t.max = n; t.mu.Unlock() }

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Outgoing records one client-to-server message (or batch).
func (t *Tap) Outgoing(msg []byte) {
	for _, m := range splitBatch(msg) {
		var e envelope
		if json.Unmarshal(m, &e) != nil || e.Method == "" || len(e.ID) == 0 {
			continue // notifications and responses to server requests are not tracked
		}
		t.mu.Lock()
		t.pending[string(e.ID)] = Exchange{Method: e.Method, ID: string(e.ID), Request: clone(m)}
		t.mu.Unlock()
	}
}

// Incoming records one server-to-client message (or batch).
func (t *Tap) Incoming(msg []byte) {
	for _, m := range splitBatch(msg) {
		var e envelope
		if json.Unmarshal(m, &e) != nil || len(e.ID) == 0 || e.Method != "" {
			continue
		}
		t.mu.Lock()
		ex, ok := t.pending[string(e.ID)]
		switch {
		case ok:
			delete(t.pending, string(e.ID))
			// e's members are already copies of m's bytes.
			ex.Response, ex.Result, ex.Error = clone(m), nilIfEmpty(e.Result), nilIfEmpty(e.Error)
			t.keep(ex)
		case len(t.stray) < 16:
			var compact bytes.Buffer
			_ = json.Compact(&compact, m) // one line, for a one-line reason
			t.stray = append(t.stray, preview(compact.Bytes()))
		}
		t.mu.Unlock()
	}
}

// Last returns the most recent completed exchange for method.
func (t *Tap) Last(method string) (Exchange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.done) - 1; i >= 0; i-- {
		if t.done[i].Method == method {
			return t.done[i], true
		}
	}
	return Exchange{}, false
}

// Exchanges returns every completed exchange in arrival order.
func (t *Tap) Exchanges() []Exchange {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Exchange(nil), t.done...)
}

// Garbage returns stdout lines that were not JSON (stdio targets only).
func (t *Tap) Garbage() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.garbage...)
}

// Stray returns responses whose id matched no request: a target that
// answers, but not to what was asked.
func (t *Tap) Stray() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.stray...)
}

// HTTPStatuses returns every HTTP status seen, in order (HTTP targets only).
func (t *Tap) HTTPStatuses() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int(nil), t.httpCodes...)
}

func (t *Tap) limit() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.max
}

func splitBatch(msg []byte) [][]byte {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '[' {
		return [][]byte{msg}
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil {
		return nil
	}
	out := make([][]byte, len(batch))
	for i, m := range batch {
		out[i] = m
	}
	return out
}

func nilIfEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return b
}

func clone(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// HTTPClient returns a client whose transport records every JSON-RPC message
// and adds header (for example Authorization) to each request for
// endpoint's origin. It refuses a redirect to another origin, so the header
// never leaves it; [Tap.RefusedRedirect] says which. The response body is
// read in full (up to the tap's limit) before the SDK sees it, so each
// message is recorded exactly as received.
func HTTPClient(t *Tap, base http.RoundTripper, endpoint string, header http.Header) *http.Client {
	if base == nil {
		base = http.DefaultTransport
	}
	origin := ""
	if u, err := url.Parse(endpoint); err == nil {
		origin = sameorigin.Of(u)
	}
	check := func(req *http.Request, via []*http.Request) error {
		err := sameorigin.CheckRedirect(req, via)
		if err != nil {
			t.mu.Lock()
			if t.refused == nil {
				t.refused = err
			}
			t.mu.Unlock()
		}
		return err
	}
	return &http.Client{Transport: &roundTripper{tap: t, base: base, origin: origin, header: header}, CheckRedirect: check}
}

// RefusedRedirect is the first redirect refused for leaving the
// endpoint's origin (a *sameorigin.RedirectError), or nil.
func (t *Tap) RefusedRedirect() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

type roundTripper struct {
	tap    *Tap
	base   http.RoundTripper
	origin string
	header http.Header
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if sameorigin.Of(req.URL) == rt.origin { // never a bearer for another origin
		for k, vs := range rt.header {
			req.Header[k] = vs
		}
	}
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		rt.tap.Outgoing(body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	rt.tap.mu.Lock()
	rt.tap.lastHTTP = resp.StatusCode
	rt.tap.httpCodes = append(rt.tap.httpCodes, resp.StatusCode)
	if n := len(rt.tap.httpCodes); n > MaxExchanges {
		rt.tap.httpCodes = append(rt.tap.httpCodes[:0], rt.tap.httpCodes[n-MaxExchanges:]...)
	}
	rt.tap.mu.Unlock()
	if req.Method != http.MethodPost {
		return resp, nil
	}
	limit := rt.tap.limit()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s response: %w", req.URL.Redacted(), err)
	}
	if len(body) > limit {
		return nil, fmt.Errorf("%w: HTTP body over %d bytes", ErrTooLarge, limit)
	}
	if resp.StatusCode/100 == 2 {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, data := range sseData(body) {
				rt.tap.Incoming(data)
			}
		} else {
			rt.tap.Incoming(body)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// sseData returns the data payload of every event in an SSE body.
func sseData(body []byte) [][]byte {
	var (
		out [][]byte
		cur []byte
	)
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if cur != nil {
				out = append(out, cur)
				cur = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if cur != nil {
				cur = append(cur, '\n')
			}
			cur = append(cur, d...)
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// StdoutReader wraps a stdio server's stdout: each newline-delimited line is
// recorded before it is handed on. Non-JSON lines are recorded as garbage and
// still passed through, so the client reacts as a real one would.
func StdoutReader(t *Tap, r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64*1024)
		limit := t.limit()
		for {
			line, err := readLine(br, limit)
			if len(line) > 0 {
				trimmed := bytes.TrimSpace(line)
				if len(trimmed) > 0 {
					if json.Valid(trimmed) {
						t.Incoming(trimmed)
					} else {
						t.mu.Lock()
						if len(t.garbage) < 16 {
							t.garbage = append(t.garbage, preview(trimmed))
						}
						t.mu.Unlock()
					}
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, fmt.Errorf("%w: stdout line over %d bytes", ErrTooLarge, limit)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

func preview(b []byte) string {
	const n = 120
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// StdinWriter wraps a stdio server's stdin so each outgoing line is recorded.
func StdinWriter(t *Tap, w io.WriteCloser) io.WriteCloser { return &stdinWriter{tap: t, w: w} }

type stdinWriter struct {
	tap *Tap
	w   io.WriteCloser
	buf []byte
}

func (s *stdinWriter) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.tap.Outgoing(s.buf[:i])
		s.buf = s.buf[i+1:]
	}
	return s.w.Write(p)
}

func (s *stdinWriter) Close() error { return s.w.Close() }
