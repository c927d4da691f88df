package rsclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestErrorsAreTyped(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		status            int
		code              string
	}{
		{"envelope", "application/json", `{"error":{"type":"invalid_request_error","code":"unknown_field","message":"Unknown field: x","param":"fields"}}`, 400, "unknown_field"},
		{"oauth string", "application/json", `{"error":"invalid_token","error_description":"expired"}`, 401, "invalid_token"},
		{"framework 404", "application/json", `{"message":"Route GET:/v1/x not found","error":"Not Found","statusCode":404}`, 404, "Not Found"},
		{"plain text", "text/plain", "upstream exploded", 502, "http_502"},
		{"empty", "text/plain", "", 503, "http_503"},
		{"2xx not JSON", "text/html", "<html>", 200, "rs_malformed_body"},
		{"2xx truncated JSON", "application/json", `{"object":"list","data":[`, 200, "rs_malformed_body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, _ := New(srv.URL, nil)
			_, err := c.Get(context.Background(), "tok", "/v1/schema", nil)
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code {
				t.Fatalf("err %v, want code %s", err, tc.code)
			}
		})
	}
}

func TestBodyLimitAndTimeout(t *testing.T) {
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`"` + strings.Repeat("x", MaxBody) + `"`))
	}))
	defer big.Close()
	c, _ := New(big.URL, nil)
	if _, err := c.Get(context.Background(), "tok", "/v1/schema", nil); err == nil || !strings.Contains(err.Error(), "rs_body_too_large") {
		t.Errorf("big body: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	c, _ = New(slow.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Get(ctx, "tok", "/v1/schema", nil); err == nil || !strings.Contains(err.Error(), "rs_timeout") || time.Since(start) > 2*time.Second {
		t.Errorf("slow RS: %v after %s", err, time.Since(start))
	}
}

func TestTokenNeverInErrors(t *testing.T) {
	c, _ := New("http://127.0.0.1:1", nil)
	_, err := c.Get(context.Background(), "secret-token-123", "/v1/schema", nil)
	if err == nil || strings.Contains(err.Error(), "secret-token-123") {
		t.Errorf("err %v", err)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"rs.example":                          "https://rs.example",
		"http://u:p@127.0.0.1:8080/base/?q#f": "http://127.0.0.1:8080/base",
	} {
		u, err := NormalizeURL(in)
		if err != nil || u.String() != want {
			t.Errorf("NormalizeURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		if _, err := NormalizeURL(bad); err == nil {
			t.Errorf("NormalizeURL(%q): want an error", bad)
		}
	}
}

// A body that drips slower than the deadline is a timeout, not a read error.
func TestSlowBodyIsATimeout(t *testing.T) {
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i < 100; i++ {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer drip.Close()
	c, _ := New(drip.URL, &http.Client{Timeout: 200 * time.Millisecond})
	_, err := c.Get(context.Background(), "tok", "/v1/schema", nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != "rs_timeout" {
		t.Errorf("err %v, want rs_timeout", err)
	}
}
