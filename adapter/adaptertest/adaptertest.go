// Package adaptertest serves the reference adapter over real Streamable HTTP
// in front of a loopback fixture RS, for tests in other packages (as
// net/http/httptest does for handlers).
package adaptertest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A Server is a hosted reference adapter and the fixture RS behind it.
type Server struct {
	RS     *fakers.RS
	RSURL  string // the fixture RS's base URL
	MCPURL string // the adapter's /mcp endpoint
}

// Start serves fx on loopback and the adapter (opts, with ProviderURL set
// to that RS) in front of it; both stop when the test ends.
func Start(t testing.TB, fx *fakers.Fixture, opts adapter.Options) *Server {
	t.Helper()
	rs := fakers.New(fx)
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	opts.ProviderURL = rsURL
	a, err := adapter.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return &Server{RS: rs, RSURL: rsURL, MCPURL: srv.URL + adapter.MCPPath}
}
