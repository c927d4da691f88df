package variation

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
)

// The RS seam: a RoundTripper around the adapter's RS client. A tool
// call's middleware and the RS requests it causes share a callState
// through the request context.

// withRS is an Apply that wraps the adapter's RS transport.
func withRS(wrap func(http.RoundTripper) http.RoundTripper) func(*Seams) {
	return func(s *Seams) { s.Options(func(o *adapter.Options) { wrapRS(o, wrap) }) }
}

func wrapRS(o *adapter.Options, wrap func(http.RoundTripper) http.RoundTripper) {
	c := &http.Client{Timeout: rsclient.DefaultTimeout, Transport: rsclient.DefaultTransport()}
	if o.HTTPClient != nil {
		cp := *o.HTTPClient
		c = &cp
		if c.Transport == nil {
			c.Transport = http.DefaultTransport
		}
	}
	c.Transport = wrap(c.Transport)
	o.HTTPClient = c
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// rsPath is a request's path from /v1/ on (the RS may sit under a prefix).
func rsPath(r *http.Request) string {
	if i := strings.Index(r.URL.Path, "/v1/"); i >= 0 {
		return r.URL.Path[i:]
	}
	return r.URL.Path
}

// isAuthProbe reports whether r is the hosted adapter's bearer check.
func isAuthProbe(r *http.Request) bool {
	return rsPath(r) == "/v1/schema" && r.URL.Query().Get("stream") == adapter.AuthProbeStream
}

// onQuery rewrites the query of the RS requests match selects.
func onQuery(match func(*http.Request) bool, f func(r *http.Request, q url.Values)) func(*Seams) {
	return withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if match(r) {
				r = r.Clone(r.Context())
				q := r.URL.Query()
				f(r, q)
				r.URL.RawQuery = q.Encode()
			}
			return next.RoundTrip(r)
		})
	})
}

// onBody rewrites the successful RS answers to the requests match selects.
func onBody(match func(*http.Request) bool, f func(r *http.Request, body []byte) []byte) func(*Seams) {
	return withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err != nil || resp.StatusCode != http.StatusOK || !match(r) {
				return resp, err
			}
			return replaceBody(resp, f(r, readBody(resp))), nil
		})
	})
}

func readBody(resp *http.Response) []byte {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, rsclient.MaxBody+1))
	resp.Body.Close()
	return body
}

func replaceBody(resp *http.Response, body []byte) *http.Response {
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp
}

// path matchers
func pathIs(p string) func(*http.Request) bool {
	return func(r *http.Request) bool { return rsPath(r) == p }
}

// isRecordList matches GET /v1/streams/{stream}/records.
func isRecordList(r *http.Request) bool {
	parts := strings.Split(strings.TrimPrefix(rsPath(r), "/v1/streams/"), "/")
	return strings.HasPrefix(rsPath(r), "/v1/streams/") && len(parts) == 2 && parts[1] == "records"
}

// isRecordRead matches GET /v1/streams/{stream}/records/{id}.
func isRecordRead(r *http.Request) bool {
	parts := strings.Split(strings.TrimPrefix(rsPath(r), "/v1/streams/"), "/")
	return strings.HasPrefix(rsPath(r), "/v1/streams/") && len(parts) == 3 && parts[1] == "records"
}

// isAggregate matches GET /v1/streams/{stream}/aggregate.
func isAggregate(r *http.Request) bool {
	parts := strings.Split(strings.TrimPrefix(rsPath(r), "/v1/streams/"), "/")
	return strings.HasPrefix(rsPath(r), "/v1/streams/") && len(parts) == 2 && parts[1] == "aggregate"
}

// inTool matches the RS requests of one tool's calls.
func inTool(tool string, match func(*http.Request) bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		st := callOf(r.Context())
		return st != nil && st.tool == tool && match(r)
	}
}

// A callState is what one tool call's middleware and RS transport share.
type callState struct {
	tool string
	mu   sync.Mutex
	add  url.Values        // parameters the transport adds to the call's data reads
	seen map[string][]byte // RS answers by path, for middleware to read
	vars map[string]any    // anything else a variation carries along
	rs   int               // RS requests the call made
}

type callKey struct{}

func callOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callKey{}).(*callState)
	return st
}

// trackCalls gives every tools/call a callState.
func trackCalls() mcp.Middleware {
	return onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		if callOf(ctx) != nil {
			return next(ctx, req)
		}
		st := &callState{tool: req.Params.Name, add: url.Values{}, seen: map[string][]byte{}, vars: map[string]any{}}
		return next(context.WithValue(ctx, callKey{}, st), req)
	})
}

// trackRS records, per call, the RS requests made and the successful
// answers (by path), and adds the parameters the call's middleware put
// in add to its data reads (not to its schema lookups).
func trackRS(next http.RoundTripper) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		st := callOf(r.Context())
		if st == nil {
			return next.RoundTrip(r)
		}
		st.mu.Lock()
		st.rs++
		add := st.add
		st.mu.Unlock()
		if len(add) > 0 && rsPath(r) != "/v1/schema" {
			r = r.Clone(r.Context())
			q := r.URL.Query()
			for k, vs := range add {
				q[k] = vs
			}
			r.URL.RawQuery = q.Encode()
		}
		resp, err := next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusOK {
			return resp, err
		}
		body := readBody(resp)
		st.mu.Lock()
		st.seen[rsPath(r)] = body
		st.mu.Unlock()
		return replaceBody(resp, body), nil
	})
}

// tracked is an Apply that shares a callState between a tool call's
// middleware and its RS requests; its middleware runs inside trackCalls.
func tracked(ms ...mcp.Middleware) func(*Seams) {
	return all(withRS(trackRS), withMiddleware(append([]mcp.Middleware{trackCalls()}, ms...)...))
}

// all combines Applies.
func all(fs ...func(*Seams)) func(*Seams) {
	return func(s *Seams) {
		for _, f := range fs {
			f(s)
		}
	}
}

// tune is an Apply that sets Tuning knobs.
func tune(f func(*adapter.Tuning)) func(*Seams) {
	return func(s *Seams) { s.Options(func(o *adapter.Options) { f(&o.Tuning) }) }
}
