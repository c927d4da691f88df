package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// ProtocolVersion is pinned so traffic and byte counts are deterministic
// (the SDK would otherwise try the draft server/discover first).
const ProtocolVersion = "2025-11-25"

// DefaultConnectTimeout bounds connecting, initialize and tools/list.
const DefaultConnectTimeout = 15 * time.Second

// A TargetKind names how mcpcheck reaches the adapter.
type TargetKind string

const (
	KindReference TargetKind = "reference" // built-in adapter over loopback HTTP
	KindURL       TargetKind = "url"       // a deployed Streamable HTTP endpoint
	KindStdio     TargetKind = "stdio"     // a local command speaking stdio
)

// A TargetSpec says which adapter to check. The zero value is the reference adapter.
type TargetSpec struct {
	URL   string // Streamable HTTP endpoint
	Token string // bearer for URL targets; never printed
	// OwnerToken, when the user supplies one for a URL target, lets the
	// checks prove an owner bearer is refused; never printed.
	OwnerToken string
	// ExpiredToken and ForeignToken, when the user supplies them for a URL
	// target, are a client token whose grant expired and one issued for
	// another resource: U13 proves both are challenged. Never printed.
	ExpiredToken, ForeignToken string
	Stdio                      string // command line; {rs_url} and {token} are replaced
	Env                        []string
	// Fixture names the fixture RS data set for reference and stdio targets.
	Fixture string
	// FixtureData, when set, is served instead of the named fixture. Checks
	// use it through [Target.Fork] for scale grants and live mutation.
	FixtureData *fakers.Fixture
	// RSControl is the control plane of the pdpp-fake-rs a URL target reads
	// from, and RSControlToken its bearer (never printed): with them the
	// URL target gets the controlled-RS and fixture capabilities.
	RSControl, RSControlToken string
	// Mutant names a variation of the reference adapter (adapter/variation:
	// a single fault, for mcpcheck's self-checks). Empty: none.
	Mutant string
	// ConnectTimeout bounds the handshake. Zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Redactor collects every token the target is lent (these, the fixture
	// RS's, the control plane's) and redacts them from what mcpcheck
	// reports. Nil means a new one; share one to redact other output too.
	Redactor *Redactor
}

// Kind reports which target the spec selects.
func (s TargetSpec) Kind() TargetKind {
	switch {
	case s.URL != "":
		return KindURL
	case s.Stdio != "":
		return KindStdio
	}
	return KindReference
}

// A TargetError is a failure to reach or use a target at all.
type TargetError struct {
	Unreachable bool   `json:"unreachable"` // else: authentication rejected
	Reason      string `json:"reason"`
}

func (e *TargetError) Error() string { return e.Reason }

// Help is what an adapter command printed for --help.
type Help struct {
	Stdout, Stderr string
	ExitCode       int
}

