package rsclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The path callers pass is already escaped segment by segment; the RS must
// see each segment decoded exactly once.
func TestEscapedPathReachesTheRSOnce(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, _ := New(srv.URL+"/base%20dir", nil)
	if _, err := c.Get(context.Background(), "tok", "/v1/streams/mess%20ages/records/a%3Fb%23c%25%2F", nil); err != nil {
		t.Fatal(err)
	}
	if want := "/base dir/v1/streams/mess ages/records/a?b#c%/"; got != want {
		t.Errorf("RS saw path %q, want %q", got, want)
	}
	if _, err := c.Get(context.Background(), "tok", "/v1/%zz", nil); err == nil {
		t.Error("an unescaped path: want a typed error")
	}
}
