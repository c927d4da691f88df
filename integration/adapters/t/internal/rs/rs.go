// Package rs is a small client for the PDPP resource server (RS) read API
// (/v1/*). It only ever issues GET/HEAD requests with a caller-supplied
// grant-scoped bearer token; it never holds credentials of its own.
package rs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ProtocolVersion is the PDPP version header value the adapter speaks.
const ProtocolVersion = "2026-04-06"

// DefaultMaxBody bounds how many bytes of one RS response are read.
const DefaultMaxBody = 64 << 20

// Client talks to one RS base URL.
type Client struct {
	base      *url.URL
	http      *http.Client
	userAgent string
	maxBody   int64
}

// New returns a client for the RS at baseURL (e.g. "https://rs.example").
func New(baseURL string, timeout time.Duration, userAgent string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/"))
	if err != nil {
		return nil, fmt.Errorf("invalid RS URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("invalid RS URL %q: scheme must be http or https", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("invalid RS URL %q: missing host", baseURL)
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return &Client{
		base:      u,
		http:      &http.Client{Timeout: timeout},
		userAgent: userAgent,
		maxBody:   DefaultMaxBody,
	}, nil
}

// BaseURL returns the RS base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }

// AbsURL joins an RS-relative path (with optional query) onto the base URL.
func (c *Client) AbsURL(pathAndQuery string) string {
	if strings.HasPrefix(pathAndQuery, "http://") || strings.HasPrefix(pathAndQuery, "https://") {
		return pathAndQuery
	}
	return strings.TrimRight(c.base.String(), "/") + pathAndQuery
}

// Error is a typed RS (or transport) error. Its fields mirror the PDPP error
// envelope {"error":{type, code, message, param, retry_with, ...}}.
type Error struct {
	Status    int
	Type      string
	Code      string
	Message   string
	Param     string
	RetryWith string
	RequestID string
	// Extra holds every other member of the RS error object verbatim
	// (available_connections, next_step, resource_metadata, ...).
	Extra map[string]any
}

func (e *Error) Error() string {
	if e.Status > 0 {
		return fmt.Sprintf("RS %d %s: %s", e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// AsError unwraps err into *Error when possible.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Response is a raw RS response.
type Response struct {
	Status      int
	Header      http.Header
	Body        []byte
	ContentType string
	Path        string
}

// Get issues GET path?query with the bearer token. Non-2xx responses are
// returned as *Error. path must already be escaped.
func (c *Client) Get(ctx context.Context, token, path string, q url.Values) (*Response, error) {
	return c.do(ctx, http.MethodGet, token, path, q, c.maxBody)
}

// GetLimited is Get with a custom body cap. When the body exceeds the cap an
// error with code "response_too_large" is returned.
func (c *Client) GetLimited(ctx context.Context, token, path string, q url.Values, max int64) (*Response, error) {
	return c.do(ctx, http.MethodGet, token, path, q, max)
}

// GetJSON issues a GET and decodes a JSON object body into out.
func (c *Client) GetJSON(ctx context.Context, token, path string, q url.Values, out any) error {
	resp, err := c.Get(ctx, token, path, q)
	if err != nil {
		return err
	}
	if !strings.Contains(resp.ContentType, "json") {
		return &Error{Status: resp.Status, Type: "api_error", Code: "rs_unexpected_content_type",
			Message: fmt.Sprintf("RS returned %q where JSON was expected for %s", resp.ContentType, path)}
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &Error{Status: resp.Status, Type: "api_error", Code: "rs_invalid_json",
			Message: fmt.Sprintf("RS returned malformed JSON for %s: %v", path, err)}
	}
	return nil
}

// EncodeQuery renders url.Values with stable key order while keeping the
// bracket syntax (filter[x][gte]) readable; values are percent-encoded.
func EncodeQuery(q url.Values) string {
	return q.Encode()
}

func (c *Client) do(ctx context.Context, method, token, path string, q url.Values, max int64) (*Response, error) {
	full := strings.TrimRight(c.base.String(), "/") + path
	if len(q) > 0 {
		full += "?" + EncodeQuery(q)
	}
	req, err := http.NewRequestWithContext(ctx, method, full, nil)
	if err != nil {
		return nil, &Error{Type: "api_error", Code: "rs_request_invalid", Message: err.Error()}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("PDPP-Version", ProtocolVersion)
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Type: "api_error", Code: "request_cancelled", Message: "the request was cancelled or timed out before the resource server answered"}
		}
		return nil, &Error{Type: "api_error", Code: "rs_unreachable", Message: fmt.Sprintf("could not reach the PDPP resource server: %v", redactURL(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, &Error{Status: resp.StatusCode, Type: "api_error", Code: "rs_read_failed", Message: fmt.Sprintf("reading the resource server response failed: %v", err)}
	}
	if int64(len(body)) > max {
		return nil, &Error{Status: resp.StatusCode, Type: "api_error", Code: "response_too_large",
			Message: fmt.Sprintf("the resource server response for %s exceeded %d bytes", path, max)}
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, ContentType: resp.Header.Get("Content-Type"), Path: path}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, parseError(resp.StatusCode, resp.Header, body)
	}
	return out, nil
}

func redactURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func statusType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 410:
		return "gone_error"
	case 413:
		return "request_entity_too_large_error"
	case 429:
		return "rate_limit_error"
	}
	return "api_error"
}

func parseError(status int, h http.Header, body []byte) *Error {
	e := &Error{Status: status, Type: statusType(status), Code: fmt.Sprintf("http_%d", status),
		Message: http.StatusText(status), Extra: map[string]any{}}
	e.RequestID = h.Get("Request-Id")
	if e.RequestID == "" {
		e.RequestID = h.Get("X-Request-Id")
	}
	var env map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil || env == nil {
		txt := strings.TrimSpace(string(body))
		if len(txt) > 300 {
			txt = txt[:300] + "…"
		}
		if txt != "" {
			e.Message = txt
		}
		return e
	}
	switch v := env["error"].(type) {
	case map[string]any:
		for k, val := range v {
			switch k {
			case "type":
				if s, ok := val.(string); ok && s != "" {
					e.Type = s
				}
			case "code":
				if s, ok := val.(string); ok && s != "" {
					e.Code = s
				}
			case "message":
				if s, ok := val.(string); ok {
					e.Message = s
				}
			case "param":
				if s, ok := val.(string); ok {
					e.Param = s
				}
			case "retry_with":
				switch rw := val.(type) {
				case string:
					e.RetryWith = rw
				case map[string]any:
					if f, ok := rw["field"].(string); ok {
						e.RetryWith = f
					}
					e.Extra["retry_with_detail"] = rw
				}
			case "request_id":
				if s, ok := val.(string); ok && s != "" {
					e.RequestID = s
				}
			default:
				e.Extra[k] = val
			}
		}
	case string:
		// Framework / OAuth shaped error: {"error":"Not Found","message":...}
		e.Code = strings.ToLower(strings.ReplaceAll(v, " ", "_"))
		if m, ok := env["error_description"].(string); ok && m != "" {
			e.Message = m
		} else if m, ok := env["message"].(string); ok && m != "" {
			e.Message = m
		} else {
			e.Message = v
		}
		e.Extra["framework_error"] = true
	default:
		if m, ok := env["message"].(string); ok && m != "" {
			e.Message = m
		}
	}
	return e
}