// A Target is an open MCP session plus what mcpcheck knows about the adapter.
type Target struct {
	Kind        TargetKind
	Description string // safe to print: never holds the token
	Session     *mcp.ClientSession
	Tap         *wiretap.Tap
	Init        *mcp.InitializeResult
	ToolsRaw    []json.RawMessage // each tool exactly as received
	Tools       []*mcp.Tool
	// RS is the fixture RS behind the adapter, when mcpcheck runs it or
	// controls it (--rs-control), and RSURL its address.
	RS    FixtureRS
	RSURL string
	// Help runs the adapter command with --help (reference and stdio).
	Help func(ctx context.Context) (Help, error)
	// StdioTools starts the adapter over stdio with extra environment and
	// lists its tools, raw (reference and stdio targets).
	StdioTools func(ctx context.Context, env map[string]string) ([]json.RawMessage, error)
	// MCPURL is the Streamable HTTP endpoint and Origin its origin, for
	// reference and URL targets: where the hosted checks probe auth,
	// metadata and the setup page.
	MCPURL, Origin string
	// OwnerToken is an owner bearer the target's RS knows, when mcpcheck
	// has one: the fixture's, or the user's for a URL target.
	OwnerToken string
	// ExpiredToken, ForeignToken and ControlPlaneToken are bearers the RS
	// refuses or that /mcp must refuse, when mcpcheck has them: the
	// fixture's, or the user's for a URL target (no control-plane one).
	ExpiredToken, ForeignToken, ControlPlaneToken string
	// Local runs the adapter's command with extra environment and extra
	// arguments, stdin closed: how a process refuses to start.
	Local func(ctx context.Context, env map[string]string, args ...string) (stdout, stderr string, code int)
	// CLI runs the implementation's command line with args and returns what
	// it printed; nil when there is none. cliOK reports, once, whether it
	// answers like the reference CLI.
	CLI   func(ctx context.Context, args ...string) (stdout, stderr string, code int)
	cliOK func() bool
	// Stderr returns the tail of what a stdio adapter wrote to stderr: its
	// log, which must never hold the bearer.
	Stderr func() string
	// Fork opens the same adapter (same command, same mutant) against a new
	// fixture RS serving fx, so a check can count RS calls, flip the schema
	// or load a scale grant without disturbing checks that run alongside.
	Fork func(ctx context.Context, fx *fakers.Fixture) (*Target, error)
	// PID is the adapter's process when mcpcheck started it (stdio), and
	// Startup the time from its start to the answered initialize.
	PID     int
	Startup time.Duration

	started time.Time
	secret  string
	closers []func()
	fixture string // the fixture name served, for forks of the same data
	// remote is the controlled RS of a URL target: one RS shared by every
	// check and fork, so checks on such a target run one at a time.
	remote *remoteRS
	memo   memo // what checks discovered about this target

	calls, failedCalls atomic.Int64 // tool calls made, and those that returned isError

	redactor    *Redactor                       // every token lent, shared with forks
	callTimeout time.Duration                   // bounds one tools/call, as the handshake is bounded
	exitState   func(wait time.Duration) string // stdio: how the command ended, "" while it runs
	downMu      sync.Mutex
	down        string // why the target stopped serving mid-run; "" while it serves
}

// callCounts are how many tool calls checks made, and how many failed.
func (t *Target) callCounts() (int, int) { return int(t.calls.Load()), int(t.failedCalls.Load()) }

// Has reports whether the target offers a capability.
func (t *Target) Has(c Capability) bool {
	switch c {
	case CapLocalCommand:
		return t.Help != nil
	case CapControlledRS:
		return t.RS != nil
	case CapFixture:
		return t.Fork != nil
	case CapCLI:
		return t.CLI != nil && (t.cliOK == nil || t.cliOK())
	case CapHTTP:
		return t.MCPURL != ""
	}
	return false
}

// Close ends the session and everything mcpcheck started for it.
func (t *Target) Close() {
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
	t.closers = nil
}

// BearerToken is the client bearer the target's session uses. Never print it.
func (t *Target) BearerToken() string {
	if t.secret == "" && t.RS != nil {
		return t.RS.ClientToken()
	}
	return t.secret
}

// Down says why the target stopped serving during the run (its command
// exited, or it stopped answering), or "" while it serves. Run reports a
// down target as unreachable; calls to it fail at once.
func (t *Target) Down() string {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	return t.down
}

func (t *Target) markDown(reason string) {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	if t.down == "" {
		t.down = reason
	}
}

// callFailed judges a call that failed below JSON-RPC and returns the
// check's one-line error. A call with no answer in time, an exited command,
// or a target that then fails a ping too, marks the target down; any other
// failure (a 100 MB result, say) concerns that call only.
func (t *Target) callFailed(ctx context.Context, step string, err error) string {
	msg := fmt.Sprintf("%s: %s", step, firstLine(t.redact(err.Error())))
	switch refused := t.Tap.RefusedRedirect(); {
	case refused != nil: // every later request would be redirected too
		msg = step + ": " + refused.Error()
		t.markDown(msg)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("%s: no answer within %s", step, t.callTimeout)
		t.markDown(msg)
	case ctx.Err() != nil: // the run was cancelled: judge nothing
	case t.exitState != nil && t.exitState(time.Second) != "":
		t.markDown(fmt.Sprintf("%s: the command exited (%s); stderr ends: %s", step, t.exitState(time.Second), lastLine(t.Stderr())))
	default:
		pctx, cancel := context.WithTimeout(context.Background(), min(t.callTimeout, 5*time.Second))
		defer cancel()
		if perr := t.Session.Ping(pctx, nil); perr != nil {
			t.markDown(msg + "; a ping then failed too")
		}
	}
	return msg
}

