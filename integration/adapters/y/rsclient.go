package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const pdppVersion = "2026-04-06"

// RSClient talks to the PDPP resource server read API with a grant-scoped bearer.
type RSClient struct {
	base *url.URL
	hc   *http.Client

	mu        sync.Mutex
	kindCache map[string]kindEntry
}

type kindEntry struct {
	kind string
	at   time.Time
}

// RSError is a normalised RS error (the RS error envelope's `error` object plus status).
type RSError struct {
	Status int
	Obj    map[string]any
}

func (e *RSError) Error() string   { return fmt.Sprintf("RS %d %s: %s", e.Status, e.Code(), e.Message()) }
func (e *RSError) Code() string    { return str(e.Obj["code"]) }
func (e *RSError) Message() string { return str(e.Obj["message"]) }

func NewRSClient(raw string) (*RSClient, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid --rs-url %q", raw)
	}
	return &RSClient{base: u, hc: &http.Client{Timeout: 30 * time.Second}, kindCache: map[string]kindEntry{}}, nil
}

// URL returns an absolute RS URL for a path and query (used for citations/continuations).
func (c *RSClient) URL(path string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimRight(c.base.Path, "/") + path
	u.RawPath = ""
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	} else {
		u.RawQuery = ""
	}
	return u.String()
}

// Get performs a GET returning the decoded JSON object.
func (c *RSClient) Get(ctx context.Context, token, path string, q url.Values) (map[string]any, *RSError) {
	body, status, ctype, err := c.raw(ctx, token, path, q)
	if err != nil {
		return nil, &RSError{Status: 502, Obj: map[string]any{"type": "rs_unreachable", "code": "rs_unreachable",
			"message": "The PDPP resource server could not be reached: " + err.Error()}}
	}
	var parsed any
	jsonErr := json.Unmarshal(body, &parsed)
	obj, _ := parsed.(map[string]any)
	if status >= 200 && status < 300 {
		if jsonErr != nil || obj == nil || !strings.Contains(ctype, "json") {
			return nil, &RSError{Status: 502, Obj: map[string]any{"type": "rs_error", "code": "rs_bad_response",
				"message": "The resource server returned a non-JSON success body."}}
		}
		return obj, nil
	}
	return nil, normaliseRSError(status, obj, body)
}

func normaliseRSError(status int, obj map[string]any, body []byte) *RSError {
	if obj != nil {
		if e, ok := obj["error"].(map[string]any); ok {
			if str(e["code"]) == "" {
				e["code"] = fmt.Sprintf("http_%d", status)
			}
			return &RSError{Status: status, Obj: e}
		}
		if s, ok := obj["error"].(string); ok {
			msg := firstNonEmpty(str(obj["error_description"]), str(obj["message"]), s)
			return &RSError{Status: status, Obj: map[string]any{"type": s, "code": s, "message": msg}}
		}
		m := map[string]any{"type": "rs_error", "code": fmt.Sprintf("http_%d", status)}
		for k, v := range obj {
			m[k] = v
		}
		if str(m["message"]) == "" {
			m["message"] = fmt.Sprintf("resource server answered HTTP %d", status)
		}
		return &RSError{Status: status, Obj: m}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 300 {
		msg = msg[:300]
	}
	if msg == "" {
		msg = fmt.Sprintf("resource server answered HTTP %d", status)
	}
	return &RSError{Status: status, Obj: map[string]any{"type": "rs_error", "code": fmt.Sprintf("http_%d", status), "message": msg}}
}

func (c *RSClient) raw(ctx context.Context, token, path string, q url.Values) ([]byte, int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL(path, q), nil)
	if err != nil {
		return nil, 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("PDPP-Version", pdppVersion)
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, 0, "", err
	}
	return b, resp.StatusCode, resp.Header.Get("Content-Type"), nil
}

// WellKnown fetches an unauthenticated well-known document (best effort).
func (c *RSClient) WellKnown(ctx context.Context, path string) map[string]any {
	b, status, _, err := c.raw(ctx, "", path, nil)
	if err != nil || status != 200 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// TokenKind asks the RS which kind of bearer this is, via a stream-scoped schema
// probe (cheap: the scoped document is empty but still names the bearer).
// Returns "client", "owner", "unknown" (RS does not say), or an RSError.
func (c *RSClient) TokenKind(ctx context.Context, token string) (string, *RSError) {
	key := hashToken(token)
	c.mu.Lock()
	if e, ok := c.kindCache[key]; ok && time.Since(e.at) < 2*time.Minute {
		c.mu.Unlock()
		return e.kind, nil
	}
	c.mu.Unlock()
	q := url.Values{"view": {"compact"}, "stream": {"__pdpp_mcp_token_probe__"}}
	doc, rerr := c.Get(ctx, token, "/v1/schema", q)
	if rerr != nil {
		return "", rerr
	}
	kind := "unknown"
	if b, ok := doc["bearer"].(map[string]any); ok {
		k, scope := str(b["token_kind"]), str(b["scope"])
		switch {
		case k == "owner" || scope == "owner":
			kind = "owner"
		case k != "":
			kind = k
		}
	}
	c.mu.Lock()
	if len(c.kindCache) > 10000 {
		c.kindCache = map[string]kindEntry{}
	}
	c.kindCache[key] = kindEntry{kind: kind, at: time.Now()}
	c.mu.Unlock()
	return kind, nil
}
