package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// A --url endpoint that redirects within its own origin keeps working.
func TestSameOriginRedirectKeepsWorking(t *testing.T) {
	rs, rsURL, stop, err := StartFixtureRS(TargetSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	a, err := adapter.New(adapter.Options{ProviderURL: rsURL})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", a.Handler())
	mux.Handle("/old", http.RedirectHandler(adapter.MCPPath, http.StatusPermanentRedirect))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tgt, err := Open(context.Background(), TargetSpec{URL: srv.URL + "/old", Token: rs.RS.ClientToken(), ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("open through a same-origin redirect: %v", err)
	}
	defer tgt.Close()
	if len(tgt.Tools) == 0 {
		t.Error("no tools listed")
	}
}
