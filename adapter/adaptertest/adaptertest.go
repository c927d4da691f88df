// Package adaptertest serves the reference adapter over real Streamable HTTP
// in front of a loopback fixture RS, for tests in other packages (as
// net/http/httptest does for handlers), and builds its command.
package adaptertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A Server is a hosted reference adapter and the fixture RS behind it.
type Server struct {
	RS     *fakers.RS
	RSURL  string // the fixture RS's base URL
	URL    string // the adapter's origin
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
	return &Server{RS: rs, RSURL: rsURL, URL: srv.URL, MCPURL: srv.URL + adapter.MCPPath}
}

var built = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pdpp-mcp-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pdpp-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/pdpp-connect/mcpcheck/cmd/pdpp-mcp").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build cmd/pdpp-mcp: %v\n%s", err, out)
	}
	return bin, nil
})

// Binary is cmd/pdpp-mcp, the shipped command, built once per test binary.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
