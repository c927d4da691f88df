// Package rsclient is the reference adapter's client for the PDPP resource
// server's /v1 read API. It attaches the caller's grant-scoped bearer, bounds
// every body it reads, and turns every non-2xx answer into a typed [*Error].
package rsclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxBody bounds a response body. A larger body is a typed rs_error, never an
// unbounded read.
const MaxBody = 8 << 20

// DefaultTimeout bounds one RS call when the caller's context has no deadline.
const DefaultTimeout = 15 * time.Second

// MaxIdleConnsPerHost is how many idle connections to the RS are kept for
// reuse. net/http keeps 2, so a hosted adapter serving many callers at once
// opened a new connection for most RS reads (one per call in two, under 64
// concurrent clients) and left tens of thousands in TIME_WAIT.
const MaxIdleConnsPerHost = 64

var pooled = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	return t
}()

// DefaultTransport is the pooled transport a Client built without an
// http.Client uses; wrappers of the RS transport start from it.
func DefaultTransport() http.RoundTripper { return pooled }

// A Client calls one RS. The zero value is not usable; use [New].
type Client struct {
	base *url.URL
	http *http.Client
}

// New returns a client for the RS at baseURL. If hc is nil a client with
// [DefaultTimeout] is used.
func New(baseURL string, hc *http.Client) (*Client, error) {
	u, err := NormalizeURL(baseURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout, Transport: pooled}
	}
	return &Client{base: u, http: hc}, nil
}

// NormalizeURL accepts http(s) URLs only, assumes https when no scheme is
// given, and strips userinfo, query, fragment and a trailing slash.
func NormalizeURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("provider URL is empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("provider URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("provider URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("provider URL %q: missing host", raw)
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// BaseURL is the normalised RS origin and path prefix.
func (c *Client) BaseURL() string { return c.base.String() }

// A Response is a successful JSON answer.
type Response struct {
	Status    int
	Body      json.RawMessage
	RequestID string
}

// An Error is any RS call that did not produce a 2xx JSON body: the RS error
// envelope's error object, or one the client synthesised.
type Error struct {
	HTTPStatus int             `json:"http_status,omitempty"`
	Type       string          `json:"type"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Param      string          `json:"param,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	Raw        json.RawMessage `json:"-"` // the RS error object verbatim, when it sent one
}

func (e *Error) Error() string {
	if e.HTTPStatus != 0 {
		return fmt.Sprintf("rs %d %s: %s", e.HTTPStatus, e.Code, e.Message)
	}
	return fmt.Sprintf("rs %s: %s", e.Code, e.Message)
}

// Get calls GET base+path?query with the bearer token.
func (c *Client) Get(ctx context.Context, token, path string, query url.Values) (*Response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	// path arrives escaped segment by segment; setting it as Path would
	// escape it a second time ("a b" reaching the RS as "a%20b").
	u := *c.base
	u.RawPath = c.base.EscapedPath() + path
	var err error
	if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
		return nil, &Error{Type: "adapter_error", Code: "invalid_request", Message: "path " + strconv.Quote(path) + " is not escaped: " + err.Error()}
	}
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Type: "adapter_error", Code: "invalid_request", Message: err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "pdpp-mcp (mcpcheck reference adapter)")
	resp, err := c.http.Do(req)
	if err != nil {
		code := "rs_unreachable"
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = "rs_timeout"
		}
		return nil, &Error{Type: "rs_error", Code: code, Message: "resource server request failed: " + scrub(err.Error(), token)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	reqID := cmp.Or(resp.Header.Get("Request-Id"), resp.Header.Get("X-Request-Id"))
	if err != nil {
		code := "rs_read_failed"
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = "rs_timeout" // a body dripped slower than the deadline
		}
		return nil, &Error{HTTPStatus: resp.StatusCode, Type: "rs_error", Code: code, Message: "reading the resource server response failed: " + scrub(err.Error(), token), RequestID: reqID}
	}
	if len(body) > MaxBody {
		return nil, &Error{HTTPStatus: resp.StatusCode, Type: "rs_error", Code: "rs_body_too_large", Message: fmt.Sprintf("resource server response exceeds %d bytes", MaxBody), RequestID: reqID}
	}
	if resp.StatusCode/100 != 2 {
		return nil, decodeError(resp.StatusCode, body, reqID)
	}
	if !json.Valid(body) || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return nil, &Error{HTTPStatus: resp.StatusCode, Type: "rs_error", Code: "rs_malformed_body", Message: "resource server answered 2xx without a JSON body", RequestID: reqID}
	}
	return &Response{Status: resp.StatusCode, Body: body, RequestID: reqID}, nil
}

// decodeError keeps the RS error object when there is one, normalises the
// OAuth/framework string shape, and synthesises rs_error otherwise.
func decodeError(status int, body []byte, reqID string) *Error {
	e := &Error{HTTPStatus: status, RequestID: reqID}
	var env struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Message          string          `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		var obj struct {
			Type, Code, Message, Param string
			RequestID                  string `json:"request_id"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &obj) == nil && (obj.Code != "" || obj.Message != ""):
			e.Type, e.Code, e.Message, e.Param, e.Raw = obj.Type, obj.Code, obj.Message, obj.Param, env.Error
			if obj.RequestID != "" {
				e.RequestID = obj.RequestID
			}
		case json.Unmarshal(env.Error, &s) == nil:
			e.Type, e.Code, e.Message = s, s, cmp.Or(env.ErrorDescription, env.Message, s)
		}
	}
	if e.Code == "" {
		e.Type, e.Code = "rs_error", fmt.Sprintf("http_%d", status)
		e.Message = cmp.Or(truncate(strings.TrimSpace(string(body)), 300), http.StatusText(status))
	}
	e.Type = cmp.Or(e.Type, "rs_error")
	return e
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// scrub removes the bearer from a message before it can reach tool output.
func scrub(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "[redacted]")
}
