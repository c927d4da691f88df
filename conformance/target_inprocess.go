package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// inProcessDriver reaches the reference adapter in mcpcheck's own process:
// its hosted surface on a loopback server, reached over real Streamable
// HTTP, and its command line called as a function.
type inProcessDriver struct {
	spec           TargetSpec
	rs             *LocalRS
	rsURL, token   string
	mcpURL, origin string
}

var (
	_ Forker         = (*inProcessDriver)(nil)
	_ CommandRunner  = (*inProcessDriver)(nil)
	_ CLIRunner      = (*inProcessDriver)(nil)
	_ ControlledRS   = (*inProcessDriver)(nil)
	_ HostedEndpoint = (*inProcessDriver)(nil)
)

func (t *Target) openInProcess(ctx context.Context, spec TargetSpec) error {
	rs, rsURL, stop, err := startFixture(spec)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, stop)
	d := &inProcessDriver{spec: spec, rs: rs, rsURL: rsURL, token: rs.RS.ClientToken()}
	t.driver = d
	// The adapter's own RS transport, emptied before the fixture RS stops:
	// http.Server.Shutdown waits 5 s on a pooled connection it accepted but
	// has not yet read a request from.
	rsTransport := http.DefaultTransport.(*http.Transport).Clone()
	rsTransport.MaxIdleConnsPerHost = rsclient.MaxIdleConnsPerHost
	t.closers = append(t.closers, rsTransport.CloseIdleConnections)
	a, err := adapter.New(adapter.Options{ProviderURL: rsURL, Mutant: spec.Mutant,
		HTTPClient: &http.Client{Timeout: rsclient.DefaultTimeout, Transport: rsTransport}})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(a.Handler())
	t.closers = append(t.closers, srv.Close)
	d.mcpURL, d.origin = srv.URL+adapter.MCPPath, srv.URL
	t.setFixtureTokens(rs.RS)
	t.Description = "reference adapter (pdpp-mcp over loopback HTTP, fixture RS)"
	if spec.Mutant != "" {
		t.Description += ", mutant " + string(spec.Mutant)
	}
	return t.connectHTTP(ctx, d.mcpURL, d.token, nil, spec.ConnectTimeout)
}

// startFixture starts the fixture RS a reference or stdio target reads:
// the spec's data, or its named fixture.
func startFixture(spec TargetSpec) (*LocalRS, string, func(), error) {
	fx := spec.FixtureData
	if fx == nil {
		var err error
		if fx, err = LoadFixture(spec.Fixture); err != nil {
			return nil, "", nil, err
		}
	}
	rs := fakers.New(fx)
	// The hosted reference adapter checks each request's bearer with one
	// RS request; checks count, and fault, the RS requests of tool calls.
	rs.Exempt(isAuthProbe)
	url, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		return nil, "", nil, fmt.Errorf("start fixture RS: %w", err)
	}
	return &LocalRS{RS: rs, FixtureName: spec.Fixture}, url, func() { _ = stop(context.Background()) }, nil
}

func (d *inProcessDriver) Fork(ctx context.Context, fx *fakers.Fixture) (*Target, error) {
	spec := d.spec
	spec.FixtureData = fx
	return open(ctx, spec, (*Target).openInProcess)
}

func (d *inProcessDriver) FixtureRS() FixtureRS { return d.rs }
func (d *inProcessDriver) RSURL() string        { return d.rsURL }
func (d *inProcessDriver) MCPURL() string       { return d.mcpURL }
func (d *inProcessDriver) Origin() string       { return d.origin }
func (d *inProcessDriver) HasCLI() bool         { return true }

// main runs the adapter's command line with the target's mutant: after a
// subcommand (flags stop at the first operand), else first.
func (d *inProcessDriver) main(ctx context.Context, args []string, env map[string]string, stdin io.Reader, stdout, stderr io.Writer) int {
	if d.spec.Mutant != "" {
		at := 0
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			at = 1
		}
		args = append(append(append([]string(nil), args[:at]...), "--mutant", string(d.spec.Mutant)), args[at:]...)
	}
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "PDPP_CLIENT_TOKEN" {
			return d.token
		}
		return ""
	}
	return adapter.MainWithMutants(ctx, args, getenv, stdin, stdout, stderr)
}

// run runs the command line to completion, stdin closed.
func (d *inProcessDriver) run(ctx context.Context, env map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := d.main(ctx, args, env, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func (d *inProcessDriver) Help(ctx context.Context) (Help, error) {
	out, errOut, code := d.run(ctx, map[string]string{"PDPP_CLIENT_TOKEN": ""}, "--help")
	return Help{Stdout: out, Stderr: errOut, ExitCode: code}, nil
}

func (d *inProcessDriver) RunCommand(ctx context.Context, env map[string]string, args ...string) (string, string, int) {
	return d.run(ctx, env, append([]string{"--provider-url", d.rsURL}, args...)...)
}

func (d *inProcessDriver) RunCLI(ctx context.Context, args ...string) (string, string, int) {
	return d.run(ctx, nil, args...)
}

// StdioTools runs the adapter's stdio entry point over in-memory pipes and
// returns its tools/list as received.
func (d *inProcessDriver) StdioTools(ctx context.Context, env map[string]string) ([]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultConnectTimeout)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- d.main(ctx, []string{"--provider-url", d.rsURL}, env, inR, outW, io.Discard)
		outW.Close()
	}()
	tap := wiretap.New()
	tr := &mcp.IOTransport{Reader: wiretap.StdoutReader(tap, outR), Writer: wiretap.StdinWriter(tap, inW)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck", Version: Version()}, nil).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("stdio initialize: %w", err)
	}
	defer func() { cs.Close(); inW.Close(); <-done }()
	return listToolsRaw(ctx, cs, tap, HandshakeLimit)
}

// isAuthProbe is the hosted reference adapter's per-request bearer check:
// a compact schema of a stream no grant holds.
func isAuthProbe(path string, q url.Values) bool {
	return path == "/v1/schema" && len(q) == 2 && q.Get("view") == "compact" && q.Get("stream") == adapter.AuthProbeStream && len(q["stream"]) == 1
}
