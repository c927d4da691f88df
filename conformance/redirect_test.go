package conformance

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// A --url endpoint that redirects within its own origin keeps working.
func TestSameOriginRedirectKeepsWorking(t *testing.T) {
	fx, err := LoadFixture("")
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop(context.Background()) }()
	a, err := adapter.New(adapter.Options{ProviderURL: rsURL})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", a.Handler())
	mux.Handle("/old", http.RedirectHandler(adapter.MCPPath, http.StatusPermanentRedirect))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tgt, err := Open(context.Background(), TargetSpec{URL: srv.URL + "/old", Token: rs.ClientToken(), ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("open through a same-origin redirect: %v", err)
	}
	defer tgt.Close()
	if len(tgt.Tools) == 0 {
		t.Error("no tools listed")
	}
}

// The hosted checks' probes follow an anonymous redirect, but a probe
// with a bearer refuses one to another origin before sending anything.
func TestHostedProbesKeepBearersOnTheirOrigin(t *testing.T) {
	rec := &hostile.Recorder{}
	other := httptest.NewServer(rec)
	defer other.Close()
	srv := httptest.NewServer(&hostile.Server{Mode: hostile.Redirect307, RedirectTo: other.URL + "/mcp"})
	defer srv.Close()
	a := hostedDo(context.Background(), "POST", srv.URL+"/mcp", "Bearer owner-secret", initializeBody, nil)
	var refused *sameorigin.RedirectError
	if !errors.As(a.Err, &refused) {
		t.Errorf("a bearer probe: err %v, want a refused redirect", a.Err)
	}
	if a := hostedDo(context.Background(), "GET", srv.URL+"/connect", "", nil, nil); a.Err != nil || a.Status != http.StatusNotFound {
		t.Errorf("an anonymous probe: %d %v, want the other origin's 404", a.Status, a.Err)
	}
	if got := rec.Authorizations(); len(got) != 1 || got[0] != "" {
		t.Errorf("the other origin saw Authorization %q, want one anonymous request", got)
	}
}