// redact removes every token the target was lent, in any form, from s.
func (t *Target) redact(s string) string {
	if t == nil {
		return s
	}
	return t.redactor.String(s)
}

// setFixtureTokens takes the refused bearers from the fixture RS, and has
// every token it knows redacted.
func (t *Target) setFixtureTokens(rs *fakers.RS) {
	t.OwnerToken, t.ExpiredToken = rs.OwnerToken(), rs.ExpiredToken()
	t.ForeignToken, t.ControlPlaneToken = rs.ForeignResourceToken(), rs.ControlPlaneToken()
	k := rs.AllTokens()
	t.lendTokens(k.Client, k.Owner, k.Expired, k.Revoked, k.Malformed, k.Legacy, k.Package, t.ForeignToken, t.ControlPlaneToken)
}

// Open connects to the target the spec names, performs initialize and
// tools/list, and records both on the wire.
func Open(ctx context.Context, spec TargetSpec) (*Target, error) {
	if spec.ConnectTimeout == 0 {
		spec.ConnectTimeout = DefaultConnectTimeout
	}
	if spec.Redactor == nil {
		spec.Redactor = NewRedactor()
	}
	spec.Redactor.Add(spec.Token, spec.OwnerToken, spec.ExpiredToken, spec.ForeignToken, spec.RSControlToken)
	t := &Target{Kind: spec.Kind(), Tap: wiretap.New(), fixture: spec.Fixture, redactor: spec.Redactor}
	if t.Kind != KindURL {
		t.Fork = func(ctx context.Context, fx *fakers.Fixture) (*Target, error) {
			fork := spec
			fork.FixtureData = fx
			return Open(ctx, fork)
		}
	}
	var err error
	switch t.Kind {
	case KindReference:
		err = t.openReference(ctx, spec)
	case KindURL:
		err = t.openURL(ctx, spec)
	case KindStdio:
		err = t.openStdio(ctx, spec)
	}
	if err != nil {
		t.Close()
		var te *TargetError
		if errors.As(err, &te) {
			te.Reason = t.redact(te.Reason)
			return nil, te
		}
		return nil, &TargetError{Unreachable: true, Reason: t.redact(err.Error())}
	}
	return t, nil
}

// LoadFixture loads a named fixture the way targets serve it: client tokens
// read as the spec says (live capability flags, filter and expand accepted),
// because the seed scenarios presuppose a grant whose schema advertises what
// it supports. The implementation's grant projection would hide every flag
// and make those scenarios unjudgeable (contract §4.3, §15 #3).
func LoadFixture(name string) (*fakers.Fixture, error) {
	if name == "" {
		name = fakers.DefaultFixture
	}
	fx, err := fakers.LoadFixture(name)
	if err != nil {
		return nil, err
	}
	fx.SpecClientReads = true
	return fx, nil
}

func (t *Target) openURL(ctx context.Context, spec TargetSpec) error {
	if spec.RSControl != "" {
		r, err := dialRemoteRS(ctx, spec.RSControl, spec.RSControlToken, spec.ConnectTimeout)
		if err != nil {
			return err
		}
		t.remote, t.RS, t.RSURL = r, r, r.origin()
		t.lendTokens(r.secrets()...)
		if spec.Token == "" {
			spec.Token = r.ClientToken()
		}
		if spec.OwnerToken == "" {
			spec.OwnerToken = r.OwnerToken()
		}
		t.Fork = func(ctx context.Context, fx *fakers.Fixture) (*Target, error) { return forkRemote(ctx, spec, r, fx) }
	}
	t.secret = spec.Token
	t.Description = "url " + spec.URL
	if spec.RSControl != "" {
		t.Description += ", controlled fixture RS"
	}
	t.MCPURL, t.OwnerToken = spec.URL, spec.OwnerToken
	t.ExpiredToken, t.ForeignToken = spec.ExpiredToken, spec.ForeignToken
	if u, err := url.Parse(spec.URL); err == nil {
		t.Origin = u.Scheme + "://" + u.Host
	}
	return t.connectHTTP(ctx, spec.URL, spec.Token, nil, spec.ConnectTimeout)
}

