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
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// An InProcess is an adapter that mcpcheck runs in its own process: the
// reference adapter (package conformance/reference), so the framework never
// imports the adapter it judges. The framework serves its hosted surface on
// a loopback server, reached over real Streamable HTTP, and calls its
// command line as a function for --help, the stdio server and the CLI.
type InProcess interface {
	// Name is how reports describe the target.
	Name() string
	// Handler is the hosted surface (MCP at MCPPath, and the origin's
	// metadata and pages) for the RS at rsURL, read with rs.
	Handler(rsURL string, rs *http.Client) (http.Handler, error)
	MCPPath() string
	// Main runs the adapter's command line and returns its exit code. As a
	// --stdio command's environment does, getenv holds the fixture RS's
	// client token as PDPP_CLIENT_TOKEN.
	Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int
	// AuthProbe is the RS request the adapter makes only to check a
	// bearer, or the zero RSRequest ([TargetSpec.AuthProbe]).
	AuthProbe() RSRequest
}

// An RSRequest names an RS request by its path and exact query.
type RSRequest struct {
	Path  string
	Query url.Values
}

// Matches reports whether a request for path and q is exactly r.
func (r RSRequest) Matches(path string, q url.Values) bool {
	return r.Path != "" && path == r.Path && q.Encode() == r.Query.Encode()
}

// rsPoolSize is the in-process adapter's pool of idle RS connections:
// checks run four at a time, and each call may read the RS a few times.
const rsPoolSize = 64

// inProcessDriver reaches an InProcess adapter.
type inProcessDriver struct {
	spec           TargetSpec
	adapter        InProcess
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
	if spec.InProcess == nil {
		return &TargetError{Unreachable: true, Reason: "no target: name --url or --stdio, or give the spec an in-process adapter"}
	}
	rs, rsURL, stop, err := StartFixtureRS(spec)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, stop)
	d := &inProcessDriver{spec: spec, adapter: spec.InProcess, rs: rs, rsURL: rsURL, token: rs.RS.ClientToken()}
	t.driver = d
	// The adapter's own RS transport, emptied before the fixture RS stops:
	// http.Server.Shutdown waits 5 s on a pooled connection it accepted but
	// has not yet read a request from.
	rsTransport := http.DefaultTransport.(*http.Transport).Clone()
	rsTransport.MaxIdleConnsPerHost = rsPoolSize
	t.closers = append(t.closers, rsTransport.CloseIdleConnections)
	h, err := d.adapter.Handler(rsURL, &http.Client{Timeout: DefaultConnectTimeout, Transport: rsTransport})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(h)
	t.closers = append(t.closers, srv.Close)
	d.mcpURL, d.origin = srv.URL+d.adapter.MCPPath(), srv.URL
	t.setFixtureTokens(rs.RS)
	t.Description = d.adapter.Name()
	return t.connectHTTP(ctx, d.mcpURL, d.token, nil, spec.ConnectTimeout)
}

// StartFixtureRS starts, on loopback, the fixture RS a reference or stdio
// target of spec reads: its FixtureData, else its named Fixture, with the
// spec's auth probe exempt from the log and from faults. stop shuts it down.
func StartFixtureRS(spec TargetSpec) (rs *LocalRS, rsURL string, stop func(), err error) {
	fx := spec.FixtureData
	if fx == nil {
		var err error
		if fx, err = LoadFixture(spec.Fixture); err != nil {
			return nil, "", nil, err
		}
	}
	f := fakers.New(fx)
	// A hosted adapter may check each request's bearer with one RS
	// request; checks count, and fault, the RS requests of tool calls.
	if probe := spec.authProbe(); probe.Path != "" {
		f.Exempt(probe.Matches)
	}
	rsURL, shutdown, err := f.Start("127.0.0.1:0")
	if err != nil {
		return nil, "", nil, fmt.Errorf("start fixture RS: %w", err)
	}
	return &LocalRS{RS: f, FixtureName: spec.Fixture}, rsURL, func() { _ = shutdown(context.Background()) }, nil
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

// main runs the adapter's command line; the client token is in its
// environment unless env says otherwise.
func (d *inProcessDriver) main(ctx context.Context, args []string, env map[string]string, stdin io.Reader, stdout, stderr io.Writer) int {
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "PDPP_CLIENT_TOKEN" {
			return d.token
		}
		return ""
	}
	return d.adapter.Main(ctx, args, getenv, stdin, stdout, stderr)
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

// OpenAsOwner serves the adapter's stdio entry point over in-memory pipes
// with the fixture RS's owner bearer as its PDPP_CLIENT_TOKEN, on the same
// fixture RS (the owner bearer's requests are its own in the log).
func (d *inProcessDriver) OpenAsOwner(ctx context.Context) (*Target, error) {
	t := &Target{Kind: KindReference, Tap: wiretap.New(), redactor: d.spec.Redactor, driver: d, Description: d.adapter.Name() + " over stdio, as the owner"}
	if t.redactor == nil {
		t.redactor = NewRedactor()
	}
	t.setFixtureTokens(d.rs.RS)
	t.secret = d.rs.RS.OwnerToken()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	runCtx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- d.main(runCtx, []string{"--provider-url", d.rsURL}, map[string]string{"PDPP_CLIENT_TOKEN": t.secret}, inR, outW, io.Discard)
		outW.Close()
	}()
	t.closers = append(t.closers, func() { inW.Close(); cancel(); <-done })
	tr := &mcp.IOTransport{Reader: wiretap.StdoutReader(t.Tap, outR), Writer: wiretap.StdinWriter(t.Tap, inW)}
	if err := t.handshake(ctx, tr, d.spec.ConnectTimeout, func(bool, error) error { return nil }); err != nil {
		t.Close()
		return nil, err
	}
	t.dialect = dialect.FromToolsList(t.ToolsRaw, d.spec.Dialect)
	return t, nil
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
