package bench

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// bench's own session never carries the bearer to another origin.
func TestBenchSessionKeepsTheBearerOnItsOrigin(t *testing.T) {
	rec := &hostile.Recorder{}
	other := httptest.NewServer(rec)
	defer other.Close()
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.Redirect308, RedirectTo: other.URL + "/mcp"})
	defer srv.Close()
	if _, _, err := connect(context.Background(), srv.URL+"/mcp", "bench-secret"); err == nil {
		t.Fatal("connected through a redirect to another origin")
	}
	for _, a := range rec.Authorizations() {
		if a != "" {
			t.Errorf("the other origin received Authorization %q", a)
		}
	}
}