// forkRemote serves fx on the controlled RS and opens a new session to
// the same URL; closing the fork restores the RS's own data.
func forkRemote(ctx context.Context, spec TargetSpec, r *remoteRS, fx *fakers.Fixture) (*Target, error) {
	restore := func() error {
		status, body, err := r.do(context.Background(), http.MethodPost, "mutations", fakers.Mutation{Op: "restore"})
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %s", status, firstLine(string(body)))
		}
		return err
	}
	if err := restore(); err != nil {
		return nil, fmt.Errorf("controlled RS: restore: %w", err)
	}
	status, body, err := r.do(ctx, http.MethodPost, "mutations", fakers.Mutation{Op: "replace", Fixture: fx})
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %s", status, firstLine(string(body)))
	}
	if err != nil {
		_ = restore()
		return nil, fmt.Errorf("controlled RS: serve the fork's data: %w", err)
	}
	fork := spec
	fork.RSControl = ""
	f, err := Open(ctx, fork)
	if err != nil {
		_ = restore()
		return nil, err
	}
	f.remote, f.RS, f.RSURL = r, r, r.origin()
	f.closers = append([]func(){func() { _ = restore() }}, f.closers...)
	return f, nil
}

// baseFixture is a fresh copy of the data the target's RS serves by
// default: the named fixture, or what a controlled RS started with.
func (t *Target) baseFixture() (*fakers.Fixture, error) {
	if t.remote != nil {
		var fx fakers.Fixture
		status, body, err := t.remote.do(context.Background(), http.MethodGet, "fixture/baseline", nil)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %s", status, firstLine(string(body)))
		}
		if err == nil {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			err = dec.Decode(&fx)
		}
		if err != nil {
			return nil, fmt.Errorf("controlled RS baseline: %w", err)
		}
		return &fx, nil
	}
	return LoadFixture(t.fixture)
}

func startFixture(spec TargetSpec) (*fakers.RS, string, func(), error) {
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
	return rs, url, func() { _ = stop(context.Background()) }, nil
}

