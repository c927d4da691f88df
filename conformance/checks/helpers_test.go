package checks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/reference"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// registry is every entry: what the runs of these tests report on. A
// registry that does not load (a scenario without its check, as a spec
// author's first step leaves it) stops the tests in TestMain with a
// message that names it, not a crash.
var registry, registryErr = LoadRegistry()

// mutant is the spec of the reference adapter with the named mutant, or
// with none for "": what these tests check unless they name another target.
func mutant(name string) conformance.TargetSpec {
	spec, err := reference.Spec(name)
	if err != nil {
		panic(err) // a test names a mutant the catalogue lacks
	}
	return spec
}

// run runs what cfg selects of every entry, against the reference adapter
// unless cfg names another target (whose RS exempts the reference's auth
// probe, as mcpcheck's own runs do).
func run(ctx context.Context, cfg conformance.Config) (*conformance.Report, error) {
	cfg.Entries = registry
	if cfg.Target.InProcess == nil {
		cfg.Target.InProcess = mutant("").InProcess
	}
	return conformance.Run(ctx, cfg)
}

// served is a reference adapter (with a mutant, or none) served over
// loopback HTTP in front of a fixture RS serving fx, as a deployment is.
type served struct {
	RS            *fakers.RS
	RSURL, MCPURL string
}

func serveReference(t *testing.T, fx *fakers.Fixture, name string) served {
	t.Helper()
	spec := mutant(name)
	spec.FixtureData = fx
	rs, rsURL, stop, err := conformance.StartFixtureRS(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	h, err := spec.InProcess.Handler(rsURL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return served{RS: rs.RS, RSURL: rsURL, MCPURL: srv.URL + spec.InProcess.MCPPath()}
}