func (t *Target) openReference(ctx context.Context, spec TargetSpec) error {
	rs, rsURL, stop, err := startFixture(spec)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, stop)
	t.RS, t.RSURL = rs, rsURL
	// The adapter's own RS transport, emptied before the fixture RS stops:
	// http.Server.Shutdown waits 5 s on a pooled connection it accepted but
	// has not yet read a request from.
	rsTransport := http.DefaultTransport.(*http.Transport).Clone()
	rsTransport.MaxIdleConnsPerHost = rsclient.MaxIdleConnsPerHost
	t.closers = append(t.closers, rsTransport.CloseIdleConnections)
	v, err := variation.Lookup(spec.Mutant)
	if err != nil {
		return err
	}
	opts := adapter.Options{ProviderURL: rsURL, HTTPClient: &http.Client{Timeout: rsclient.DefaultTimeout, Transport: rsTransport}}
	variation.Configure(v, &opts)
	a, err := adapter.New(opts)
	if err != nil {
		return err
	}
	srv := httptest.NewServer(a.Handler())
	t.closers = append(t.closers, srv.Close)
	t.MCPURL, t.Origin = srv.URL+adapter.MCPPath, srv.URL
	t.setFixtureTokens(rs)
	t.Description = "reference adapter (pdpp-mcp over loopback HTTP, fixture RS)"
	if spec.Mutant != "" {
		t.Description += ", mutant " + spec.Mutant
	}
	token := rs.ClientToken()
	mutantArgs := []string{}
	if spec.Mutant != "" {
		mutantArgs = []string{"--mutant", spec.Mutant}
	}
	t.Help = func(ctx context.Context) (Help, error) {
		var out, errb bytes.Buffer
		code := variation.Main(ctx, append(append([]string(nil), mutantArgs...), "--help"), func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		return Help{Stdout: out.String(), Stderr: errb.String(), ExitCode: code}, nil
	}
	t.StdioTools = func(ctx context.Context, env map[string]string) ([]json.RawMessage, error) {
		return referenceStdioTools(ctx, append([]string{"--provider-url", rsURL}, mutantArgs...), token, env)
	}
	t.Local = func(ctx context.Context, extra map[string]string, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		env := func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			if k == "PDPP_CLIENT_TOKEN" {
				return token
			}
			return ""
		}
		args = append(append([]string{"--provider-url", rsURL}, args...), mutantArgs...)
		code := variation.Main(ctx, args, env, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	t.CLI = func(ctx context.Context, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		env := func(k string) string {
			if k == "PDPP_CLIENT_TOKEN" {
				return token
			}
			return ""
		}
		if len(args) > 0 { // flags stop at the first operand: the mutant goes right after the subcommand
			args = append(append([]string{args[0]}, mutantArgs...), args[1:]...)
		}
		code := variation.Main(ctx, args, env, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	return t.connectHTTP(ctx, srv.URL+adapter.MCPPath, token, nil, spec.ConnectTimeout)
}

// referenceStdioTools runs the reference adapter's stdio entry point over
// in-memory pipes and returns its tools/list as received.
func referenceStdioTools(ctx context.Context, args []string, token string, extra map[string]string) ([]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultConnectTimeout)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		if k == "PDPP_CLIENT_TOKEN" {
			return token
		}
		return ""
	}
	done := make(chan int, 1)
	go func() {
		done <- variation.Main(ctx, args, env, inR, outW, io.Discard)
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

func (t *Target) connectHTTP(ctx context.Context, endpoint, token string, base http.RoundTripper, timeout time.Duration) error {
	header := http.Header{}
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	if base == nil {
		// The handshake and every call carry their own deadline; this only
		// backstops requests made without one.
		base = &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, ResponseHeaderTimeout: timeout + 5*time.Second}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: wiretap.HTTPClient(t.Tap, base, endpoint, header),
		DisableStandaloneSSE: true, MaxRetries: -1}
	return t.handshake(ctx, tr, timeout, nil)
}

// handshake connects, then lists tools; diagnose explains failures.
// diagnose, if set, explains a failure from what the target did (garbage on
// stdout, an early exit); timedOut says whether the deadline passed.
func (t *Target) handshake(ctx context.Context, tr mcp.Transport, timeout time.Duration, diagnose func(timedOut bool, err error) error) error {
	t.callTimeout = timeout
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck", Version: Version()}, nil)
	cs, err := client.Connect(hctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return t.explain("initialize", err, hctx, timeout, diagnose)
	}
	if !t.started.IsZero() {
		t.Startup = time.Since(t.started)
	}
	t.Session = cs
	t.closers = append(t.closers, func() { _ = cs.Close() })
	t.Init = cs.InitializeResult()
	raw, err := listToolsRaw(hctx, cs, t.Tap, HandshakeLimit)
	var te *TargetError
	switch {
	case errors.As(err, &te):
		return te
	case err != nil:
		return t.explain("tools/list", err, hctx, timeout, diagnose)
	}
	t.ToolsRaw = raw
	for _, r := range raw {
		var tool mcp.Tool
		if err := json.Unmarshal(r, &tool); err != nil {
			return &TargetError{Unreachable: true, Reason: "tools/list returned a tool that is not a JSON object: " + err.Error()}
		}
		t.Tools = append(t.Tools, &tool)
	}
	return nil
}

func (t *Target) explain(step string, err error, ctx context.Context, timeout time.Duration, diagnose func(timedOut bool, err error) error) error {
	if refused := t.Tap.RefusedRedirect(); refused != nil {
		return &TargetError{Unreachable: true, Reason: step + ": " + refused.Error()}
	}
	for _, code := range t.Tap.HTTPStatuses() {
		if code == http.StatusUnauthorized || code == http.StatusForbidden {
			return &TargetError{Reason: fmt.Sprintf("%s: authentication rejected (HTTP %d); check --token-file or MCPCHECK_TOKEN", step, code)}
		}
	}
	timedOut := ctx.Err() != nil
	if diagnose != nil {
		if d := diagnose(timedOut, err); d != nil {
			return d
		}
	}
	if timedOut {
		if stray := t.Tap.Stray(); len(stray) > 0 {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: no answer within %s; the target answered with an id no request carried: %s", step, timeout, stray[0])}
		}
		return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: no answer within %s", step, timeout)}
	}
	msg := err.Error()
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) {
		msg = "cannot connect: " + opErr.Error()
	}
	return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: %s", step, firstLine(msg))}
}

// ---- stdio ----

func (t *Target) openStdio(ctx context.Context, spec TargetSpec) error {
	rs, rsURL, stop, err := startFixture(spec)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, stop)
	t.RS, t.RSURL = rs, rsURL
	token := rs.ClientToken()
	t.secret = token
	expand := strings.NewReplacer("{rs_url}", rsURL, "{token}", token).Replace
	argv, err := SplitCommand(spec.Stdio)
	if err != nil {
		return &TargetError{Unreachable: true, Reason: "--stdio: " + err.Error()}
	}
	for i := range argv {
		argv[i] = expand(argv[i])
	}
	env := append(os.Environ(), "PDPP_PROVIDER_URL="+rsURL, "PDPP_CLIENT_TOKEN="+token, "MCPCHECK_RS_URL="+rsURL, "MCPCHECK_RS_TOKEN="+token)
	for _, kv := range spec.Env {
		env = append(env, expand(kv))
	}
	t.Description = "stdio " + spec.Stdio
	t.StdioTools = func(ctx context.Context, extra map[string]string) ([]json.RawMessage, error) {
		again := spec
		again.Env = append([]string(nil), spec.Env...)
		for k, v := range extra {
			again.Env = append(again.Env, k+"="+v)
		}
		other, err := Open(ctx, again)
		if err != nil {
			return nil, err
		}
		defer other.Close()
		return other.ToolsRaw, nil
	}
	t.Help = func(ctx context.Context) (Help, error) { return runHelp(ctx, argv, env) }
	t.CLI = func(ctx context.Context, args ...string) (string, string, int) {
		return runCommand(ctx, argv[0], args, env)
	}
	t.setFixtureTokens(rs)
	t.Local = func(ctx context.Context, extra map[string]string, args ...string) (string, string, int) {
		e := append([]string(nil), env...)
		for k, v := range extra {
			e = append(e, k+"="+v)
		}
		return runCommand(ctx, argv[0], append(append([]string(nil), argv[1:]...), args...), e)
	}
	t.cliOK = sync.OnceValue(func() bool {
		out, errOut, code := runCommand(context.Background(), argv[0], []string{"search", "--help"}, env)
		return code == 0 && strings.Contains(out+errOut, "read-field")
	})

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	t.Stderr = stderr.String
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t.started = time.Now()
	if err := cmd.Start(); err != nil {
		return &TargetError{Unreachable: true, Reason: fmt.Sprintf("start %s: %v", argv[0], err)}
	}
	t.PID = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	// The pipe closes a moment before Wait returns: wait up to wait for
	// the exit status to land.
	t.exitState = func(wait time.Duration) string {
		select {
		case <-exited:
			return cmd.ProcessState.String()
		case <-time.After(wait):
			return ""
		}
	}
	t.closers = append(t.closers, func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	tr := &mcp.IOTransport{Reader: wiretap.StdoutReader(t.Tap, stdout), Writer: wiretap.StdinWriter(t.Tap, stdin)}
	diagnose := func(timedOut bool, err error) error {
		if g := t.Tap.Garbage(); len(g) > 0 {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("the command wrote non-JSON-RPC to stdout: %q", g[0])}
		}
		// A hang, or an answer the client refused (say "jsonrpc":"1.0"),
		// is its own reason, even if the command exits once its stdin closes.
		if timedOut || !(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed)) {
			return nil
		}
		if state := t.exitState(time.Second); state != "" {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("the command exited (%s) before answering; stderr: %s", state, firstLine(stderr.String()))}
		}
		return nil
	}
	return t.handshake(ctx, tr, spec.ConnectTimeout, diagnose)
}
